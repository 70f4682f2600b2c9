"""A sparse count table: m cells, of which only the n non-zero ones are stored (ICDT'12 section 2.1).

The paper treats the contingency table M as one long array of m items, n << m of them non-zero.
:class:`SparseTable` stores exactly that: sorted unique cell indices in [0, m), their (non-zero,
integer) counts, and m. The m - n zero cells are never stored. ``layout`` describes how the linear
index maps back to the table's axes (a contingency table or a grid over a public domain), so that
the app can draw or label cells; it carries only public information (declared categories / domain).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..core.errors import InputDataError, ParameterError

M_MAX = 2 ** 62  # cell indices are int64
# layout keys holding exact figures about the input (rows dropped, points outside the domain): for the
# data owner only, never copied into a release
DATA_OWNER_KEYS = ("points", "rows_without_tail_dropped")
OBSERVED = "observed in the data"


@dataclass(frozen=True)
class SparseTable:
    """Non-zero cells (indices ascending, counts != 0) of a table with m cells."""

    indices: np.ndarray   # (n,) int64, strictly increasing, in [0, m)
    counts: np.ndarray    # (n,) int64, non-zero
    m: int
    layout: dict = field(default_factory=dict)

    @property
    def n(self) -> int:
        return int(self.indices.shape[0])

    @property
    def l1(self) -> int:
        """||M||_1, the total absolute count."""
        return int(np.abs(self.counts).sum())

    @property
    def density(self) -> float:
        return self.n / self.m

    def dense(self, limit: int = 50_000_000) -> np.ndarray:
        """The full table as an array (only for small m: tests and the laborious baseline)."""
        if self.m > limit:
            raise ParameterError(f"m={self.m} cells is above the dense limit {limit}; use a shortcut summary")
        out = np.zeros(self.m, dtype=np.int64)
        out[self.indices] = self.counts
        return out

    def range_sums(self, lo, hi) -> np.ndarray:
        """True sums over cell ranges [lo, hi) (for evaluation, never part of a release)."""
        return _range_sums(self.indices, self.counts.astype(float), lo, hi)

    def subset_sum(self, cells) -> float:
        """True sum over a set of cell indices (for evaluation only)."""
        return float(_subset_sum(self.indices, self.counts.astype(float), cells))


def make_table(indices, counts, m: int, layout: dict | None = None) -> SparseTable:
    """Validate and normalise (sort, merge duplicates, drop zeros); never modifies the inputs."""
    if isinstance(m, bool) or not float(m).is_integer() or not 1 <= m <= M_MAX:
        raise ParameterError(f"m must be an integer in [1, 2^62] (got {m!r})")
    m = int(m)
    idx = np.array(indices, dtype=np.int64, copy=True).ravel()
    raw = np.array(counts, copy=True).ravel()
    if idx.shape != raw.shape:
        raise InputDataError(f"indices and counts must have the same length (got {idx.size} and {raw.size})")
    if raw.size and not np.all(np.isfinite(raw.astype(float))):
        raise InputDataError("counts must be finite integers")
    cnt = raw.astype(np.int64)
    if raw.size and not np.array_equal(cnt, raw):
        raise InputDataError("counts must be integers (the geometric mechanism releases integer counts)")
    if idx.size and (idx.min() < 0 or idx.max() >= m):
        raise InputDataError(f"indices must lie in [0, m) = [0, {m}) (got range [{idx.min()}, {idx.max()}])")
    if idx.size and np.any(np.diff(idx) <= 0):
        order = np.argsort(idx, kind="stable")
        idx, cnt = idx[order], cnt[order]
        uniq, start = np.unique(idx, return_index=True)
        cnt = np.add.reduceat(cnt, start) if uniq.size else cnt
        idx = uniq
    keep = cnt != 0
    return SparseTable(idx[keep], cnt[keep], m, dict(layout or {}))


def _range_sums(indices: np.ndarray, values: np.ndarray, lo, hi) -> np.ndarray:
    """Sums of ``values`` at sorted ``indices`` over many ranges [lo, hi), via prefix sums."""
    lo = np.atleast_1d(np.asarray(lo, dtype=np.int64))
    hi = np.atleast_1d(np.asarray(hi, dtype=np.int64))
    if lo.shape != hi.shape:
        raise ParameterError(f"lo and hi must have the same shape (got {lo.shape} and {hi.shape})")
    if np.any(hi < lo):
        raise ParameterError("each range needs lo <= hi")
    prefix = np.concatenate([[0.0], np.cumsum(values, dtype=float)])
    return prefix[np.searchsorted(indices, hi)] - prefix[np.searchsorted(indices, lo)]


def _subset_sum(indices: np.ndarray, values: np.ndarray, cells) -> float:
    """Sum of ``values`` at the sorted ``indices`` that belong to the cell set ``cells``."""
    cells = np.unique(np.asarray(cells, dtype=np.int64).ravel())
    if indices.size == 0 or cells.size == 0:
        return 0.0
    pos = np.searchsorted(indices, cells)
    pos = np.minimum(pos, indices.size - 1)
    hit = indices[pos] == cells
    return float(values[pos[hit]].sum())
