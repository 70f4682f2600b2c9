"""A Spark DataFrame as a source: the passes run as Spark jobs where the data live.

Validation is one aggregation; each pass is one ``mapInPandas`` over the partitions running
:func:`psdviz.sources.partitions.partition_counts` (grid keys by the in-memory code, the method's keyer
written once in numpy, a bincount) followed by a ``groupBy`` that sums the counts. Only group counts
reach the driver: the points stay on the executors. The pass into the occupied cells asks Spark for
at most the memory cap plus one group. Whatever ``SparkSession`` the frame belongs to runs it (a
cluster's master URL, or ``local[*]``); pyspark and Java come with the ``spark`` extra and Debian's
``default-jre-headless``.
"""
from __future__ import annotations

from contextlib import contextmanager

import numpy as np

from ..core.domain import Domain
from ..core.errors import InputDataError, ParameterError
from ..core.grid import DEFAULT_RESOLUTION
from ..core.optional import require
from ..core.source import Keyer, KeySource, cell_keys, merge_counts
from .partitions import VALIDATION_COLUMNS, partition_counts, set_validation, start_source, validation


def is_spark_frame(obj) -> bool:
    return type(obj).__module__.startswith("pyspark.sql") and hasattr(obj, "mapInPandas")


def coordinates(frame, lon: str, lat: str):
    """The two coordinate columns under plain names (``x``, ``y``), picked by position: Spark parses a
    name such as "a.b" as field b of a struct a, even quoted in some versions, and ``toDF`` renames by
    position without parsing any name."""
    cols = list(frame.columns)
    plain = [f"c{i}" for i in range(len(cols))]
    return frame.toDF(*plain).select(plain[cols.index(lon)], plain[cols.index(lat)]).toDF("x", "y")


class SparkSource(KeySource):
    """Points in a Spark DataFrame with columns ``lon`` and ``lat``."""

    def __init__(self, frame, domain: Domain, *, lon: str, lat: str, outside: str = "drop",
                 nonfinite: str = "error", resolution: int = DEFAULT_RESOLUTION):
        F = require("pyspark.sql.functions", "Spark frames")
        start_source(self, frame.columns, domain, lon=lon, lat=lat, outside=outside, nonfinite=nonfinite,
                     resolution=resolution, engine="Spark")
        self.frame = coordinates(frame, lon, lat)        # a column named "a.b" is one column
        lon, lat = self.lon, self.lat = "x", "y"
        schema = ", ".join(f"{c} long" for c in VALIDATION_COLUMNS)
        per_part = self.frame.mapInPandas(lambda parts: (validation(p, lon, lat, domain) for p in parts), schema)
        v = per_part.agg(*(F.sum(c).alias(c) for c in VALIDATION_COLUMNS)).collect()[0]
        set_validation(self, *(int(v[c] or 0) for c in VALIDATION_COLUMNS))

    def _groups(self, keyer: Keyer):
        """The Spark DataFrame (g, c) of one pass: per-partition counts summed by group."""
        F = require("pyspark.sql.functions", "Spark frames")
        lon, lat, grid, outside = self.lon, self.lat, self.grid, self.outside
        parts = self.frame.mapInPandas(
            lambda it: (partition_counts(p, lon, lat, grid, outside, keyer) for p in it), "g long, c long")
        return parts.groupBy("g").agg(F.sum("c").alias("c"))

    @staticmethod
    def _collect(df) -> tuple[np.ndarray, np.ndarray]:
        pdf = df.toPandas()
        return merge_counts([(pdf["g"].to_numpy(np.int64), pdf["c"].to_numpy(np.int64))])

    def grouped(self, keyer: Keyer) -> tuple[np.ndarray, np.ndarray]:
        return self._collect(self._groups(keyer))

    def cells_at_most(self, cap: int | None) -> tuple[np.ndarray, np.ndarray] | None:
        """The occupied cells (one Spark job), or None when there are more than ``cap`` (at most
        cap + 1 groups reach the driver)."""
        bits = self.grid.bits
        df = self._groups(lambda kx, ky, memo: (ky << bits) | kx)
        ids, cnt = self._collect(df if cap is None else df.limit(int(cap) + 1))
        if cap is not None and ids.size > cap:
            return None
        return cell_keys(ids, bits), cnt


@contextmanager
def on_session(master: str, pattern, columns: list[str]):
    """A Spark DataFrame of the named columns of Parquet / CSV files, on a session at ``master``
    (stopped afterwards): the command line's ``--spark MASTER``. No pyspark is a MissingExtraError, a Spark that
    cannot start a ParameterError, a missing column an InputDataError, each saying so."""
    from .files import expand_paths, file_kind, literal
    remote = "://" in str(pattern)       # hdfs://, s3a://: Spark resolves the path (and its globs) itself
    files = [str(pattern)] if remote else [literal(f).replace("{", "\\{").replace("}", "\\}")
                                           for f in expand_paths(pattern)]     # each local file read as itself
    kind = file_kind(files[0].rstrip("/*"))     # .parquet or .csv, or a ValueError saying so
    SparkSession = require("pyspark.sql", "--spark (and Java 17+)").SparkSession
    try:
        spark = SparkSession.builder.master(master).appName("psdviz build").getOrCreate()
    except Exception as exc:   # py4j / Java errors of all kinds: one line for the user
        raise ParameterError(f"Spark could not start at {master!r}: {str(exc).splitlines()[0][:200]}") from None
    try:
        csv = spark.read.option("header", True).option("inferSchema", True).csv
        reader = spark.read.parquet if kind == "parquet" else csv
        frame = reader(*files)
        missing = [c for c in columns if c not in frame.columns]
        if missing:
            raise InputDataError(f"column {missing[0]!r} is not in {files[0]}; its columns are {frame.columns}")
        yield coordinates(frame, *columns).toDF(*columns)
    finally:
        spark.stop()
