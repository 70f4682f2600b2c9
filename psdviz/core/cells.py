"""Read the data once: the occupied cells of the release grid, with their counts, held in memory.

Every method reads data only through grouped passes whose keyers are functions of a point's grid
cell (:mod:`psdviz.core.source`). Grouping the occupied cells by a keyer, each cell weighted by its
count, therefore gives exactly the groups and counts a pass over the points gives: the same release
for the same seed. A :class:`CellTable` makes that one grouped pass over any source (DuckDB files, a
Dask or Spark frame) and answers every later pass from memory, so a file is read once, whatever the
method (DuckDB takes the validation counts from the same scan).

Rule (``passes="auto"``): hold the cells when they fit in the cells' share of the memory budget
(:mod:`psdviz.core.memory`) at :data:`BYTES_PER_CELL` bytes a cell (the budget is ``memory_limit`` when
given, else a quarter of the machine's memory); otherwise keep today's per-level passes, after the one
lost pass that counted too many cells (DuckDB returns at most the cap plus one row, so the lost pass costs time, not
memory). Which path ran depends on an exact count of occupied cells, so it is reported to the owner
(``audit()``, the CLI's input account), never in the release.
"""
from __future__ import annotations

import numpy as np

from .errors import ParameterError
from .memory import BYTES_PER_CELL, CELLS_SHARE, memory_bytes
from .source import Keyer, KeySource, RowIds, dense_group_sums, dense_range, merge_counts

PASSES = ("auto", "one", "per-level")


def weighted_groups(ids: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct non-negative ids and the sum of their weights (integer counts); a dense id range
    without copying the rows (:func:`~psdviz.core.source.dense_group_sums`)."""
    ids = np.asarray(ids, dtype=np.int64)
    top = int(ids.max(initial=-1)) + 1
    if dense_range(top, ids.size):
        return dense_group_sums(ids, weights, top)
    keep = ids >= 0
    return merge_counts([(ids[keep], np.asarray(weights, dtype=np.int64)[keep])])


class CellTable(KeySource):
    """A source's occupied grid cells and their counts, answering every pass from memory."""

    def __init__(self, source: KeySource, keys: np.ndarray, counts: np.ndarray):
        self.source = source
        self.grid = source.grid
        self.n_input, self.n_nonfinite, self.n_outside = source.n_input, source.n_nonfinite, source.n_outside
        self.outside, self.nonfinite = source.outside, source.nonfinite
        self.kx = np.ascontiguousarray(keys[:, 0], dtype=np.int64)
        self.ky = np.ascontiguousarray(keys[:, 1], dtype=np.int64)
        self.cnt = np.asarray(counts, dtype=np.int64)
        self.weight = self.cnt.astype(float)   # exact up to 2^53 rows a cell; bincount's weights
        self.memo: dict = {}   # the same rows in the same order on every pass: keyers may reuse work

    @property
    def n_cells(self) -> int:
        return int(self.cnt.size)

    def grouped(self, keyer: Keyer) -> tuple[np.ndarray, np.ndarray]:
        if getattr(keyer, "post", None) is not None and hasattr(keyer, "coarse"):
            # a coarse key and a map of its groups (Morton order): grouped by the coarse key first, the map
            # run on the distinct groups only, as DuckDB runs it (the same groups and counts)
            ids, cnt = weighted_groups(keyer.coarse(self.kx, self.ky), self.weight)  # type: ignore[attr-defined]
            return weighted_groups(keyer.apply_post(ids), cnt)  # type: ignore[attr-defined]
        got = keyer(self.kx, self.ky, self.memo)
        if isinstance(got, RowIds):
            return weighted_groups(got.ids, self.weight[got.rows])
        return weighted_groups(got, self.weight)

    def held(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return self.kx, self.ky, self.cnt

    def cells(self, bits: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        if bits is None or bits == self.grid.bits:
            return np.column_stack([self.kx, self.ky]), self.cnt
        return super().cells(bits)

    def close(self) -> None:
        self.source.close()

    def report(self) -> dict:
        return {**self.source.report(), "data_passes": f"one grouped pass into {self.n_cells:,} occupied cells, "
                                                       "then memory"}


def hold_cells(source: KeySource, passes: str = "auto", memory_limit: str | None = None) -> KeySource:
    """``source`` read once into a :class:`CellTable` when ``passes`` is "one", or "auto" and the cells fit
    the cells' share of the memory budget (rule in the module docstring); else ``source`` itself (one pass a level)."""
    if check_passes(passes) == "per-level":
        return _per_level(source, "per-level passes (asked for)")
    cap = None if passes == "one" else max(1, int(memory_bytes(memory_limit) * CELLS_SHARE) // BYTES_PER_CELL)
    got = source.cells_at_most(cap)
    if got is None:
        return _per_level(source, f"per-level passes (more than {cap:,} occupied cells: they do not fit in "
                                  "the cells' share of the memory budget)")
    return CellTable(source, *got)


def check_passes(passes) -> str:
    """One of :data:`PASSES`, or a ValueError naming them."""
    if passes not in PASSES:
        raise ParameterError(f"passes must be one of {PASSES} (got {passes!r})")
    return passes


def _per_level(source: KeySource, why: str) -> KeySource:
    source.passes_note = why
    return source
