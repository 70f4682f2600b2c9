"""Fast queries on regular grids and quadtree pyramids with 2-D prefix sums.

On a leaf grid (regular, or with the near-equal cells of :func:`psdviz.core.grid.even_edges`), the
uniformity assumption makes the estimate a piecewise-constant
density, whose integral F(x, y) over [xmin, x] x [ymin, y] is exactly the bilinear interpolation
of the 2-D prefix-sum table; a rectangle answer is F(x1,y1) - F(x0,y1) - F(x1,y0) + F(x0,y0).

For an inconsistent quadtree (no post-processing) the canonical range decomposition of ICDE'12
section 4.1 is evaluated level by level: on each released level, the cells fully inside the query
form an index rectangle; those not already covered by a fully-inside cell of a coarser released
level are the maximal ones, whose sum is a difference of two prefix-sum rectangles. Partly
covered leaves add their uniformity share. Everything is O(levels) numpy work per batch.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.domain import Domain

_TOL = 1e-9


def prefix_2d(grid: np.ndarray) -> np.ndarray:
    """(ny+1, nx+1) table S with S[j, i] = sum of grid[:j, :i]."""
    s = np.zeros((grid.shape[0] + 1, grid.shape[1] + 1))
    np.cumsum(np.cumsum(grid, axis=0), axis=1, out=s[1:, 1:])
    return s


def _rect_sum(s: np.ndarray, i0, i1, j0, j1) -> np.ndarray:
    """Sum of cells [i0, i1) x [j0, j1) (zero where empty)."""
    ok = (i1 > i0) & (j1 > j0)
    i0, i1, j0, j1 = (np.where(ok, a, 0) for a in (i0, i1, j0, j1))
    return np.where(ok, s[j1, i1] - s[j0, i1] - s[j1, i0] + s[j0, i0], 0.0)


def _bilinear(s: np.ndarray, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    ny, nx = s.shape[0] - 1, s.shape[1] - 1
    u = np.clip(u, 0, nx)
    v = np.clip(v, 0, ny)
    i = np.minimum(np.floor(u).astype(np.int64), nx - 1)
    j = np.minimum(np.floor(v).astype(np.int64), ny - 1)
    a, b = u - i, v - j
    return (s[j, i] * (1 - a) * (1 - b) + s[j, i + 1] * a * (1 - b)
            + s[j + 1, i] * (1 - a) * b + s[j + 1, i + 1] * a * b)


@dataclass
class Pyramid:
    """Released levels of a grid hierarchy, coarse to fine; each resolution divides the next.

    ``edges`` (optional, the finest level only): the x and y cell edges as coordinates, for leaf grids
    whose cells are near-equal rather than equal (a single level); regular grids need none."""

    domain: Domain
    tables: list[np.ndarray]   # prefix tables, one per released level
    edges: tuple[np.ndarray, np.ndarray] | None = None

    @classmethod
    def from_grids(cls, domain: Domain, grids: list[np.ndarray],
                   edges: tuple[np.ndarray, np.ndarray] | None = None) -> Pyramid:
        for a, b in zip(grids, grids[1:]):
            if b.shape[0] % a.shape[0] or b.shape[1] % a.shape[1]:
                raise ValueError("each grid resolution must divide the next")
        if edges is not None and len(grids) != 1:
            raise ValueError("explicit cell edges are supported for a single grid level")
        return cls(domain, [prefix_2d(g) for g in grids], edges)

    def _units(self, rects: np.ndarray, s: np.ndarray):
        """Query coordinates in cell units of table ``s`` (piecewise linear between cell edges)."""
        ny, nx = s.shape[0] - 1, s.shape[1] - 1
        if self.edges is not None:
            ex, ey = self.edges
            ux, uy = np.arange(nx + 1.0), np.arange(ny + 1.0)
            return (np.interp(rects[:, 0], ex, ux), np.interp(rects[:, 2], ex, ux),
                    np.interp(rects[:, 1], ey, uy), np.interp(rects[:, 3], ey, uy))
        d = self.domain
        u0 = (rects[:, 0] - d.xmin) / d.width * nx
        u1 = (rects[:, 2] - d.xmin) / d.width * nx
        v0 = (rects[:, 1] - d.ymin) / d.height * ny
        v1 = (rects[:, 3] - d.ymin) / d.height * ny
        return u0, u1, v0, v1

    def answer(self, rects: np.ndarray) -> np.ndarray:
        """Canonical answers (= leaf-sum answers when only the finest level is given)."""
        total = np.zeros(rects.shape[0])
        prev: tuple | None = None
        for s in self.tables:
            ny, nx = s.shape[0] - 1, s.shape[1] - 1
            u0, u1, v0, v1 = self._units(rects, s)
            i0 = np.clip(np.ceil(u0 - _TOL), 0, nx).astype(np.int64)
            i1 = np.clip(np.floor(u1 + _TOL), 0, nx).astype(np.int64)
            j0 = np.clip(np.ceil(v0 - _TOL), 0, ny).astype(np.int64)
            j1 = np.clip(np.floor(v1 + _TOL), 0, ny).astype(np.int64)
            inside = _rect_sum(s, i0, i1, j0, j1)
            if prev is not None:
                (pi0, pi1, pj0, pj1), (pnx, pny) = prev
                rx, ry = nx // pnx, ny // pny
                inside -= _rect_sum(s, pi0 * rx, pi1 * rx, pj0 * ry, pj1 * ry)
            total += inside
            prev = ((np.maximum(i0, 0), np.maximum(i1, i0), np.maximum(j0, 0), np.maximum(j1, j0)), (nx, ny))
        s = self.tables[-1]
        u0, u1, v0, v1 = self._units(rects, s)
        whole = _bilinear(s, u1, v1) - _bilinear(s, u0, v1) - _bilinear(s, u1, v0) + _bilinear(s, u0, v0)
        assert prev is not None   # a pyramid has at least one level
        (i0, i1, j0, j1), _ = prev
        return total + whole - _rect_sum(s, i0, i1, j0, j1)
