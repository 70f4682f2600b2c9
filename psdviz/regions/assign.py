"""Which region each occupied grid cell counts in, and how much of a cell a region covers.

Points reach regions through the public grid: one grouped pass gives the occupied cells of the
release resolution with their counts (the same pass for arrays, DuckDB files and Dask frames, so
every source gives the same release); each cell goes to the leaf region holding its centre. A point
is therefore placed by its cell's centre: one lying within half a cell diagonal of a border may be
counted in the neighbouring region (:func:`misplacement`). The cost grows with occupied cells, not
points, and most cells are located by a raster of the layer (:mod:`.raster`), the rest (cells in raster
cells that a border crosses) by a point-in-polygon test of their centre.
"""
from __future__ import annotations

import math

import numpy as np

from ..core.cells import CellTable
from ..core.domain import PointSet
from ..core.grid import Grid
from ..core.optional import require
from ..core.source import KeySource, merge_counts
from .raster import LeafRaster, centre_rows


def leaf_rows(parent: np.ndarray) -> np.ndarray:
    """Rows of the regions that have no child region."""
    has_child = np.zeros(parent.size, dtype=bool)
    has_child[parent[parent >= 0]] = True
    return np.flatnonzero(~has_child)


def cells_to_regions(keys: np.ndarray, grid: Grid, geometry: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """For each occupied cell (kx, ky), the row (among ``candidates``) of the region holding its centre,
    or -1, tested cell by cell (the rule :class:`~.raster.LeafRaster` answers faster). A centre exactly on
    a shared border goes to the lower row (deterministic)."""
    shapely = require("shapely", "region layers")
    d = grid.domain
    cx = d.xmin + (keys[:, 0] + 0.5) * d.width / grid.size
    cy = d.ymin + (keys[:, 1] + 0.5) * d.height / grid.size
    return centre_rows(cx, cy, shapely.STRtree(geometry[candidates]), np.asarray(candidates, np.int64))


def leaf_counts(source: KeySource, raster: LeafRaster) -> tuple[np.ndarray, np.ndarray, int]:
    """Rows of the leaves holding points, their counts, and the points in no leaf, from one grouped pass: in
    memory (points or a held cell table) the raster keys the pass itself; other sources group their
    occupied cells first, which the raster then maps (the same counts: a cell's row is a function of
    the cell)."""
    if isinstance(source, (PointSet, CellTable)):
        rows, cnt = source.grouped(lambda kx, ky, memo: raster.rows(kx, ky))
        return rows, cnt, int(source.n - cnt.sum())
    keys, cnt = source.cells()
    row = raster.rows(keys[:, 0], keys[:, 1])
    rows, per = merge_counts([(row[row >= 0], cnt[row >= 0])])
    return rows, per, int(cnt[row < 0].sum())


def misplacement(grid: Grid) -> float:
    """The farthest a point can lie from the centre of its cell: half the cell's diagonal, in the
    domain's units (a point nearer a border than this may be counted across it)."""
    d = grid.domain
    return 0.5 * math.hypot(d.width / grid.size, d.height / grid.size)
