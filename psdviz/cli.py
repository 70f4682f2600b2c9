"""The command line: ``psdviz build`` writes a release file, ``psdviz info`` describes one.

    psdviz build INPUT --lon COL --lat COL --domain XMIN YMIN XMAX YMAX --method auto --epsilon 1
                 [--seed S] [--resolution K] [--user COL --max-points-per-user K] [--param NAME=VALUE ...]
                 --out release.parquet [--crs EPSG:4326]
    psdviz info release.parquet

INPUT is a Parquet or CSV file, or a glob of them (quote it: ``"trips/*.parquet"``). By default DuckDB
scans the files out of core, one pass per tree level (files bigger than memory work; ``--memory-limit``
caps DuckDB). ``--scheduler tcp://host:8786`` runs the passes on that dask.distributed cluster instead
(the workers must see the same paths); ``--scheduler local`` starts a LocalCluster on this machine.
User-level privacy (``--user``) reads the coordinate and user columns into memory (pyarrow). The
build shows a progress bar per pass over the data (rich) and prints the ledger at the end.
Errors in the input or the options print one line saying what to fix and exit with status 2.
"""
from __future__ import annotations

import argparse
from contextlib import contextmanager
import json
import sys

import numpy as np

from .api import build
from .core.domain import Domain
from .methods.registry import methods
from .publish.release_file import load_release
from .sources.files import expand_paths, file_kind

EXIT_USAGE = 2


def read_columns(pattern: str, columns: list[str]) -> dict[str, np.ndarray]:
    """The named columns of every Parquet/CSV file matching ``pattern``, concatenated."""
    import pyarrow as pa
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    paths = expand_paths(pattern)
    tables = []
    for p in paths:
        try:
            if file_kind(p) == "parquet":
                t = pq.read_table(p, columns=columns)
            else:
                opts = pcsv.ParseOptions(delimiter="\t" if p.lower().endswith(".tsv") else ",")
                t = pcsv.read_csv(p, parse_options=opts, convert_options=pcsv.ConvertOptions(include_columns=columns))
        except (pa.ArrowInvalid, KeyError) as exc:
            raise ValueError(f"{p}: cannot read columns {columns}: {exc}") from None
        tables.append(t.select(columns))
    table = pa.concat_tables(tables, promote_options="permissive")
    return {c: table.column(c).to_numpy(zero_copy_only=False) for c in columns}


def _param(text: str) -> tuple[str, object]:
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"--param takes NAME=VALUE (got {text!r})")
    name, value = text.split("=", 1)
    try:
        return name, json.loads(value)
    except json.JSONDecodeError:
        return name, value


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="psdviz", description="Private spatial decompositions from the command line.")
    sub = ap.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="build a private release from a points file and write the release file")
    b.add_argument("input", help="Parquet or CSV file, or a glob of them (quoted)")
    b.add_argument("--lon", required=True, help="longitude / x column")
    b.add_argument("--lat", required=True, help="latitude / y column")
    b.add_argument("--domain", required=True, nargs=4, type=float, metavar=("XMIN", "YMIN", "XMAX", "YMAX"),
                   help="public bounds (never read from the data)")
    b.add_argument("--method", default="auto", choices=list(methods()), help="default: auto (recommended)")
    b.add_argument("--epsilon", type=float, default=1.0, help="privacy budget (default 1)")
    b.add_argument("--seed", type=int, default=None, help="reproducible teaching run (never for real releases)")
    b.add_argument("--resolution", type=int, default=None, help="bits per axis of the public grid (default 20)")
    b.add_argument("--user", default=None, help="user id column: user-level privacy")
    b.add_argument("--max-points-per-user", type=int, default=None, help="k: at most k points kept per user")
    b.add_argument("--param", action="append", type=_param, default=[], metavar="NAME=VALUE",
                   help="a method parameter, e.g. --param height=6 (repeatable)")
    b.add_argument("--nonnegative", action="store_true",
                   help="estimates by non-negative least squares over the released counts (no epsilon)")
    b.add_argument("--memory-limit", default=None, help='cap on DuckDB\'s memory, e.g. "2GB" (it spills to disk)')
    b.add_argument("--scheduler", default=None,
                   help='run on a dask.distributed cluster: its address (tcp://host:8786) or "local"')
    b.add_argument("--out", required=True, help="release file to write (.parquet)")
    b.add_argument("--crs", default=None, help='coordinate reference system of the domain, e.g. "EPSG:4326"')
    i = sub.add_parser("info", help="print the public report of a release file")
    i.add_argument("release", help="a release file written by psdviz build or release.save")
    return ap


