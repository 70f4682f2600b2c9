"""Keyers for the passes that count points in a fixed grid (see :mod:`psdviz.core.source`).

A keyer maps the grid keys (kx, ky) of a chunk of points to group ids. The keyers here are
:class:`CoarseKeyer`: a *coarse key* that is plain integer arithmetic, given twice, as numpy and as
the same SQL expression, then a ``post`` map applied to the distinct coarse keys only (Morton order,
a tree level's node index). A SQL engine (DuckDB) then groups by the expression itself, with no
Python in the scan, and ``post`` runs on the few distinct groups; in memory and on Dask the keyer is
simply ``post(coarse(kx, ky))``. The identical-release tests hold the two forms to the same counts.
Fields are module-level functions or partials, so Dask can ship a keyer to its workers.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import numpy as np

from . import morton


@dataclass(frozen=True)
class CoarseKeyer:
    """Group ids ``post(coarse(kx, ky))``, with ``sql`` the SQL text of ``coarse`` over columns kx, ky."""

    coarse: Callable[[np.ndarray, np.ndarray], np.ndarray]
    sql: str
    post: Callable[[np.ndarray], np.ndarray] | None = None

    def apply_post(self, coarse: np.ndarray) -> np.ndarray:
        return coarse if self.post is None else self.post(coarse)

    def __call__(self, kx: np.ndarray, ky: np.ndarray, memo: dict) -> np.ndarray:
        return self.apply_post(self.coarse(kx, ky))


def _even(q, size: int, m: int):
    """:func:`psdviz.core.grid.even_part` over [0, size): floor(((q + 1) m - 1) / size)."""
    return ((q + 1) * m - 1) // size


def _even_sql(col: str, size: int, m: int) -> str:
    return f"((({col} + 1) * {m} - 1) // {size})"


def _even_cells(kx, ky, size: int, m: int) -> np.ndarray:
    return _even(ky, size, m) * m + _even(kx, size, m)


def even_cells(size: int, m: int) -> CoarseKeyer:
    """Row-major cell (iy * m + ix) of an m x m grid of near-equal cells over 0..size (UG, AG level 1,
    kd-cell): ``m * m`` groups."""
    size, m = int(size), int(m)
    return CoarseKeyer(partial(_even_cells, size=size, m=m),
                       f"({_even_sql('ky', size, m)} * {m} + {_even_sql('kx', size, m)})")


def _corner_id(kx, ky, size: int, m: int):
    """m * m + (corner 0..3: +1 on the right edge, +2 on the top edge) for keys in a corner cell of the
    size x size grid, else -1."""
    right, top = kx == size - 1, ky == size - 1
    corner = ((kx == 0) | right) & ((ky == 0) | top)
    return np.where(corner, m * m + right + 2 * top, -1)


def _cells_and_corners(kx, ky, size: int, m: int) -> np.ndarray:
    corner = _corner_id(kx, ky, size, m)
    return np.where(corner >= 0, corner, _even_cells(kx, ky, size, m))


def cells_and_corners(size: int, m: int) -> CoarseKeyer:
    """:func:`even_cells` except that a point in one of the four corner cells of the *full* size x size
    grid gets its own group m * m + c (c = 0 lower-left, 1 lower-right, 2 upper-left, 3 upper-right):
    ``m * m + 4`` groups, one pass for a coarse histogram and the finest corner counts (``auto``'s
    facts; :func:`split_cells_and_corners` reads them back)."""
    size, m = int(size), int(m)
    last = size - 1
    sql = (f"(CASE WHEN (kx = 0 OR kx = {last}) AND (ky = 0 OR ky = {last}) "
           f"THEN {m * m} + (CASE WHEN kx = {last} THEN 1 ELSE 0 END) + (CASE WHEN ky = {last} THEN 2 ELSE 0 END) "
           f"ELSE {even_cells(size, m).sql} END)")
    return CoarseKeyer(partial(_cells_and_corners, size=size, m=m), sql)


def split_cells_and_corners(counts: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray]:
    """The counts of :func:`cells_and_corners` as (the m x m grid's counts, the four corner counts): each
    corner group is added back to the coarse cell that holds it (0, m - 1, m (m - 1), m * m - 1)."""
    coarse, corners = counts[:m * m].copy(), counts[m * m:m * m + 4]
    np.add.at(coarse, [0, m - 1, m * (m - 1), m * m - 1], corners)
    return coarse, corners


def _row_major(kx, ky, shift: int, height: int) -> np.ndarray:
    return ((ky >> shift) << height) | (kx >> shift)


def row_major_cells(bits: int, height: int) -> tuple[Callable, str]:
    """The cell of the 2^height x 2^height grid, row-major, as numpy and SQL (height <= bits)."""
    shift = int(bits) - int(height)
    return (partial(_row_major, shift=shift, height=int(height)),
            f"(((ky >> {shift}) << {int(height)}) | (kx >> {shift}))")


def _to_morton(cell: np.ndarray, height: int) -> np.ndarray:
    return morton.encode(cell & ((1 << height) - 1), cell >> height)


def morton_cells(bits: int, height: int) -> CoarseKeyer:
    """Morton code of the cell of the 2^height x 2^height grid (the quadtree's leaves): 4^height groups."""
    coarse, sql = row_major_cells(bits, height)
    return CoarseKeyer(coarse, sql, partial(_to_morton, height=int(height)))
