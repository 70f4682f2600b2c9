"""A Dask DataFrame as a source: the build runs on the cluster the frame belongs to.

Each pass maps one function over the partitions (:func:`psdviz.sources.partitions.partition_counts`:
grid keys by the in-memory code, then the method's keyer and a bincount) and Dask sums the
per-partition counts by group. Only group counts travel back to the client; the points stay on the
workers. Whatever ``dask.distributed`` client is active runs it (``Client("tcp://scheduler:8786")``
for a cluster, a ``LocalCluster`` on one machine); without one, Dask's local scheduler.
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pandas as pd

from ..core.domain import Domain
from ..core.grid import DEFAULT_RESOLUTION
from ..core.optional import require
from ..core.source import Keyer, KeySource
from .partitions import VALIDATION_COLUMNS, partition_counts, set_validation, start_source, validation


def read_frame(pattern, columns: list[str]):
    """A Dask DataFrame of the named columns of Parquet / CSV files (a path, glob or list)."""
    dd = require("dask.dataframe", "Dask frames")

    from .files import expand_paths, file_kind, literal
    files = [literal(f) for f in expand_paths(pattern)]       # each path read as that file, never re-globbed
    if file_kind(expand_paths(pattern)[0]) == "parquet":
        return dd.read_parquet(files, columns=columns)
    return dd.read_csv(files, usecols=columns)


@contextmanager
def on_cluster(scheduler: str, pattern, columns: list[str]) -> Iterator:
    """:func:`read_frame` on a dask.distributed cluster for as long as the caller reads it: ``scheduler`` its
    address (``tcp://host:8786``) or "local" (a LocalCluster on this machine, closed afterwards); the command
    line's ``--scheduler``."""
    distributed = require("distributed", "--scheduler")
    cluster = distributed.LocalCluster(dashboard_address=None) if scheduler == "local" else None
    try:
        with distributed.Client(cluster or scheduler):
            yield read_frame(pattern, columns)
    finally:
        if cluster is not None:
            cluster.close()


def is_dask_frame(obj) -> bool:
    return type(obj).__module__.startswith("dask") and hasattr(obj, "map_partitions")


class DaskSource(KeySource):
    """Points in a Dask DataFrame with columns ``lon`` and ``lat``."""

    lon: str       # the coordinate columns' names (set by start_source)
    lat: str

    def __init__(self, frame, domain: Domain, *, lon: str, lat: str, outside: str = "drop",
                 nonfinite: str = "error", resolution: int = DEFAULT_RESOLUTION):
        start_source(self, frame.columns, domain, lon=lon, lat=lat, outside=outside, nonfinite=nonfinite,
                     resolution=resolution, engine="Dask")
        self.frame = frame[[lon, lat]]
        meta = pd.DataFrame({k: pd.Series(dtype="int64") for k in VALIDATION_COLUMNS})
        v = self.frame.map_partitions(validation, lon, lat, domain, meta=meta).sum().compute()
        set_validation(self, *(int(v[c]) for c in VALIDATION_COLUMNS))

    def grouped(self, keyer: Keyer) -> tuple[np.ndarray, np.ndarray]:
        meta = pd.DataFrame({"g": pd.Series(dtype="int64"), "c": pd.Series(dtype="int64")})
        parts = self.frame.map_partitions(partition_counts, self.lon, self.lat, self.grid, self.outside,
                                          keyer, meta=meta)
        s = parts.groupby("g")["c"].sum().compute().sort_index()
        return s.index.to_numpy(np.int64), s.to_numpy(np.int64)
