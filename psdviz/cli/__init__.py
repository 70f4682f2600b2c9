"""The command line: ``psdviz build`` writes a release file, ``psdviz info`` describes one.

    psdviz build INPUT --lon COL --lat COL --domain XMIN YMIN XMAX YMAX --method auto --epsilon 1
                 [--seed S] [--resolution K] [--user COL --max-points-per-user K] [--param NAME=VALUE ...]
                 --out release.parquet [--crs EPSG:4326]
    psdviz info release.parquet

INPUT is a Parquet or CSV file, or a glob of them (quote it: ``"trips/*.parquet"``). DuckDB scans the
files out of core; by default the data are read once into their occupied grid cells and the method
builds from memory when those fit in half of ``--memory-limit`` (default a quarter of RAM), else one
pass per tree level (``--passes one|per-level`` forces either; the same release either way).
``--scheduler tcp://host:8786`` runs the passes on that dask.distributed cluster instead
(the workers must see the same paths); ``--scheduler local`` starts a LocalCluster on this machine.
``--spark MASTER`` reads the files with Spark and runs the passes as Spark jobs (``spark://host:7077``,
``yarn``, ``local[*]``; needs ``pip install psdviz[spark]`` and Java); only group counts reach the driver.
User-level privacy (``--user``) reads the coordinate and user columns into memory (pyarrow). The
build shows a progress bar per pass over the data (rich) and prints the ledger at the end.
Errors in the input or the options print one line saying what to fix and exit with status 2.

A package of small modules over the public API: ``parsing`` (the argument parser, one-line usage
errors), ``inputs`` (files, columns, clusters, workloads, the checks of the options), ``output`` (tables,
the ledger, progress), one module a command (``build_cmd``, ``regions_cmd``, ``info_cmd``,
``budget_cmd``, ``job_cmd``) and ``dispatch`` (``main``). May import psdviz's public API and top-level
modules, the product packages' faces (regions, temporal) and sources (files, Spark and Dask frames).
"""
from __future__ import annotations

from .dispatch import main

__all__ = ["main"]
