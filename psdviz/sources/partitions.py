"""What a cluster runs on one partition of points, for every cluster engine (Dask, Spark).

:func:`validation` counts a partition's rows, non-finite rows, rows outside the domain and rows whose
coordinates are not numbers; :func:`partition_counts` turns its points into grid keys with the
in-memory code (:func:`psdviz.core.domain.chunk_keys`: the same cell as in memory, bit for bit), runs
the method's keyer and counts the groups. Only these counts leave the partition.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..core.domain import Domain, chunk_keys
from ..core.grid import Grid
from ..core.source import Keyer, group_counts

VALIDATION_COLUMNS = ("rows", "bad", "out", "text")


def validation(part: pd.DataFrame, lon: str, lat: str, domain: Domain) -> pd.DataFrame:
    """One row: rows, non-finite rows, finite rows outside the domain, rows that are not numbers."""
    try:
        xy = part[[lon, lat]].to_numpy(dtype=float)
    except (TypeError, ValueError):
        return pd.DataFrame({"rows": [len(part)], "bad": [0], "out": [0], "text": [len(part)]})
    finite = np.isfinite(xy).all(axis=1)
    out = int((finite & ~domain.contains(xy)).sum())
    return pd.DataFrame({"rows": [len(part)], "bad": [int((~finite).sum())], "out": [out], "text": [0]})


def partition_counts(part: pd.DataFrame, lon: str, lat: str, grid: Grid, outside: str,
                     keyer: Keyer) -> pd.DataFrame:
    """Columns g (group id) and c (rows in the group) of one partition's used points."""
    kx, ky = chunk_keys(part[lon].to_numpy(dtype=float), part[lat].to_numpy(dtype=float), grid, outside)
    ok = kx >= 0
    ids = np.full(kx.size, -1, np.int64)
    if ok.any():
        ids[ok] = keyer(kx[ok], ky[ok], {})
    g, c = group_counts(ids)
    return pd.DataFrame({"g": g, "c": c})
