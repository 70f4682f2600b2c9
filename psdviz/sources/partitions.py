"""What a cluster runs on one partition of points, for every cluster engine (Dask, Spark).

:func:`validation` counts a partition's rows, non-finite rows, rows outside the domain and rows whose
coordinates are not numbers; :func:`partition_counts` turns its points into grid keys with the
in-memory code (:func:`psdviz.core.domain.chunk_keys`: the same cell as in memory, bit for bit), runs
the method's keyer and counts the groups. Only these counts leave the partition.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..core.domain import Domain, check_modes, chunk_keys, nonfinite_error
from ..core.errors import InputDataError
from ..core.grid import Grid, check_resolution
from ..core.source import Keyer, dense_ids, group_counts

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
        ids[ok] = dense_ids(keyer(kx[ok], ky[ok], {}))
    g, c = group_counts(ids)
    return pd.DataFrame({"g": g, "c": c})


def start_source(source, columns, domain: Domain, *, lon: str, lat: str, outside: str, nonfinite: str,
                 resolution: int, engine: str) -> None:
    """The checks and settings a cluster source starts with: the modes, the coordinate columns (named
    in the error with the ``engine``'s frame), the public grid."""
    check_modes(domain, outside, nonfinite)
    for name, what in ((lon, "lon"), (lat, "lat")):
        if name not in columns:
            raise InputDataError(f"column {name!r} (given as {what}) is not in the {engine} DataFrame; "
                                 f"its columns are {list(columns)}")
    source.lon, source.lat = lon, lat
    source.grid = Grid(domain, check_resolution(resolution))
    source.outside, source.nonfinite = outside, nonfinite


def set_validation(source, rows: int, bad: int, out: int, text: int) -> None:
    """Keep the summed validation counts on ``source``; text coordinates, and non-finite rows under
    "error", are refused."""
    if text:
        raise InputDataError(f"columns {source.lon!r} / {source.lat!r} hold values that are not numbers; "
                             "fix or remove them")
    source.n_input, source.n_nonfinite, source.n_outside = rows, bad, out
    if bad and source.nonfinite == "error":
        raise nonfinite_error(bad, rows)
