"""The one way a method reads data: grouped counts of integer keys on the public grid.

A method never sees points. Each pass over the data hands the source a *keyer*, a vectorised
function ``keyer(kx, ky, memo) -> ids`` from the points' grid cells (two int64 arrays, see
:class:`psdviz.core.grid.Grid`) to one int64 group id per point (negative: not counted), and gets back
how many points fell in each group. The group is whatever the pass needs: the cell of a coarser grid
(quadtree, UG, AG, kd-cell), the node of the current tree level (PrivTree), or the pair (node, position
on the split axis) from which a private median is drawn (kd family). The same keyer runs on every
source, so a method is written once:

- in memory (:class:`psdviz.core.domain.PointSet`): one call on all keys, then ``bincount``;
- DuckDB over Parquet / CSV files (:mod:`psdviz.sources.files`): the keyer is a vectorised function
  inside ``SELECT keyer(kx, ky), count(*) ... GROUP BY``; DuckDB scans out of core and groups;
- a Dask DataFrame (:mod:`psdviz.sources.dask_frame`): the keyer per partition, counts summed by Dask.

``memo`` lets a keyer reuse work between passes where the source keeps the same rows in the same
order (in memory: e.g. the node each point reached at the previous level); chunked sources pass a fresh
dict per chunk, so a keyer must give the same ids with or without its memo. A keyer whose rows mostly
count nowhere may return :class:`RowIds` (the ids of some rows, the others uncounted); every source
reads it (:func:`dense_ids` where a full array is needed). Results are a sorted set
of group ids with counts, whatever the source and its partitioning: counts of a multiset do not depend
on row order, which is why every source gives the same release for the same seed.
"""
from __future__ import annotations

import itertools
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .grid import Grid

Keyer = Callable[[np.ndarray, np.ndarray, dict], "np.ndarray | RowIds"]
_tokens = itertools.count()


@dataclass(frozen=True)
class RowIds:
    """A keyer's result for some of the rows: ``ids`` of rows ``rows`` (of ``n``); the other rows are not
    counted. Saves a full-length array per pass when few rows still count."""

    rows: np.ndarray
    ids: np.ndarray
    n: int


def dense_ids(result) -> np.ndarray:
    """A keyer's result as one id per row (-1: not counted)."""
    if not isinstance(result, RowIds):
        return result
    out = np.full(result.n, -1, np.int64)
    out[result.rows] = result.ids
    return out


def memo_token() -> int:
    """A key of its own in a source's ``memo`` for one build's chain of passes (e.g. each point's node
    at the last level), so two builds on one source never read each other's state."""
    return next(_tokens)


def dense_range(top: int, n: int) -> bool:
    """Whether ids in [0, top) from n rows are dense enough to count in an array of ``top`` bins (one
    bincount or scatter, no sort)."""
    return 0 < top <= 4 * n + 1024


