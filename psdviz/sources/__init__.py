"""Data sources beyond in-memory arrays: files read by DuckDB, Dask and Spark DataFrames, and the cluster or
session the command line reads them on (``dask_frame.on_cluster``, ``spark_frame.on_session``).
Part of psdviz.sources: may import psdviz.core only.

Each is a :class:`psdviz.core.source.KeySource`: a method reads it only through grouped counts of
integer keys on the public grid, so every method runs unchanged on every source and gives the same
release for the same seed. :func:`open_source` picks the source for an input.
"""
from __future__ import annotations

from .pick import is_table_source, open_source

__all__ = ["is_table_source", "open_source"]
