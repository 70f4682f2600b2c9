"""The layer as a raster on the public grid: which leaf region holds a grid cell's centre, for most
cells by two array look-ups instead of a point-in-polygon test.

Rule. The leaf regions are drawn once on a raster of the grid (raster cells are blocks of
2^(bits - r) grid cells per axis, about ``CELLS_ACROSS`` raster cells across the median leaf, fewer
for layers of very many leaves so the borders stay about ``BORDER_SAMPLES`` samples). A raster
cell touched by any leaf's border (an edge meets its closed box) is marked; the other raster cells form
connected pieces that no border crosses, so every point of a piece lies in the same leaf regions and
one test of one point settles the piece. Raster cells are grouped in tiles of 2^T x 2^T; a tile no
border touches is settled the same way at the tile level, so memory goes to tiles along borders only.
A grid cell whose raster cell is marked is located exactly (its centre against the candidate leaves,
as :func:`centre_rows`), so the answer is always that of the exact test.

Borders are found by sampling every edge at most one raster cell apart per axis: a closed cell the edge
meets is the cell of a sample or, where the edge passes from one sample's cell to the next diagonally,
one of the two cells beside that corner (both are marked); samples within 1e-9 of a cell side also mark
the cells across it, for rounding.

Privacy: the raster is a function of the public layer and the public grid only.
"""
from __future__ import annotations

import math

import numpy as np

from ..core.grid import Grid
from ..core.optional import require
from ..core.ragged import run_starts, runs
from ..query.overlap import prepared_copies

CELLS_ACROSS = 32      # raster cells across the median leaf region (borders then hold a few per cent)
BORDER_SAMPLES = 2_000_000  # fewer across for many leaves: about this many border samples in all
MIN_ACROSS = 4
TILE_BITS = 4          # tiles of 16 x 16 raster cells
MARKED = -2            # a raster cell touched by a border: located cell by cell
_SLOP = 1e-9           # samples this close to a cell side mark both sides (rounding)
_PLANE = np.zeros((3, 3, 3), bool)
_PLANE[1] = [[0, 1, 0], [1, 1, 1], [0, 1, 0]]      # label each tile on its own, 4-connected


def centre_rows(x: np.ndarray, y: np.ndarray, tree, candidates: np.ndarray) -> np.ndarray:
    """The row (among ``candidates``, indexed by ``tree``) of the region holding each point, or -1; a
    point on a shared border goes to the lower row (deterministic)."""
    shapely = require("shapely", "region layers")
    out = np.full(x.size, -1, dtype=np.int64)
    if not x.size:
        return out
    pt, geom = tree.query(shapely.points(x, y), predicate="intersects")
    if pt.size:
        order = np.lexsort((candidates[geom], pt))
        pt, geom = pt[order], geom[order]
        first = run_starts(pt)
        out[pt[first]] = candidates[geom[first]]
    return out


