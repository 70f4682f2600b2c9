"""The spatial partition every window of a release over time shares: dyadic squares of the public grid.

A cell at level l is the square of grid positions [ix 2^(k-l), (ix + 1) 2^(k-l)) x [iy 2^(k-l), ...) of the
resolution grid (2^k positions per axis over the public domain, :mod:`psdviz.core.grid`), so every released
coordinate lies on that grid. A public partition is one quadtree level (a uniform 2^l x 2^l grid of the
domain); a partition bought from the pooled data is the leaves of a private quadtree or PrivTree (built by
``psdviz.over_time`` with a stated slice of epsilon). Either way the cells tile the domain, which
:meth:`Partition.check` proves from the cells alone (their Morton ranges are disjoint and cover the grid), so
one event lies in exactly one cell: the windows' counts compose in parallel across cells.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.domain import Domain
from ..core.errors import ParameterError
from ..core.grid import Grid
from ..core.tree import FlatTree, child_links
from ..splits.morton import encode

MAX_CELLS = 65_536


@dataclass(frozen=True)
class Partition:
    """Dyadic cells (``level``, ``ix``, ``iy``: int64 arrays) of the grid ``grid``."""

    grid: Grid
    level: np.ndarray
    ix: np.ndarray
    iy: np.ndarray

    @classmethod
    def uniform(cls, grid: Grid, level: int) -> Partition:
        """The public 2^level x 2^level grid of the domain, cells in row-major order (y, then x)."""
        if not (isinstance(level, (int, np.integer)) and not isinstance(level, bool) and 0 <= level <= grid.bits):
            raise ParameterError(f"grid_level must be a whole number in [0, {grid.bits}] (the resolution) "
                                 f"(got {level!r})")
        if 4 ** int(level) > MAX_CELLS:
            raise ParameterError(f"grid_level {level} makes {4 ** int(level):,} cells, above {MAX_CELLS:,}: "
                                 "choose a coarser level")
        g = 1 << int(level)
        iy, ix = np.divmod(np.arange(g * g, dtype=np.int64), g)
        return cls(grid, np.full(g * g, int(level), np.int64), ix, iy)

    @classmethod
    def from_rects(cls, grid: Grid, rects: np.ndarray) -> Partition:
        """The cells of released rectangles that are dyadic squares of ``grid`` (a quadtree's or PrivTree's
        leaves); a ParameterError for any other rectangle."""
        j = grid.positions(np.asarray(rects, float))
        w, h = j[:, 2] - j[:, 0], j[:, 3] - j[:, 1]
        ok = (w == h) & (w > 0) & ((w & (w - 1)) == 0)
        side = np.where(ok, w, 1)
        ok &= (j[:, 0] % side == 0) & (j[:, 1] % side == 0) & grid.on_grid(rects)
        if not ok.all():
            raise ParameterError("the partition's cells must be dyadic squares of the public grid (the leaves of a "
                                 "quadtree or PrivTree over a square grid)")
        level = grid.bits - np.log2(side).astype(np.int64)
        p = cls(grid, level.astype(np.int64), j[:, 0] // side, j[:, 1] // side)
        p.check()
        return p

    @property
    def size(self) -> int:
        return int(self.level.size)

    def _morton(self) -> tuple[np.ndarray, np.ndarray]:
        shift = (self.grid.bits - self.level).astype(np.int64)
        start = encode(self.ix << shift, self.iy << shift)
        return start, np.left_shift(np.int64(1), 2 * shift)

    def check(self) -> None:
        """Refuse cells that do not tile the domain exactly (a gap or an overlap): the parallel composition of
        the windows' counts across cells rests on it."""
        k = self.grid.bits
        if self.size == 0 or self.size > MAX_CELLS:
            raise ParameterError(f"a partition holds 1 to {MAX_CELLS:,} cells (got {self.size:,})")
        if (self.level < 0).any() or (self.level > k).any() or (self.ix < 0).any() or (self.iy < 0).any() \
                or (self.ix >= (1 << self.level)).any() or (self.iy >= (1 << self.level)).any():
            raise ParameterError("a partition's cells must lie on the grid of its resolution")
        start, n = self._morton()
        order = np.argsort(start)
        s, e = start[order], start[order] + n[order]
        if s[0] != 0 or e[-1] != 1 << (2 * k) or (e[:-1] != s[1:]).any():
            raise ParameterError("the partition's cells must tile the domain: no gap, no overlap")

    def rects(self) -> np.ndarray:
        """The cells as [x0, y0, x1, y1] (every coordinate on the public grid)."""
        side = np.left_shift(np.int64(1), self.grid.bits - self.level)
        return self.grid.rects(np.column_stack([self.ix * side, self.iy * side, (self.ix + 1) * side,
                                                (self.iy + 1) * side]))

    def cell_of(self, keys: np.ndarray) -> np.ndarray:
        """The cell (index) of each point's grid key (n, 2)."""
        if np.unique(self.level).size == 1:      # one level: row-major lookup
            lvl = int(self.level[0])
            shift = self.grid.bits - lvl
            lookup = np.empty(4 ** lvl, np.int64)
            lookup[(self.iy << lvl) + self.ix] = np.arange(self.size)
            return lookup[((keys[:, 1] >> shift) << lvl) + (keys[:, 0] >> shift)]
        start, _ = self._morton()
        order = np.argsort(start)
        at = np.searchsorted(start[order], encode(keys[:, 0], keys[:, 1]), side="right") - 1
        return order[at]

    def to_data(self) -> dict:
        d = self.grid.domain
        return {"domain": [d.xmin, d.ymin, d.xmax, d.ymax], "resolution": self.grid.bits,
                "level": self.level.tolist(), "ix": self.ix.tolist(), "iy": self.iy.tolist()}

    @classmethod
    def from_data(cls, data: dict) -> Partition:
        from ..core.grid import check_resolution
        grid = Grid(Domain(*data["domain"]), check_resolution(data["resolution"]))
        arrays = [np.asarray(data[k], dtype=np.int64) for k in ("level", "ix", "iy")]
        if len({a.size for a in arrays}) != 1:
            raise ParameterError("the partition's level, ix and iy must hold one value per cell")
        p = cls(grid, *arrays)
        p.check()
        return p

    def family_tree(self, pooled: np.ndarray, pooled_var: float) -> tuple[FlatTree, np.ndarray]:
        """A tree of the cells under their dyadic parents (a parent whose four children are all cells), the
        others under the root, with the cells' ``pooled`` estimates as leaf counts (variance ``pooled_var``)
        and the parents and root unmeasured: what :func:`psdviz.query.uniformity.overdispersion` reads to
        measure how unevenly points sit inside cells (released values only). Returns the tree and, for each of
        its leaves in order, the cell it is."""
        key = (self.level - 1) * (1 << 40) + ((self.iy >> 1) << 20) + (self.ix >> 1)
        key = np.where(self.level > 0, key, -1)
        ids, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
        full = (counts[inverse] == 4) & (key >= 0)
        fam_ids = np.unique(inverse[full])
        fam_of = np.full(ids.size, -1, np.int64)
        fam_of[fam_ids] = np.arange(fam_ids.size)
        lone = np.flatnonzero(~full)
        kids = np.flatnonzero(full)
        kids = kids[np.argsort(fam_of[inverse[kids]], kind="stable")]
        n_f, n_l = fam_ids.size, lone.size
        parent = np.r_[-1, np.zeros(n_f + n_l, np.int64), 1 + fam_of[inverse[kids]]].astype(np.int64)
        depth = np.r_[0, np.ones(n_f + n_l, np.int16), np.full(kids.size, 2, np.int16)].astype(np.int16)
        rects = self.rects()
        fam_rect = np.zeros((n_f, 4))
        if n_f:
            first = kids.reshape(-1, 4)
            r4 = rects[first]
            fam_rect = np.column_stack([r4[:, :, 0].min(1), r4[:, :, 1].min(1), r4[:, :, 2].max(1), r4[:, :, 3].max(1)])
        d = self.grid.domain
        rect = np.vstack([[d.xmin, d.ymin, d.xmax, d.ymax], fam_rect, rects[lone], rects[kids]])
        cell_rows = np.r_[lone, kids]
        noisy = np.r_[np.full(1 + n_f, np.nan), pooled[cell_rows]]
        var = np.r_[np.full(1 + n_f, np.inf), np.full(cell_rows.size, float(pooled_var))]
        first_child, n_children = child_links(parent)
        zeros = np.zeros(parent.size)
        tree = FlatTree(rect=rect, depth=depth, parent=parent, first_child=first_child, n_children=n_children,
                        noisy=noisy, count_eps=zeros, split_eps=zeros, noise_var=var)
        return tree, cell_rows
