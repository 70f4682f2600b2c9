"""Keyers for the passes that count points in a fixed grid (see :mod:`psdviz.core.source`).

A keyer maps the grid keys (kx, ky) of a chunk of points to group ids; these are module-level
functions bound with ``functools.partial`` so Dask can ship them to its workers.
"""
from __future__ import annotations

from functools import partial

import numpy as np

from . import morton
from ..core.grid import even_part


def _even_cells(kx, ky, memo, size: int, m: int) -> np.ndarray:
    return even_part(ky, 0, size, m) * m + even_part(kx, 0, size, m)


def even_cells(size: int, m: int):
    """Row-major cell (iy * m + ix) of an m x m grid of near-equal cells over 0..size (UG, AG level 1,
    kd-cell): ``m * m`` groups."""
    return partial(_even_cells, size=int(size), m=int(m))


def _morton_cells(kx, ky, memo, shift: int) -> np.ndarray:
    return morton.encode(kx >> shift, ky >> shift)


def morton_cells(bits: int, height: int):
    """Morton code of the cell of the 2^height x 2^height grid (the quadtree's leaves): 4^height groups."""
    return partial(_morton_cells, shift=int(bits) - int(height))