class LeafRaster:
    """The leaf regions ``geometry[candidates]`` drawn on ``grid`` (rule in the module docstring)."""

    def __init__(self, geometry: np.ndarray, candidates: np.ndarray, grid: Grid):
        shapely = require("shapely", "region layers")
        self.grid, self.candidates = grid, np.asarray(candidates, np.int64)
        self.geoms = prepared_copies(geometry[self.candidates])   # its own: others may hold the layer
        self.tree = shapely.STRtree(self.geoms)
        self.rx, self.ry = _raster_bits(self.geoms, grid)
        self._frame(shapely.total_bounds(self.geoms))
        u, v = _border_samples(self.geoms, grid, self.rx, self.ry)
        self._settle(u, v)

    # ---- construction ------------------------------------------------------------------------------
    def _frame(self, bounds) -> None:
        """The tile range covering the layer's bounds (raster cells outside it hold no region); tile
        arrays get a border of one empty tile, so a look-up clips instead of testing."""
        d, t = self.grid.domain, TILE_BITS
        nx, ny = 1 << self.rx, 1 << self.ry
        lo_x, hi_x = _cell(bounds[0], d.xmin, d.width, nx), _cell(bounds[2], d.xmin, d.width, nx)
        lo_y, hi_y = _cell(bounds[1], d.ymin, d.height, ny), _cell(bounds[3], d.ymin, d.height, ny)
        self.tx0, self.ty0 = (lo_x >> t) - 1, (lo_y >> t) - 1
        self.ntx, self.nty = (hi_x >> t) - self.tx0 + 2, (hi_y >> t) - self.ty0 + 2

    def _settle(self, u: np.ndarray, v: np.ndarray) -> None:
        """Mark border cells, settle unmarked tiles and unmarked pieces of marked tiles by one test each."""
        t, side = TILE_BITS, 1 << TILE_BITS
        tx, ty = (u >> t) - self.tx0, (v >> t) - self.ty0
        touched = np.zeros((self.nty, self.ntx), bool)
        touched[ty, tx] = True
        self.tile_id = np.full(touched.shape, -1, np.int64)
        self.tile_id[touched] = np.arange(int(touched.sum()))
        self.tile_row = np.full(touched.shape, MARKED, np.int32)
        from scipy import ndimage  # a core dependency, imported when a layer is rasterised
        lab, _ = ndimage.label(~touched)
        ys, xs = _one_of_each(lab)
        rows = self._test((xs + self.tx0 + 0.5) * side, (ys + self.ty0 + 0.5) * side)
        self.tile_row[~touched] = rows[lab[~touched] - 1]
        self.tile_row[[0, -1], :] = self.tile_row[:, [0, -1]] = -1      # the empty border
        marked = np.zeros((int(touched.sum()), side, side), bool)
        marked[self.tile_id[ty, tx], v & (side - 1), u & (side - 1)] = True
        lab, _ = ndimage.label(~marked, structure=_PLANE)
        ks, ys, xs = _one_of_each(lab)
        tile_xy = np.argwhere(touched)                       # (ty, tx) of tile k, in tile_id order
        rows = self._test((tile_xy[ks, 1] + self.tx0) * side + xs + 0.5,
                          (tile_xy[ks, 0] + self.ty0) * side + ys + 0.5)
        self.cells = np.r_[MARKED, rows].astype(np.int32)[lab]
        self._tile_candidates(tile_xy)

    def _tile_candidates(self, tile_xy: np.ndarray) -> None:
        """For each marked tile, the leaves whose bounding box meets it (CSR, in row order): the only
        regions a centre in that tile can lie in."""
        shapely = require("shapely", "region layers")
        d, side = self.grid.domain, 1 << TILE_BITS
        w, h = d.width / (1 << self.rx) * side, d.height / (1 << self.ry) * side
        x0, y0 = d.xmin + (tile_xy[:, 1] + self.tx0) * w, d.ymin + (tile_xy[:, 0] + self.ty0) * h
        tile, geom = self.tree.query(shapely.box(x0, y0, x0 + w, y0 + h))
        order = np.lexsort((geom, tile))
        self.cand = geom[order]
        self.cand_ptr = np.r_[0, np.cumsum(np.bincount(tile, minlength=tile_xy.shape[0]))]

    def _test(self, u: np.ndarray, v: np.ndarray) -> np.ndarray:
        """Exact rows of points given in raster-cell units."""
        d = self.grid.domain
        return centre_rows(d.xmin + u * d.width / (1 << self.rx), d.ymin + v * d.height / (1 << self.ry),
                           self.tree, self.candidates)

    # ---- look-up -----------------------------------------------------------------------------------
    @property
    def nbytes(self) -> int:
        return int(self.cells.nbytes + self.tile_id.nbytes + self.tile_row.nbytes + self.cand.nbytes)

    def _tiles(self, kx: np.ndarray, ky: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Raster cells (cx, cy) of grid cells and the flat index of their tile (clipped to the border)."""
        bits, t = self.grid.bits, TILE_BITS
        cx, cy = kx >> (bits - self.rx), ky >> (bits - self.ry)
        tx = np.clip((cx >> t) - self.tx0, 0, self.ntx - 1)
        ty = np.clip((cy >> t) - self.ty0, 0, self.nty - 1)
        return cx, cy, ty * self.ntx + tx

    def rows(self, kx: np.ndarray, ky: np.ndarray) -> np.ndarray:
        """For grid cells (kx, ky), the row of the leaf region holding the cell's centre, or -1."""
        side = (1 << TILE_BITS) - 1
        cx, cy, flat = self._tiles(kx, ky)
        row = self.tile_row.ravel()[flat]
        j = np.flatnonzero(row == MARKED)
        row[j] = self.cells[self.tile_id.ravel()[flat[j]], cy[j] & side, cx[j] & side]
        out = row.astype(np.int64)
        self._locate(kx, ky, out)
        return out

    def _locate(self, kx: np.ndarray, ky: np.ndarray, out: np.ndarray) -> None:
        """Cells in marked raster cells: each distinct cell's centre tested against the leaves whose box
        meets its tile (prepared polygons; the lowest row holding it, as :func:`centre_rows`)."""
        shapely = require("shapely", "region layers")
        at = np.flatnonzero(out == MARKED)
        if not at.size:
            return
        g = self.grid
        code = (ky[at] << g.bits) | kx[at]
        uniq, inv = np.unique(code, return_inverse=True)
        ux, uy = uniq & ((1 << g.bits) - 1), uniq >> g.bits
        tile = self.tile_id.ravel()[self._tiles(ux, uy)[2]]
        lo, n = self.cand_ptr[tile], self.cand_ptr[tile + 1] - self.cand_ptr[tile]
        pt = np.repeat(np.arange(uniq.size), n)
        geom = self.cand[runs(lo, n)]
        d = g.domain
        hit = shapely.intersects_xy(self.geoms[geom], d.xmin + (ux[pt] + 0.5) * d.width / g.size,
                                    d.ymin + (uy[pt] + 0.5) * d.height / g.size)
        pt, geom = pt[hit], geom[hit]
        first = run_starts(pt)               # candidates are in row order per tile (none hit: empty)
        got = np.full(uniq.size, -1, np.int64)
        got[pt[first]] = self.candidates[geom[first]]
        out[at] = got[inv]


def _one_of_each(lab: np.ndarray) -> tuple[np.ndarray, ...]:
    """Index (per axis) of one element of each label 1..max of a labelled array (whichever element a
    repeated assignment keeps: each written value is an element of that label)."""
    flat = lab.ravel()
    pos = np.zeros(int(flat.max()) + 1 if flat.size else 1, np.int64)
    pos[flat] = np.arange(flat.size)
    return np.unravel_index(pos[1:], lab.shape)


def _cell(value: float, lo: float, length: float, n: int) -> int:
    return int(min(max(math.floor((value - lo) / length * n), 0), n - 1))


def _raster_bits(geoms: np.ndarray, grid: Grid) -> tuple[int, int]:
    """Bits per axis of the raster: cells about 1/CELLS_ACROSS of the median leaf's side (fewer, down to
    MIN_ACROSS, when the leaves' borders would take more than about BORDER_SAMPLES samples), no finer than
    the grid and no coarser than one tile over the domain."""
    shapely = require("shapely", "region layers")
    area = shapely.area(geoms)
    across = min(CELLS_ACROSS, max(MIN_ACROSS, BORDER_SAMPLES // (4 * max(geoms.size, 1))))
    side = math.sqrt(float(np.median(area[area > 0]))) / across if np.any(area > 0) else math.inf
    d = grid.domain

    def bits(length: float) -> int:
        want = math.ceil(math.log2(length / side)) if side < length else 0
        return int(min(max(want, TILE_BITS), grid.bits))
    return bits(d.width), bits(d.height)


def _border_samples(geoms: np.ndarray, grid: Grid, rx: int, ry: int) -> tuple[np.ndarray, np.ndarray]:
    """Raster cells (u, v) met by the leaves' borders: samples at most one cell apart along every edge
    (the piece between two samples lies in their cells or, on a diagonal step, also in the two cells
    beside the corner), and both sides of a sample within rounding of a cell side."""
    shapely = require("shapely", "region layers")
    d = grid.domain
    xy, ring = shapely.get_coordinates(shapely.get_rings(shapely.get_parts(geoms)), return_index=True)
    u = (xy[:, 0] - d.xmin) * ((1 << rx) / d.width)
    v = (xy[:, 1] - d.ymin) * ((1 << ry) / d.height)
    seg = np.flatnonzero(ring[1:] == ring[:-1])
    du, dv = u[seg + 1] - u[seg], v[seg + 1] - v[seg]
    n = (np.maximum(np.ceil(np.maximum(np.abs(du), np.abs(dv))), 1) + 1).astype(np.int64)
    which = np.repeat(np.arange(seg.size), n)
    f = (np.arange(which.size) - np.repeat(np.cumsum(n) - n, n)) / (n[which] - 1)
    su, sv = u[seg][which] + f * du[which], v[seg][which] + f * dv[which]
    iu, iv = np.floor(su).astype(np.int64), np.floor(sv).astype(np.int64)
    nxt = np.flatnonzero((which[1:] == which[:-1]) & (iu[1:] != iu[:-1]) & (iv[1:] != iv[:-1]))
    lo_u, hi_u = np.floor(su - _SLOP).astype(np.int64), np.floor(su + _SLOP).astype(np.int64)
    lo_v, hi_v = np.floor(sv - _SLOP).astype(np.int64), np.floor(sv + _SLOP).astype(np.int64)
    near = np.flatnonzero((lo_u != hi_u) | (lo_v != hi_v))  # on a cell side, up to rounding: both sides
    cu = np.concatenate([iu, iu[nxt], iu[nxt + 1], lo_u[near], lo_u[near], hi_u[near], hi_u[near]])
    cv = np.concatenate([iv, iv[nxt + 1], iv[nxt], lo_v[near], hi_v[near], lo_v[near], hi_v[near]])
    ok = (cu >= 0) & (cu < (1 << rx)) & (cv >= 0) & (cv < (1 << ry))
    return cu[ok], cv[ok]
