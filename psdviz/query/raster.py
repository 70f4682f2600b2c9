"""Rasterising disjoint rectangles onto a pixel grid, for maps with too many cells to draw as shapes.

Each pixel takes the value of the cell containing its centre. A cell covers the pixel columns whose
centres lie in [x0, x1) (found by ``searchsorted``) and likewise for rows; painting is a 2-D
difference array (+v, -v, -v, +v at the corners) followed by two cumulative sums, so the cost is
O(cells + pixels) with no loop over cells. Cells must be disjoint (true for partitioning trees);
pixel centres may be unevenly spaced (e.g. latitudes spaced for Web Mercator).
"""
from __future__ import annotations

import numpy as np

from ..core.errors import ParameterError


def rasterize(rects: np.ndarray, values: np.ndarray, xs: np.ndarray, ys: np.ndarray,
              fill: float = np.nan) -> np.ndarray:
    """(len(ys), len(xs)) image: value of the rectangle containing each pixel centre (x, y).

    ``xs``/``ys`` are increasing pixel-centre coordinates; pixels outside every rectangle get ``fill``.
    A centre on a shared edge goes to the cell on its upper/right side (half-open cells), except on
    the domain's maximum edge, which is closed.
    """
    rects = np.asarray(rects, float)
    values = np.asarray(values, float)
    xs, ys = np.asarray(xs, float), np.asarray(ys, float)
    if rects.ndim != 2 or rects.shape[1] != 4 or values.shape != (rects.shape[0],):
        raise ParameterError("rects must be (k, 4) and values (k,)")
    if np.any(np.diff(xs) <= 0) or np.any(np.diff(ys) <= 0):
        raise ParameterError("pixel centres xs and ys must be strictly increasing")
    top_x, top_y = rects[:, 2].max(), rects[:, 3].max()
    i0 = np.searchsorted(xs, rects[:, 0], "left")
    i1 = np.where(rects[:, 2] >= top_x, np.searchsorted(xs, rects[:, 2], "right"),
                  np.searchsorted(xs, rects[:, 2], "left"))
    j0 = np.searchsorted(ys, rects[:, 1], "left")
    j1 = np.where(rects[:, 3] >= top_y, np.searchsorted(ys, rects[:, 3], "right"),
                  np.searchsorted(ys, rects[:, 3], "left"))
    keep = (i1 > i0) & (j1 > j0)
    i0, i1, j0, j1 = i0[keep], i1[keep], j0[keep], j1[keep]
    nx, ny = xs.size, ys.size
    # values and a coverage mask; the sums are exact when values are integers (e.g. node ids)
    diff = np.zeros((ny + 1, nx + 1))
    cover = np.zeros((ny + 1, nx + 1))
    for arr, v in ((diff, values[keep]), (cover, np.ones(int(keep.sum())))):
        np.add.at(arr, (j0, i0), v)
        np.add.at(arr, (j0, i1), -v)
        np.add.at(arr, (j1, i0), -v)
        np.add.at(arr, (j1, i1), v)
    img = diff.cumsum(0).cumsum(1)[:ny, :nx]
    covered = cover.cumsum(0).cumsum(1)[:ny, :nx] > 0.5
    return np.where(covered, img, fill)


def mercator_centres(lat0: float, lat1: float, n: int) -> np.ndarray:
    """n latitudes evenly spaced in Web Mercator y between lat0 and lat1 (clamped to +-85.0511)."""
    lim = 85.0511287798
    lat0, lat1 = max(lat0, -lim), min(lat1, lim)
    y0, y1 = (np.log(np.tan(np.pi / 4 + np.radians(v) / 2)) for v in (lat0, lat1))
    y = y0 + (np.arange(n) + 0.5) * (y1 - y0) / n
    return np.degrees(2 * np.arctan(np.exp(y)) - np.pi / 2)
