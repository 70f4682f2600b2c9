"""A Dask DataFrame as a source: the build runs on the cluster the frame belongs to.

Each pass maps one function over the partitions (grid keys by the in-memory code,
:func:`psdviz.core.domain.chunk_keys`, then the method's keyer and a bincount) and Dask sums the
per-partition counts by group. Only group counts travel back to the client; the points stay on the
workers. Whatever ``dask.distributed`` client is active runs it (``Client("tcp://scheduler:8786")``
for a cluster, a ``LocalCluster`` on one machine); without one, Dask's local scheduler.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..core.domain import Domain, check_modes, chunk_keys, nonfinite_error
from ..core.grid import DEFAULT_RESOLUTION, Grid, check_resolution
from ..core.source import Keyer, KeySource, group_counts


def read_frame(pattern, columns: list[str]):
    """A Dask DataFrame of the named columns of Parquet / CSV files (a path, glob or list)."""
    import dask.dataframe as dd

    from .files import expand_paths, file_kind
    files = expand_paths(pattern)
    if file_kind(files[0]) == "parquet":
        return dd.read_parquet(files, columns=columns)
    return dd.read_csv(files, usecols=columns)


def is_dask_frame(obj) -> bool:
    return type(obj).__module__.startswith("dask") and hasattr(obj, "map_partitions")


def _validation(part: pd.DataFrame, lon: str, lat: str, domain: Domain) -> pd.DataFrame:
    try:
        xy = part[[lon, lat]].to_numpy(dtype=float)
    except (TypeError, ValueError):
        return pd.DataFrame({"rows": [len(part)], "bad": [0], "out": [0], "text": [len(part)]})
    finite = np.isfinite(xy).all(axis=1)
    out = int((finite & ~domain.contains(xy)).sum())
    return pd.DataFrame({"rows": [len(part)], "bad": [int((~finite).sum())], "out": [out], "text": [0]})


def _partition_counts(part: pd.DataFrame, lon: str, lat: str, grid: Grid, outside: str,
                      keyer: Keyer) -> pd.DataFrame:
    kx, ky = chunk_keys(part[lon].to_numpy(dtype=float), part[lat].to_numpy(dtype=float), grid, outside)
    ok = kx >= 0
    ids = np.full(kx.size, -1, np.int64)
    if ok.any():
        ids[ok] = keyer(kx[ok], ky[ok], {})
    g, c = group_counts(ids)
    return pd.DataFrame({"g": g, "c": c})


class DaskSource(KeySource):
    """Points in a Dask DataFrame with columns ``lon`` and ``lat``."""

    def __init__(self, frame, domain: Domain, *, lon: str, lat: str, outside: str = "drop",
                 nonfinite: str = "error", resolution: int = DEFAULT_RESOLUTION):
        check_modes(domain, outside, nonfinite)
        for name, what in ((lon, "lon"), (lat, "lat")):
            if name not in frame.columns:
                raise ValueError(f"column {name!r} (given as {what}) is not in the Dask DataFrame; "
                                 f"its columns are {list(frame.columns)}")
        self.frame, self.lon, self.lat = frame[[lon, lat]], lon, lat
        self.grid = Grid(domain, check_resolution(resolution))
        self.outside, self.nonfinite = outside, nonfinite
        meta = pd.DataFrame({k: pd.Series(dtype="int64") for k in ("rows", "bad", "out", "text")})
        v = self.frame.map_partitions(_validation, lon, lat, domain, meta=meta).sum().compute()
        if int(v["text"]):
            raise ValueError(f"columns {lon!r} / {lat!r} hold values that are not numbers; fix or remove them")
        self.n_input, self.n_nonfinite, self.n_outside = int(v["rows"]), int(v["bad"]), int(v["out"])
        if self.n_nonfinite and nonfinite == "error":
            raise nonfinite_error(self.n_nonfinite, self.n_input)

    def grouped(self, keyer: Keyer) -> tuple[np.ndarray, np.ndarray]:
        meta = pd.DataFrame({"g": pd.Series(dtype="int64"), "c": pd.Series(dtype="int64")})
        parts = self.frame.map_partitions(_partition_counts, self.lon, self.lat, self.grid, self.outside,
                                          keyer, meta=meta)
        s = parts.groupby("g")["c"].sum().compute().sort_index()
        return s.index.to_numpy(np.int64), s.to_numpy(np.int64)
