"""Builders of sparse tables: a contingency table of two categorical columns, a fine point grid.

ICDT'12 section 1: a contingency table over attributes A1, A2 has |A1| * |A2| cells, and real data
fill only a small fraction (the density). Both builders count with sort-based numpy operations
(no per-row loops) and never allocate the m cells.

Privacy reading: the *domain* (the list of categories, the grid over a public Domain) is public
input (docs/design.md). For a contingency table the caller should declare the categories
(``row_values`` / ``col_values``); if they are omitted the observed categories are used and the
layout says so (``categories: "observed in the data"``), because the set of observed values is
itself data-dependent. One input row is one individual, so the cell counts have sensitivity 1.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..core.domain import Domain, prepare_points
from ..core.errors import InputDataError, ParameterError
from ..core.validation import check_int
from .table import SparseTable, make_table

GRID_MAX = 1 << 20  # cells per axis


def _codes(column, declared, name: str) -> tuple[np.ndarray, list, bool]:
    """Integer codes of a categorical column against declared (or observed) categories."""
    values = pd.Series(column).reset_index(drop=True)
    if values.isna().any():
        raise InputDataError(f"{name} contains {int(values.isna().sum())} missing values; drop or fill them first")
    if declared is None:
        codes, cats = pd.factorize(values, sort=True)
        return codes.astype(np.int64), list(cats), True
    cats = pd.Index(list(declared))
    if cats.has_duplicates:
        raise InputDataError(f"{name}_values contains duplicates")
    codes = cats.get_indexer(values)
    if (codes < 0).any():
        raise InputDataError(f"{int((codes < 0).sum())} rows of {name} are not among the declared {name}_values")
    observed = False
    return codes.astype(np.int64), list(cats), observed


def contingency_table(rows, cols, row_values=None, col_values=None) -> SparseTable:
    """Counts of (row, col) pairs over the full product of the categories (m = |rows| * |cols|).

    Cell index = row_code * n_cols + col_code (row-major).
    """
    if len(rows) != len(cols):
        raise InputDataError(f"rows and cols must have the same length (got {len(rows)} and {len(cols)})")
    if len(rows) == 0:
        raise InputDataError("the table is empty: rows and cols have no entries")
    r, rcats, r_obs = _codes(rows, row_values, "row")
    c, ccats, c_obs = _codes(cols, col_values, "col")
    ncol = len(ccats)
    cell = r * ncol + c
    idx, cnt = np.unique(cell, return_counts=True)
    layout = {"kind": "contingency", "rows": rcats, "cols": ccats, "shape": (len(rcats), ncol),
              "categories": "observed in the data" if (r_obs or c_obs) else "declared public"}
    return make_table(idx, cnt, len(rcats) * ncol, layout)


def grid_table(points, domain: Domain, nx: int = 4096, ny: int = 4096, outside: str = "drop") -> SparseTable:
    """Counts of points on an nx x ny grid over a public Domain (cell = iy * nx + ix, row-major).

    Points on the upper boundary go to the last cell; points outside are dropped or clipped by
    :func:`psdviz.prepare_points`, and the layout reports how many.
    """
    nx = check_int(nx, "nx", 1, GRID_MAX)
    ny = check_int(ny, "ny", 1, GRID_MAX)
    ps = prepare_points(points, domain, outside=outside)
    ix = np.floor((ps.xy[:, 0] - domain.xmin) / domain.width * nx).astype(np.int64)
    iy = np.floor((ps.xy[:, 1] - domain.ymin) / domain.height * ny).astype(np.int64)
    np.clip(ix, 0, nx - 1, out=ix)
    np.clip(iy, 0, ny - 1, out=iy)
    idx, cnt = np.unique(iy * nx + ix, return_counts=True)
    layout = {"kind": "grid", "domain": domain, "nx": nx, "ny": ny, "points": ps.report()}
    return make_table(idx, cnt, nx * ny, layout)


def grid_cells(layout: dict, indices) -> np.ndarray:
    """Rectangles [xmin, ymin, xmax, ymax] of grid cells (for drawing a summary on the map)."""
    if layout.get("kind") != "grid":
        raise ParameterError("grid_cells needs a table built by grid_table (layout kind 'grid')")
    dom: Domain = layout["domain"]
    nx, ny = layout["nx"], layout["ny"]
    idx = np.asarray(indices, dtype=np.int64)
    ix, iy = idx % nx, idx // nx
    w, h = dom.width / nx, dom.height / ny
    x0, y0 = dom.xmin + ix * w, dom.ymin + iy * h
    return np.column_stack([x0, y0, x0 + w, y0 + h])
