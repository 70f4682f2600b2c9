"""Which source an input needs: arrays and (Geo)DataFrames stay in memory; a path, a glob or a list
of paths goes to DuckDB; a Dask DataFrame to Dask; a Spark DataFrame to Spark."""
from __future__ import annotations

from pathlib import Path

from ..core.domain import Domain
from ..core.errors import ParameterError
from ..core.source import KeySource


def is_table_source(data) -> bool:
    """True for inputs read by an engine rather than held in memory."""
    from .dask_frame import is_dask_frame
    from .spark_frame import is_spark_frame
    if isinstance(data, (str, Path)):
        return True
    if isinstance(data, (list, tuple)) and data and all(isinstance(d, (str, Path)) for d in data):
        return True
    return is_dask_frame(data) or is_spark_frame(data)


def open_source(data, domain: Domain, *, lon: str | None, lat: str | None, outside: str, nonfinite: str,
                resolution: int, memory_limit: str | None = None) -> KeySource:
    """A :class:`KeySource` for a file path / glob / list of paths (DuckDB), a Dask or a Spark DataFrame."""
    from .dask_frame import DaskSource, is_dask_frame
    if not lon or not lat:
        raise ParameterError("reading from files or a Dask DataFrame needs the coordinate column names: "
                             "pass lon='...' and lat='...'")
    if is_dask_frame(data):
        return DaskSource(data, domain, lon=lon, lat=lat, outside=outside, nonfinite=nonfinite,
                          resolution=resolution)
    from .spark_frame import SparkSource, is_spark_frame
    if is_spark_frame(data):
        return SparkSource(data, domain, lon=lon, lat=lat, outside=outside, nonfinite=nonfinite,
                           resolution=resolution)
    from .files import DuckDBSource
    return DuckDBSource(data, domain, lon=lon, lat=lat, outside=outside, nonfinite=nonfinite,
                        resolution=resolution, memory_limit=memory_limit)
