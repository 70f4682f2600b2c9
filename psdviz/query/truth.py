"""Exact range counts over raw points (never part of a release; for teaching views and metrics).

Points are bucketed on a B x B grid whose edges are the quantiles of each coordinate (rank space;
the truth may use the data itself: nothing here is published), so every grid row and column holds
about n / B points whatever the skew. A query's buckets strictly inside it are counted from a 2-D
prefix table; the buckets on its boundary rows and columns are contiguous runs in a row-major
(resp. column-major) bucket order, and only their points (at most about 4 n / B) are tested one by
one (vectorised). Bucketing is monotone (searchsorted on the edges), which is all the method needs.
Rectangles are closed: a point on an edge counts.
"""
from __future__ import annotations

import numpy as np

from ..core.domain import as_points, validate_rects
from ..core.errors import InputDataError
from ..core.ragged import runs
from .pyramid import prefix_2d

CHUNK = 2048
MAX_BUCKETS = 1024   # per axis: prefix and run tables of ~1M entries each


class PointIndex:
    """Reusable exact counting index over a fixed set of points."""

    def __init__(self, points) -> None:
        xy = as_points(points)
        if not np.isfinite(xy).all():
            raise InputDataError("points contain NaN or inf; drop those rows first")
        self.xy = xy
        n = xy.shape[0]
        self.b = b = int(np.clip(np.sqrt(max(n, 1)), 1, MAX_BUCKETS))
        cut = (np.arange(1, b) * n) // b
        # b - 1 interior edges per axis at the coordinate quantiles; bucket = number of edges <= v
        self.edges = [np.sort(xy[:, a])[cut] for a in (0, 1)]
        self.bx, self.by = self._bucket(xy[:, 0], 0), self._bucket(xy[:, 1], 1)
        row_key = self.by * b + self.bx
        col_key = self.bx * b + self.by
        self.row_order = np.argsort(row_key)
        self.col_order = np.argsort(col_key)
        edges = np.arange(b * b + 1)
        self.row_start = np.searchsorted(row_key[self.row_order], edges)
        self.col_start = np.searchsorted(col_key[self.col_order], edges)
        # coordinates stored in both bucket orders: the boundary tests read contiguous runs
        self.sorted_xy = {"row": (xy[self.row_order, 0], xy[self.row_order, 1]),
                          "col": (xy[self.col_order, 0], xy[self.col_order, 1])}
        grid = np.bincount(row_key, minlength=b * b).reshape(b, b).astype(float)
        self.prefix = prefix_2d(grid)

    def _bucket(self, v: np.ndarray, axis: int) -> np.ndarray:
        return np.searchsorted(self.edges[axis], v, side="right").astype(np.int64)

    def count(self, rects) -> np.ndarray:
        rects = validate_rects(rects)
        out = np.zeros(rects.shape[0], dtype=np.int64)
        for s in range(0, rects.shape[0], CHUNK):
            out[s:s + CHUNK] = self._count(rects[s:s + CHUNK])
        return out

    def _segments(self, i0, i1, j0, j1):
        """Boundary runs: rows j0, j1 over [i0, i1] and columns i0, i1 over (j0, j1)."""
        b = self.b
        q = np.arange(i0.size)
        segs = []
        for j, use in ((j0, np.ones(q.size, bool)), (j1, j1 != j0)):
            segs.append((q[use], self.row_start[j[use] * b + i0[use]], self.row_start[j[use] * b + i1[use] + 1], "row"))
        for i, use in ((i0, j1 - j0 > 1), (i1, (i1 != i0) & (j1 - j0 > 1))):
            segs.append((q[use], self.col_start[i[use] * b + j0[use] + 1], self.col_start[i[use] * b + j1[use]], "col"))
        return segs

    def _count(self, rects: np.ndarray) -> np.ndarray:
        i0, i1 = self._bucket(rects[:, 0], 0), self._bucket(rects[:, 2], 0)
        j0, j1 = self._bucket(rects[:, 1], 1), self._bucket(rects[:, 3], 1)
        s = self.prefix
        a0, a1, c0, c1 = i0 + 1, np.maximum(i1, i0 + 1), j0 + 1, np.maximum(j1, j0 + 1)
        counts = (s[c1, a1] - s[c0, a1] - s[c1, a0] + s[c0, a0]).astype(np.int64)
        for q, lo, hi, order in self._segments(i0, i1, j0, j1):
            lens = hi - lo
            if not lens.sum():
                continue
            owner = np.repeat(q, lens)
            pos = runs(lo, lens)
            xs, ys = self.sorted_xy[order]
            px, py = xs[pos], ys[pos]
            ok = ((px >= rects[owner, 0]) & (px <= rects[owner, 2])
                  & (py >= rects[owner, 1]) & (py <= rects[owner, 3]))
            counts += np.bincount(owner[ok], minlength=rects.shape[0])
        # queries entirely outside the points' extent may still hit boundary buckets: the exact test handles it
        return counts


def true_answer(points, rects) -> np.ndarray:
    """Exact number of points inside each closed rectangle [xmin, ymin, xmax, ymax]."""
    return PointIndex(points).count(rects)