def group_counts(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct non-negative ids and their counts (a bincount where the id range is small)."""
    ids = np.asarray(ids, dtype=np.int64)
    ids = ids[ids >= 0]
    if ids.size == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    top = int(ids.max()) + 1
    if dense_range(top, ids.size):
        c = np.bincount(ids, minlength=top)
        nz = np.flatnonzero(c)
        return nz.astype(np.int64), c[nz].astype(np.int64)
    u, c = np.unique(ids, return_counts=True)
    return u.astype(np.int64), c.astype(np.int64)


def dense_group_sums(ids: np.ndarray, weights, top: int) -> tuple[np.ndarray, np.ndarray]:
    """Sorted ids in [0, top) with a positive sum of weights, and those sums (integer counts), by one
    bincount of id + 1: bin 0 takes the negative ids (not counted), so no row is copied to drop them."""
    shifted = ids + 1
    np.maximum(shifted, 0, out=shifted)
    c = np.bincount(shifted, weights=weights, minlength=top + 1)[1:]
    nz = np.flatnonzero(c)
    return nz.astype(np.int64), np.rint(c[nz]).astype(np.int64)


def merge_counts(parts, distinct: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Sum several (ids, counts) results over the same groups (partitions of one data set).
    ``distinct``: the ids are known to be distinct (one part from one GROUP BY): only sorted."""
    parts = [p for p in parts if p[0].size]
    if not parts:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    if len(parts) == 1:
        ids, cnt = np.asarray(parts[0][0], np.int64), np.asarray(parts[0][1])
    else:
        ids = np.concatenate([p[0] for p in parts]).astype(np.int64, copy=False)
        cnt = np.concatenate([p[1] for p in parts])
    top = int(ids.max()) + 1 if ids.min() >= 0 else 0
    if distinct and dense_range(top, ids.size):      # sorted by one integer scatter
        dense = np.zeros(top, np.int64)
        dense[ids] = cnt
        nz = np.flatnonzero(dense)
        return nz, dense[nz]
    if dense_range(top, ids.size):      # one bincount, no sort
        return dense_group_sums(ids, cnt, top)
    ids, cnt = sort_pairs(ids, cnt)
    if distinct:
        return ids, cnt
    starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
    if starts.size == ids.size:         # no id twice (curve positions of distinct cells): nothing to sum
        return ids, cnt
    return ids[starts], np.add.reduceat(cnt, starts)


def sort_pairs(ids: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``ids`` (non-negative int64) sorted, each with its ``values`` entry (non-negative int64); equal ids in
    any order. One sort of the values ``id << b | value`` when both fit in 63 bits, else an argsort: numpy
    sorts values with SIMD code on x86 (AVX2 and up) but has no SIMD argsort there, so at 10^7 pairs the
    packed sort takes about a tenth of the argsort's time."""
    ids, values = np.asarray(ids, np.int64), np.asarray(values, np.int64)
    if ids.size == 0:
        return ids.copy(), values.copy()
    free = 63 - int(ids.max()).bit_length()
    if free > 0 and int(values.min()) >= 0 and int(values.max()) >> free == 0:
        packed = ids << free
        packed |= values
        packed.sort()
        low = packed & ((1 << free) - 1)
        packed >>= free
        return packed, low
    order = np.argsort(ids)
    return ids[order], values[order]


def cell_keys(codes: np.ndarray, bits: int) -> np.ndarray:
    """(n, 2) keys (kx, ky) of cells coded as one integer ``(ky << bits) | kx``, each column contiguous (Fortran
    order: a column is taken without a copy)."""
    keys = np.empty((codes.size, 2), np.int64, order="F")
    np.bitwise_and(codes, (1 << bits) - 1, out=keys[:, 0])
    np.right_shift(codes, bits, out=keys[:, 1])
    return keys


class KeySource(ABC):
    """Data on the public grid as a method may read them, plus what validation did to the input.

    Subclasses set ``grid`` and the validation counts (rows in, non-finite rows, rows outside the
    domain and the rules applied) and implement :meth:`grouped`."""

    grid: Grid
    n_input: int
    n_nonfinite: int
    n_outside: int
    outside: str
    nonfinite: str
    passes_note: str = ""   # why the data are read level by level, when they are (set by core.cells)

    @property
    def n(self) -> int:
        """Rows used: rows in, less non-finite rows, less rows outside the domain when they are dropped
        (clipped rows stay)."""
        return self.n_input - self.n_nonfinite - (self.n_outside if self.outside == "drop" else 0)

    @abstractmethod
    def grouped(self, keyer: Keyer) -> tuple[np.ndarray, np.ndarray]:
        """One pass: sorted distinct group ids (>= 0) of ``keyer`` and the number of rows in each."""

    def counts(self, keyer: Keyer, size: int) -> np.ndarray:
        """One pass, dense: the number of rows in each group 0..size-1 (int64)."""
        ids, cnt = self.grouped(keyer)
        out = np.zeros(int(size), dtype=np.int64)
        if ids.size and int(ids[-1]) >= size:
            raise RuntimeError(f"a keyer produced group id {int(ids[-1])} >= its declared size {size}")
        out[ids] = cnt
        return out

    def cells(self, bits: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """One pass: the occupied grid cells as (n_cells, 2) keys and their counts, sorted by (ky, kx), at
        full resolution or at ``bits`` <= the grid's (keys of that coarser grid, whose cells are blocks of
        the grid's). For the methods that work on the multiset of cells (h-tree): their memory is the
        number of occupied cells, not of rows."""
        bits = self.grid.bits if bits is None else int(bits)
        shift = self.grid.bits - bits
        if shift < 0:
            raise RuntimeError(f"cells at {bits} bits asked of a grid of {self.grid.bits} (a bug in psdviz)")
        ids, cnt = self.grouped(lambda kx, ky, memo: ((ky >> shift) << bits) | (kx >> shift))
        return cell_keys(ids, bits), cnt

    def held(self) -> tuple[np.ndarray, np.ndarray, np.ndarray | None] | None:
        """The grid keys this source holds in memory as (kx, ky, counts) (counts None: one row each key), for
        methods that keep them in orders of their own across passes instead of grouping anew each pass;
        None for sources read pass by pass (files, Dask and Spark frames)."""
        return None

    def cells_at_most(self, cap: int | None) -> tuple[np.ndarray, np.ndarray] | None:
        """:meth:`cells`, or None when there are more than ``cap`` occupied cells (None: no cap). Sources
        that can stop counting early (DuckDB) override it so that memory stays bounded."""
        keys, cnt = self.cells()
        return None if cap is not None and cnt.size > cap else (keys, cnt)

    def close(self) -> None:  # noqa: B027 (an optional hook: most sources hold nothing open)
        """Release what the source holds open (a database connection); nothing for most sources."""

    def report(self) -> dict:
        """The owner's input account: ``rows_in`` the rows this source read (after a per-user bound,
        whose drops the builder adds as ``rows_dropped_by_user_bound``: see :func:`rows_read`)."""
        return {"rows_in": self.n_input, "rows_nonfinite_dropped": self.n_nonfinite,
                "rows_outside_domain": self.n_outside, "outside_rows": self.outside + "ped"
                if self.outside == "drop" else "clipped to the boundary", "rows_used": self.n,
                "nonfinite_rows": "dropped" if self.nonfinite == "drop" else "refused",
                **({"data_passes": self.passes_note} if self.passes_note else {})}


def rows_read(report: dict) -> int:
    """Rows the user gave, before anything was dropped: the source's rows plus those a per-user bound
    dropped before the source was made (one account for the CLI and the app)."""
    return int(report["rows_in"]) + int(report.get("rows_dropped_by_user_bound", 0))
