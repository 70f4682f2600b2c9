"""Which region each occupied grid cell counts in, and how much of a cell a region covers.

Points reach regions through the public grid: one grouped pass gives the occupied cells of the
release resolution with their counts (the same pass for arrays, DuckDB files and Dask frames, so
every source gives the same release); each cell goes to the leaf region holding its centre. A point
is therefore placed by its cell's centre: one lying within half a cell diagonal of a border may be
counted in the neighbouring region (:func:`misplacement`). The cost grows with occupied cells, not
points.
"""
from __future__ import annotations

import math

import numpy as np

from ..core.grid import Grid


def leaf_rows(parent: np.ndarray) -> np.ndarray:
    """Rows of the regions that have no child region."""
    has_child = np.zeros(parent.size, dtype=bool)
    has_child[parent[parent >= 0]] = True
    return np.flatnonzero(~has_child)


def cells_to_regions(keys: np.ndarray, grid: Grid, geometry: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """For each occupied cell (kx, ky), the row (among ``candidates``) of the region holding its centre,
    or -1. A centre exactly on a shared border goes to the lower row (deterministic)."""
    import shapely
    d = grid.domain
    cx = d.xmin + (keys[:, 0] + 0.5) * d.width / grid.size
    cy = d.ymin + (keys[:, 1] + 0.5) * d.height / grid.size
    tree = shapely.STRtree(geometry[candidates])
    pt, geom = tree.query(shapely.points(cx, cy), predicate="intersects")
    out = np.full(keys.shape[0], -1, dtype=np.int64)
    if pt.size:
        order = np.lexsort((candidates[geom], pt))
        pt, geom = pt[order], geom[order]
        first = np.r_[True, pt[1:] != pt[:-1]]
        out[pt[first]] = candidates[geom[first]]
    return out


def misplacement(grid: Grid) -> float:
    """The farthest a point can lie from the centre of its cell: half the cell's diagonal, in the
    domain's units (a point nearer a border than this may be counted across it)."""
    d = grid.domain
    return 0.5 * math.hypot(d.width / grid.size, d.height / grid.size)