def _progress_bar():
    """A rich progress bar, one task per kind of pass (tree levels, median levels, ...)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                   transient=False)
    tasks: dict[str, int] = {}

    def update(done: int, total: int, what: str) -> None:
        if what not in tasks:
            tasks[what] = bar.add_task(what, total=total)
        bar.update(tasks[what], completed=done, total=total)
    return bar, update


def _print_ledger(rel) -> None:
    from rich.console import Console
    from rich.table import Table

    t = Table(title=f"ledger: {rel.ledger.total():.6g} of epsilon {rel.epsilon:g} ({rel.privacy_unit})")
    for col in ("what", "epsilon", "mechanism", "level", "nodes", "note"):
        t.add_column(col)
    for s in rel.ledger.records():
        t.add_row(str(s["what"]), f"{s['epsilon']:.6g}", str(s["mechanism"]),
                  "" if s["level"] is None else str(s["level"]), str(s["nodes"]), str(s["note"])[:80])
    Console().print(t)


@contextmanager
def _input(a: argparse.Namespace, extra: dict):
    """What ``build`` reads: the files (DuckDB), a Dask frame on the given cluster, or, for user-level
    privacy, the columns in memory. Sets the column names and limits in ``extra``."""
    if a.user:
        data = read_columns(a.input, [a.lon, a.lat, a.user])
        extra.update(user=data[a.user], max_points_per_user=a.max_points_per_user)
        yield np.column_stack([np.asarray(data[a.lon], float), np.asarray(data[a.lat], float)])
        return
    extra.update(lon=a.lon, lat=a.lat)
    if not a.scheduler:
        extra["memory_limit"] = a.memory_limit
        yield a.input
        return
    from distributed import Client, LocalCluster

    from .sources.dask_frame import read_frame
    cluster = LocalCluster(dashboard_address=None) if a.scheduler == "local" else None
    try:
        with Client(cluster or a.scheduler):
            yield read_frame(a.input, [a.lon, a.lat])
    finally:
        if cluster is not None:
            cluster.close()


def run_build(a: argparse.Namespace) -> int:
    if not a.out.lower().endswith(".parquet"):
        raise ValueError(f"--out must be a .parquet release file (got {a.out!r})")
    if (a.user is None) != (a.max_points_per_user is None):
        raise ValueError("user-level privacy needs both --user COL and --max-points-per-user K")
    if a.user and a.scheduler:
        raise ValueError("--user reads the points into memory; drop --scheduler (or --user)")
    extra = dict(a.param)
    if a.resolution is not None:
        extra["resolution"] = a.resolution
    if a.nonnegative:
        extra["nonnegative"] = True
    with _input(a, extra) as points:
        bar, update = _progress_bar()
        with bar:
            rel = build(points, Domain(*a.domain), a.method, a.epsilon, a.seed, nonfinite="drop", progress=update,
                        **extra)
    path = rel.save(a.out, crs=a.crs)
    _print_ledger(rel)
    print(f"wrote {path}: {rel.method}" + (f" ({rel.params['chosen']})" if rel.method == "auto" else "")
          + f", {int(rel.tree.is_leaf.sum()):,} cells, epsilon {rel.epsilon:g} per {rel.privacy_unit}")
    return 0


def run_info(a: argparse.Namespace) -> int:
    rel = load_release(a.release)
    print(json.dumps(rel.report(), indent=2, default=str))
    return 0


def main(argv: list[str] | None = None) -> int:
    a = parser().parse_args(argv)
    try:
        return run_build(a) if a.command == "build" else run_info(a)
    except (ValueError, OSError) as exc:
        print(f"psdviz {a.command}: {exc}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
