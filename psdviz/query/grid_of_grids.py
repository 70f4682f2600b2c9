"""Fast canonical queries on a grid of grids (the adaptive grid's shape).

Level 1 is an m1 x m1 grid over the domain; level-1 cell i holds its own m2_i x m2_i grid of
leaves. All edges are positions of the public resolution grid (near-equal cells,
:func:`psdviz.core.grid.even_edges`), so units are computed in grid steps: a coordinate's unit
inside a run of cells is its cell index plus its fraction of that cell. For a query, the level-1 cells strictly inside
its index range are
fully covered: their sum comes from a 2-D prefix table of level-1 values. Only the ring of
level-1 cells on the range's border can be partly covered; each (query, ring cell) pair is
answered from the cell's own leaf prefix table by bilinear interpolation (the uniformity
assumption, as in ``pyramid.py``), or from the level-1 value when the cell is in fact fully
covered. This is exactly the canonical decomposition of ICDE'12 section 4.1 on this tree.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.grid import Grid
from ..core.grid import even_units as units
from ..core.ragged import runs
from .pyramid import prefix_2d

_TOL = 1e-9


@dataclass
class GridOfGrids:
    grid: Grid
    edges1: np.ndarray      # (m1+1,) level-1 cell edges in grid positions (both axes)
    m1: int
    m2: np.ndarray          # (m1*m1,) sub-grid size per level-1 cell (row-major)
    top: np.ndarray         # (m1+1, m1+1) prefix table of level-1 values
    level1: np.ndarray      # (m1*m1,) level-1 values
    tables: np.ndarray      # concatenated (m2+1)^2 prefix tables of the leaf values
    offset: np.ndarray      # start of each cell's table in ``tables``

    @classmethod
    def build(cls, grid: Grid, edges1: np.ndarray, m2: np.ndarray, level1: np.ndarray,
              leaves: np.ndarray) -> GridOfGrids:
        """``leaves`` in tree order: cell by cell, row-major inside each cell."""
        m1 = edges1.size - 1
        m2 = np.asarray(m2, dtype=np.int64)
        k = m2 * m2
        starts = np.r_[0, np.cumsum(k)[:-1]]
        sizes = (m2 + 1) ** 2
        offset = np.r_[0, np.cumsum(sizes)[:-1]]
        tables = np.zeros(int(sizes.sum()))
        for s in np.unique(m2):   # one vectorised cumsum per distinct sub-grid size
            cells = np.flatnonzero(m2 == s)
            idx = starts[cells, None] + np.arange(s * s)
            block = leaves[idx].reshape(-1, s, s)
            pref = np.zeros((cells.size, s + 1, s + 1))
            np.cumsum(np.cumsum(block, axis=1), axis=2, out=pref[:, 1:, 1:])
            tables[offset[cells, None] + np.arange((s + 1) ** 2)] = pref.reshape(cells.size, -1)
        return cls(grid, np.asarray(edges1, np.int64), int(m1), m2, prefix_2d(level1.reshape(m1, m1)),
                   level1.astype(float), tables, offset)

    def _cell_value(self, cell, a0, a1, b0, b1) -> np.ndarray:
        """Integral of cell's leaf density over [a0, a1] x [b0, b1] in sub-cell units."""
        m = self.m2[cell]
        off = self.offset[cell]

        def f(u, v):
            i = np.minimum(np.floor(u).astype(np.int64), m - 1)
            j = np.minimum(np.floor(v).astype(np.int64), m - 1)
            fa, fb = u - i, v - j
            r = m + 1
            t = self.tables
            base = off + j * r + i
            return (t[base] * (1 - fa) * (1 - fb) + t[base + 1] * fa * (1 - fb)
                    + t[base + r] * (1 - fa) * fb + t[base + r + 1] * fa * fb)
        return f(a1, b1) - f(a0, b1) - f(a1, b0) + f(a0, b0)

    def answer(self, rects: np.ndarray) -> np.ndarray:
        m1, edges = self.m1, self.edges1
        g = self.grid.positions_float(rects)          # query coordinates in grid steps
        gx0, gy0, gx1, gy1 = g.T
        u0, u1, v0, v1 = (units(c, edges[0], edges[-1], m1) for c in (gx0, gx1, gy0, gy1))
        i0 = np.minimum(np.floor(u0), m1 - 1).astype(np.int64)
        j0 = np.minimum(np.floor(v0), m1 - 1).astype(np.int64)
        i1 = np.maximum(np.ceil(u1).astype(np.int64) - 1, i0)
        j1 = np.maximum(np.ceil(v1).astype(np.int64) - 1, j0)
        empty = (u1 <= u0) | (v1 <= v0)
        s = self.top
        a, b, c, e = i0 + 1, np.maximum(i1, i0 + 1), j0 + 1, np.maximum(j1, j0 + 1)
        total = np.where(empty, 0.0, s[e, b] - s[c, b] - s[e, a] + s[c, a])
        q, ci, cj = self._ring(np.flatnonzero(~empty), i0, i1, j0, j1)
        cell = cj * m1 + ci
        m = self.m2[cell]
        a0, a1 = (units(c[q], edges[ci], edges[ci + 1], m) for c in (gx0, gx1))
        b0, b1 = (units(c[q], edges[cj], edges[cj + 1], m) for c in (gy0, gy1))
        full = (a0 <= _TOL) & (b0 <= _TOL) & (a1 >= m - _TOL) & (b1 >= m - _TOL)
        val = np.where(full, self.level1[cell], self._cell_value(cell, a0, a1, b0, b1))
        return total + np.bincount(q, weights=val, minlength=rects.shape[0])

    @staticmethod
    def _ring(qs, i0, i1, j0, j1):
        """(query, column, row) of every level-1 cell on the border of each query's index range."""
        out_q, out_i, out_j = [], [], []

        def run(q, start, length, fixed, horizontal):
            q = np.repeat(q, length)
            pos = runs(start, length)
            f = np.repeat(fixed, length)
            out_q.append(q)
            out_i.append(pos if horizontal else f)
            out_j.append(f if horizontal else pos)

        w = i1[qs] - i0[qs] + 1
        run(qs, i0[qs], w, j0[qs], True)
        two = qs[j1[qs] > j0[qs]]
        run(two, i0[two], i1[two] - i0[two] + 1, j1[two], True)
        h = np.maximum(j1[qs] - j0[qs] - 1, 0)
        run(qs, j0[qs] + 1, h, i0[qs], False)
        wide = i1[qs] > i0[qs]
        run(qs[wide], j0[qs][wide] + 1, h[wide], i1[qs][wide], False)
        return np.concatenate(out_q), np.concatenate(out_i), np.concatenate(out_j)
