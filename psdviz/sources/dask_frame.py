"""A Dask DataFrame as a source: the build runs on the cluster the frame belongs to.

Each pass maps one function over the partitions (:func:`psdviz.sources.partitions.partition_counts`:
grid keys by the in-memory code, then the method's keyer and a bincount) and Dask sums the
per-partition counts by group. Only group counts travel back to the client; the points stay on the
workers. Whatever ``dask.distributed`` client is active runs it (``Client("tcp://scheduler:8786")``
for a cluster, a ``LocalCluster`` on one machine); without one, Dask's local scheduler.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..core.domain import Domain, check_modes, nonfinite_error
from ..core.grid import DEFAULT_RESOLUTION, Grid, check_resolution
from ..core.source import Keyer, KeySource
from .partitions import partition_counts, validation


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
        v = self.frame.map_partitions(validation, lon, lat, domain, meta=meta).sum().compute()
        if int(v["text"]):
            raise ValueError(f"columns {lon!r} / {lat!r} hold values that are not numbers; fix or remove them")
        self.n_input, self.n_nonfinite, self.n_outside = int(v["rows"]), int(v["bad"]), int(v["out"])
        if self.n_nonfinite and nonfinite == "error":
            raise nonfinite_error(self.n_nonfinite, self.n_input)

    def grouped(self, keyer: Keyer) -> tuple[np.ndarray, np.ndarray]:
        meta = pd.DataFrame({"g": pd.Series(dtype="int64"), "c": pd.Series(dtype="int64")})
        parts = self.frame.map_partitions(partition_counts, self.lon, self.lat, self.grid, self.outside,
                                          keyer, meta=meta)
        s = parts.groupby("g")["c"].sum().compute().sort_index()
        return s.index.to_numpy(np.int64), s.to_numpy(np.int64)
