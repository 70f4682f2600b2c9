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
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NoReturn

import numpy as np

import psdviz as pv

from . import Domain, LargeEpsilonWarning, method_help
from .api import EmptyReleaseWarning, NoiseDominatesWarning, build, build_regions
from .errors import BudgetError, InputDataError, JobFileError, ParameterError, PsdvizError
from .present import (  # noqa: F401 (the share: the CLI's too)
    LARGE_EPSILON,
    OUTSIDE_WARNING_SHARE,
    MissingExtraError,
    parameters_text,
    require,
    rows_read,
    unit_for,
)
from .present import outside_warning as outside_line
from .regions import POOLINGS
from .releases import load_release
from .sources.files import check_not_empty, expand_paths, file_kind

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
                check_not_empty(p)
                opts = pcsv.ParseOptions(delimiter="\t" if p.lower().endswith(".tsv") else ",")
                t = pcsv.read_csv(p, parse_options=opts, convert_options=pcsv.ConvertOptions(include_columns=columns))
        except (pa.ArrowInvalid, KeyError) as exc:
            raise InputDataError(f"{p}: cannot read columns {columns}: {exc}") from None
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


class OneLineParser(argparse.ArgumentParser):
    """argparse with its mistakes said in one line (exit 2), pointing to ``--help`` instead of printing the usage;
    an option the command does not have is named first, with the nearest one it has."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")

    def parse_args(self, args=None, namespace=None):  # type: ignore[override]
        argv = list(sys.argv[1:] if args is None else args)
        commands = getattr(self, "commands", {})
        command = next((t for t in argv if not t.startswith("-")), None)
        if command in commands:
            unknown_option(commands[command], argv[argv.index(command) + 1:])
        return super().parse_args(argv, namespace)


def unknown_option(sub: argparse.ArgumentParser, argv: list[str]) -> None:
    """Says (one line, exit 2) the first ``--option`` of ``argv`` that ``sub`` has not, nor begins one of its
    options (argparse takes unique prefixes), with the nearest it has; a command with commands of its own is left to
    argparse."""
    import difflib
    actions = sub._actions                       # argparse keeps a parser's options there
    if any(isinstance(a, argparse._SubParsersAction) for a in actions):
        return
    known = [o for a in actions for o in a.option_strings if o.startswith("--")]
    for token in argv:
        if token == "--":
            return
        name = token.split("=", 1)[0]
        if name.startswith("--") and not any(k.startswith(name) for k in known):
            near = difflib.get_close_matches(name, known, n=1)
            sub.error(f"unknown option {name}" + (f": did you mean {near[0]}?" if near else ""))


def parser() -> argparse.ArgumentParser:
    ap = OneLineParser(prog="psdviz", description="Private spatial decompositions from the command line.")
    sub = ap.add_subparsers(dest="command", required=True)
    ap.commands = sub.choices        # type: ignore[attr-defined]   # read by OneLineParser.parse_args
    b = sub.add_parser("build", help="build a private release from a points file and write the release file")
    _input_arguments(b, "release file to write (.parquet)")
    b.add_argument("--domain", required=True, nargs=4, type=float, metavar=("XMIN", "YMIN", "XMAX", "YMAX"),
                   help="public bounds (never read from the data)")
    b.add_argument("--method", default="auto", choices=list(pv.METHODS), help="default: auto (recommended)")
    b.add_argument("--allow-outside", action="store_true",
                   help="no warning on stderr when more than a tenth of the rows lie outside the domain (the "
                        "release is written either way: whether it is written never turns on exact counts)")
    b.add_argument("--param", action="append", type=_param, default=[], metavar="NAME=VALUE",
                   help="a method parameter, e.g. --param height=6 (repeatable)")
    b.add_argument("--nonnegative", action="store_true",
                   help="estimates by non-negative least squares over the released counts (no epsilon)")
    b.add_argument("--workload", default=None, metavar="FILE",
                   help="the queries you will ask: a CSV or Parquet file with columns xmin, ymin, xmax, ymax (in the "
                        f"domain's units), a bundled region layer ({', '.join(BUNDLED)}: every region one query, "
                        "the domain in lon/lat) or a layer file with --workload-id; the quadtree (or auto, when it "
                        "picks it) plans its budget for them")
    b.add_argument("--workload-id", default=None, metavar="COL",
                   help="--workload is a region layer file (GeoJSON, GeoPackage, zipped Shapefile, TopoJSON): its "
                        "region id column")
    b.add_argument("--workload-parent", default=None, metavar="COL",
                   help="with --workload-id: the layer's parent id column (levels from the parent links)")
    b.add_argument("--crs", default=None, help='coordinate reference system of the domain, e.g. "EPSG:4326"')
    _time_arguments(b)
    r = sub.add_parser("regions", help="private counts for every region of a public layer (counties, states, ...)")
    _input_arguments(r, "the region release (.json, opens with psdviz info) or its counts table (.csv, .parquet)",
                     optional=True)
    r.add_argument("--release", default=None, metavar="FILE",
                   help="answer the layer's regions from a spatial release file instead of building from points "
                        "(no data, no epsilon: each region's estimate and its 95 %% interval from the release)")
    r.add_argument("--regions", required=True, nargs="+", metavar="FILE",
                   help=f"a layer file (GeoJSON, GeoPackage, zipped Shapefile, TopoJSON), several files one level "
                        f"each (top level first; parents from the geometry), or one of {BUNDLED}")
    r.add_argument("--id", default=None, help="the layer's region id column (not for bundled layers; default: "
                   "guessed, a unique column named like an id, never a measure, and said on stderr)")
    r.add_argument("--parent", default=None, help="the layer's parent id column: levels from the parent links")
    r.add_argument("--name", default=None, help="the layer's region name column (default: guessed, a column "
                   "named like a name: name, district, county, ...)")
    r.add_argument("--layer", default=None, help="the TopoJSON object or GeoPackage layer to read")
    r.add_argument("--pooling", choices=POOLINGS, default="sparse",
                   help="sparse (default): a region whose private count is too small for its children is measured "
                        "again and its descendants get area shares of it; none: measure every region")
    p = sub.add_parser("params", help="a method's parameters: accepted values, defaults, meaning, paper section")
    p.add_argument("method", nargs="?", choices=list(pv.METHODS) + list(pv.REFERENCES), help="a spatial method")
    p.add_argument("--reference", action="store_true", help="print the whole API reference (docs/api.md)")
    bu = sub.add_parser("budget", help="a data set's privacy budget across releases: init or show its file")
    bu.add_argument("action", choices=["init", "show"])
    bu.add_argument("file", help="the budget file (JSON, kept with the data)")
    bu.add_argument("--epsilon", type=float, default=None, help="init: the whole epsilon allowed for the data set")
    bu.add_argument("--delta", type=float, default=0.0, help="init: the whole delta allowed (default 0)")
    bu.add_argument("--max-points-per-user", type=int, default=None,
                    help="init: keep the budget per user (at most K points each) instead of per point")
    j = sub.add_parser("run", help="run a job file: several releases of one data set, the data read once")
    j.add_argument("job", help="the job file (YAML; docs/job-example.yaml)")
    j.add_argument("--dry-run", action="store_true", help="print the plan from public facts only; write nothing")
    sa = sub.add_parser("sample", help="synthetic points drawn from a spatial release (no epsilon spent)")
    sa.add_argument("release", help="a spatial release file (.parquet)")
    sa.add_argument("--out", required=True, help="the points to write (.csv or .parquet): columns lon, lat")
    sa.add_argument("--n", type=int, default=None, help="how many points (default: the released total)")
    sa.add_argument("--seed", type=int, default=None, help="reproducible draws (the release is not reseeded)")
    i = sub.add_parser("info", help="describe a release file (its public report)")
    i.add_argument("release", help="a release file written by psdviz build or release.save")
    i.add_argument("--json", action="store_true", help="print the whole public report as JSON (for machines)")
    i.add_argument("--format", choices=["text", "json", "markdown"], default="text",
                   help="text (default, for the terminal), json (as --json) or markdown (the privacy statement a "
                        "publisher can hand on)")
    return ap


BUNDLED = ("us-states", "us-counties", "world")      # psdviz.regions.BUNDLED's names (no geo import at start)


def _time_arguments(b: argparse.ArgumentParser) -> None:
    """``psdviz build ... --time COLUMN --window 1d --span START END``: a release over time (psdviz.over_time)."""
    t = b.add_argument_group("counts over time (with --time: one release for every window; --out FILE.json)")
    t.add_argument("--time", default=None, metavar="COL", help="the events' timestamp column: counts per window")
    t.add_argument("--window", default="1d", help="the window: 1h, 1d, 1w, hour, day, week or seconds (default 1d)")
    t.add_argument("--span", nargs=2, default=None, metavar=("START", "END"),
                   help="the public time span, e.g. 2001-01-01 2001-07-01 (never read from the data)")
    t.add_argument("--unit", choices=["event", "user", "w-event"], default=None,
                   help="privacy unit: event (default), user (with --user, --max-points-per-window and "
                        "--max-points-per-user: one user over the whole span) or w-event (with --w)")
    t.add_argument("--mechanism", choices=["flat", "tree", "bd", "ba"], default=None,
                   help="event: flat (default) or tree; user: tree (default) or flat; w-event: ba (default) or bd")
    t.add_argument("--max-points-per-window", type=int, default=None, metavar="M",
                   help="user and w-event: at most M events a user in one window")
    t.add_argument("--w", type=int, default=None, help="w-event: the number of consecutive windows protected")
    t.add_argument("--partition", choices=["grid", "privtree"], default="grid",
                   help="grid (default): the public 2^L x 2^L grid (--grid-level L); privtree: cells bought from the "
                        "pooled events with --partition-fraction of epsilon")
    t.add_argument("--grid-level", type=int, default=4, metavar="L",
                   help="the public grid's level (default 4: 16 x 16)")
    t.add_argument("--partition-fraction", type=float, default=0.2, help="privtree: share of epsilon (default 0.2)")
    t.add_argument("--fanout", type=_fanout, default="auto",
                   help="the tree mechanism's branching, 2 to 64, or auto (default: the least noise for ranges of a "
                        "window, a week, a month and the span, from the number of windows)")


TIME_ONLY = ("window", "span", "unit", "mechanism", "max_points_per_window", "w")


def _fanout(text: str):
    return text if text == "auto" else int(text)


def run_time_build(a: argparse.Namespace) -> int:
    """``psdviz build ... --time COL``: a release over time written as its JSON file."""
    from .over_time import build_over_time
    from .temporal import check_mechanism, privacy_unit
    if not a.out.lower().endswith(".json"):
        raise ParameterError(f"with --time, --out is the release over time (.json) (got {a.out!r})")
    if a.span is None:
        raise ParameterError("--time needs --span START END: the public time span (never read from the data)")
    clash = [f for f, on in (("--param", a.param), ("--workload", a.workload), ("--nonnegative", a.nonnegative),
                             ("--scheduler", a.scheduler), ("--spark", a.spark)) if on]
    if clash:
        raise ParameterError(f"{clash[0]} does not apply to a release over time (--time): drop it")
    unit = a.unit or ("w-event" if a.w is not None else "user" if a.user else "event")
    check_mechanism(unit, a.mechanism)
    check_common_options(a)
    user = {"user": a.user, "max_points_per_window": a.max_points_per_window} if a.user else {}
    if unit == "user" or a.max_points_per_user is not None:
        user["max_points_per_user"] = a.max_points_per_user
    if a.max_points_per_window is not None and not a.user:
        user["max_points_per_window"] = a.max_points_per_window
    extra = {"resolution": a.resolution} if a.resolution is not None else {}
    budget = open_budget(a)
    if budget is not None:      # before any data is read
        budget.check(a.epsilon, 0.0, privacy_unit(unit, a.max_points_per_user or 1, a.w or 1))
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        rel = build_over_time(a.input, Domain(*a.domain), time=a.time, span=tuple(a.span), window=a.window,
                              epsilon=a.epsilon, unit=unit, mechanism=a.mechanism, w=a.w, partition=a.partition,
                              grid_level=a.grid_level, partition_fraction=a.partition_fraction, fanout=a.fanout,
                              seed=a.seed, nonfinite="drop", lon=a.lon, lat=a.lat, **user, **extra)
    rep = rel.audit()
    print(f"read {rep['rows_in']:,} rows: {rep['rows_outside_domain']:,} outside the domain, "
          f"{rep['rows_outside_span']:,} outside the span, {rep['rows_nonfinite_dropped']:,} with missing or "
          "non-finite coordinates or times (dropped)"
          + (f", {rep['rows_dropped_by_contribution_bounds']:,} dropped by the contribution bounds"
             if "rows_dropped_by_contribution_bounds" in rep else "")
          + f"; {rep['rows_used']:,} used (exact counts for you only: not part of the release)", file=sys.stderr)
    say("build", map(_warning_line, said))
    path = write_drawn(budget, rel, "over-time", a.out, lambda p: rel.save(p, allow_seeded=a.allow_seeded))
    _print_ledger(rel)
    _print_notes(rel)
    print(f"wrote {path}: {rel.mechanism}, {rel.partition.size:,} cells x {rel.windows:,} windows of "
          f"{rel.axis.label()}, epsilon {rel.epsilon:g} per {rel.privacy_unit}")
    if rel.randomness.seeded:
        print(f"warning: {rel.randomness.warning()['warning']}", file=sys.stderr)
    return 0


def _input_arguments(sp: argparse.ArgumentParser, out: str, optional: bool = False) -> None:
    """The arguments every command that reads points shares: input, columns, budget, randomness,
    user-level bound, engines, output (``optional``: the input and its columns may be left out, as
    ``psdviz regions --release`` reads a release instead)."""
    sp.add_argument("input", nargs="?" if optional else None, help="Parquet or CSV file, or a glob of them (quoted)")
    sp.add_argument("--lon", required=not optional, help="longitude / x column")
    sp.add_argument("--lat", required=not optional, help="latitude / y column")
    sp.add_argument("--epsilon", type=float, default=1.0,
                    help=f"privacy budget (default 1); above {LARGE_EPSILON:g} refused unless --allow-large-epsilon")
    sp.add_argument("--allow-large-epsilon", action="store_true",
                    help=f"accept an epsilon above {LARGE_EPSILON:g} (such a release protects nearly no one)")
    sp.add_argument("--seed", type=int, default=None,
                    help="reproducible teaching run: NOT private, so --out needs --allow-seeded")
    sp.add_argument("--allow-seeded", action="store_true",
                    help="write a seeded run anyway, as a teaching file that says it is NOT private")
    sp.add_argument("--resolution", type=int, default=None, help="bits per axis of the public grid (default 20)")
    sp.add_argument("--user", default=None, help="user id column: user-level privacy")
    sp.add_argument("--max-points-per-user", type=int, default=None, help="k: at most k points kept per user")
    sp.add_argument("--memory-limit", default=None,
                    help='the build\'s memory budget, e.g. "2GB": half caps DuckDB (it spills to disk), the '
                         "occupied grid cells are held when they fit in half, the tree gets at most half (a larger "
                         "height or grid is lowered, with a note)")
    sp.add_argument("--passes", default="auto", choices=["auto", "one", "per-level"],
                    help="read the data once into their occupied cells (one), once per pass (per-level), or "
                         "decide by the memory budget (auto, default); the same release either way")
    sp.add_argument("--scheduler", default=None,
                    help='run on a dask.distributed cluster: its address (tcp://host:8786) or "local"')
    sp.add_argument("--spark", default=None, metavar="MASTER",
                    help="run on Spark: its master URL (spark://host:7077, yarn, local[*]); the files are read "
                         "by Spark where it runs (needs pip install psdviz[spark] and Java)")
    sp.add_argument("--budget", default=None, metavar="FILE",
                    help="the data set's privacy budget file (psdviz budget init): the release is refused before "
                         "any data is read when it does not fit, and recorded in it once written")
    sp.add_argument("--out", required=True, help=out)


@contextmanager
def _progress_bar() -> Iterator[Callable[[int, int, str], None]]:
    """A rich progress bar on a terminal, one task per kind of pass (tree levels, median levels, ...): filled when
    the build ends (a tree that stops early has done its work), wiped when it fails, so the one-line error is all
    the terminal shows; nothing at all when the output is a file or a pipe."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

    bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                   transient=False, disable=not sys.stdout.isatty())
    tasks: dict[str, TaskID] = {}

    def update(done: int, total: int, what: str) -> None:
        if what not in tasks:
            tasks[what] = bar.add_task(what, total=total)
        bar.update(tasks[what], completed=done, total=total)
    with bar:
        try:
            yield update
        except BaseException:
            bar.live.transient = True
            raise
        for task in bar.tasks:
            bar.update(task.id, completed=task.total)


SHOWN_CHARS = 2000     # a file's text (notes, ledger entries, warnings) is shown up to this many characters
SHOWN_ROWS = 200       # ... and its ledger and notes up to this many entries


def shown(text):
    """Text from a file as a ``rich.text.Text``: printed literally (never read as markup), capped at
    :data:`SHOWN_CHARS`."""
    from rich.text import Text
    s = str(text)
    if len(s) > SHOWN_CHARS:
        s = s[:SHOWN_CHARS] + f" ... ({len(s) - SHOWN_CHARS:,} more characters not shown)"
    return Text(s)


def _print_ledger(rel) -> None:
    """The ledger as a table that fits the terminal (80 columns included); the notes get the room, the what and
    mechanism columns at most a fifth and a sixth of it, and a cell too narrow for a word folds it: nothing is
    cut below :data:`SHOWN_CHARS`. The level column is shown when an entry has a level. Every cell is literal
    text: a file cannot style itself."""
    from rich import box
    from rich.console import Console
    from rich.table import Table

    con = Console()
    records = rel.ledger.records()
    levels = any(s["level"] is not None for s in records[:SHOWN_ROWS])
    t = Table(title=f"ledger: {rel.ledger.total():.6g} of epsilon {rel.epsilon:g} ({rel.privacy_unit})",
              box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, collapse_padding=True)
    t.add_column("what", max_width=max(16, con.width // 5), overflow="fold")
    t.add_column("eps", no_wrap=True, justify="right")
    t.add_column("mechanism", max_width=max(14, con.width // 6), overflow="fold")
    if levels:
        t.add_column("level", no_wrap=True, justify="right")
    t.add_column("nodes", no_wrap=True, justify="right")
    t.add_column("note", overflow="fold")
    for s in records[:SHOWN_ROWS]:
        level = ["" if s["level"] is None else str(s["level"])] if levels else []
        t.add_row(shown(s["what"]), f"{s['epsilon']:.6g}", shown(s["mechanism"]), *level, f"{s['nodes']:,}",
                  shown(s["note"]))
    con.print(t)
    if len(records) > SHOWN_ROWS:
        con.print(shown(f"... {len(records) - SHOWN_ROWS:,} more ledger entries (psdviz info --json lists all)"))


def numeric_points(cols: dict, lon: str, lat: str) -> np.ndarray:
    """The (n, 2) points of the columns ``lon`` and ``lat`` read by :func:`read_columns`
    (:class:`InputDataError` when one holds values that are not numbers)."""
    try:
        return np.column_stack([np.asarray(cols[lon], float), np.asarray(cols[lat], float)])
    except (TypeError, ValueError) as exc:
        raise InputDataError(f"columns {lon!r} / {lat!r} hold values that are not numbers ({exc}); fix or remove "
                             "those rows") from None


@contextmanager
def _input(a: argparse.Namespace, extra: dict):
    """What ``build`` reads: the files (DuckDB), a Dask frame on the given cluster, or, for user-level
    privacy, the columns in memory. Sets the column names and limits in ``extra``."""
    if a.user:
        data = read_columns(a.input, [a.lon, a.lat, a.user])
        extra.update(user=data[a.user], max_points_per_user=a.max_points_per_user)
        yield numeric_points(data, a.lon, a.lat)
        return
    extra.update(lon=a.lon, lat=a.lat, passes=a.passes)
    if a.spark:
        with spark_frame(a.spark, a.input, [a.lon, a.lat]) as frame:
            yield frame
        return
    if not a.scheduler:
        extra["memory_limit"] = a.memory_limit
        yield a.input
        return
    from .sources.dask_frame import read_frame
    distributed = require("distributed", "--scheduler")
    Client, LocalCluster = distributed.Client, distributed.LocalCluster
    cluster = LocalCluster(dashboard_address=None) if a.scheduler == "local" else None
    try:
        with Client(cluster or a.scheduler):
            yield read_frame(a.input, [a.lon, a.lat])
    finally:
        if cluster is not None:
            cluster.close()


def check_crs(crs: str | None, domain: Domain) -> None:
    """A stated CRS must be known (pyproj); a geographic one bounds the domain to longitude [-180, 180]
    and latitude [-90, 90] (a domain outside them is a typo or latitude and longitude swapped)."""
    if crs is None:
        return
    pyproj = require("pyproj", "a stated CRS")
    try:
        c = pyproj.CRS.from_user_input(crs)
    except pyproj.exceptions.CRSError:
        raise ParameterError(f"--crs {crs!r} is not a coordinate reference system pyproj knows; give one such as "
                             "EPSG:4326 (longitude/latitude) or EPSG:3857") from None
    inside = domain.xmin >= -180 and domain.xmax <= 180 and domain.ymin >= -90 and domain.ymax <= 90
    if c.is_geographic and not inside:
        raise ParameterError(f"--domain x [{domain.xmin:g}, {domain.xmax:g}], y [{domain.ymin:g}, {domain.ymax:g}] is "
                             f"not longitude/latitude, but --crs {crs} is: give XMIN YMIN XMAX YMAX with longitude in "
                             "[-180, 180] and latitude in [-90, 90]")


def input_counts(rel, a: argparse.Namespace | None = None) -> str:
    """The data owner's line (stderr, never the file): rows read, outside, invalid, dropped, in no
    region (region releases), used, and the files read (each path given read as that file; a pattern
    expanded)."""
    rep = rel.audit()
    line = (f"read {rows_read(rep):,} rows: "
            f"{rep['rows_outside_domain']:,} outside the domain ({rep['outside_rows']}), "
            f"{rep['rows_nonfinite_dropped']:,} with missing or non-finite coordinates (dropped)")
    if "rows_dropped_by_user_bound" in rep:
        line += f", {rep['rows_dropped_by_user_bound']:,} dropped by --max-points-per-user"
    if "rows_in_no_region" in rep:
        line += f", {rep['rows_in_no_region']:,} in no region"
    line += f"; {rep['rows_used']:,} used (exact counts for you only: not part of the release)"
    line += f"; data read as {rep['data_passes']}" if "data_passes" in rep else ""
    files = rep.get("files_read") or ([] if a is None or "://" in str(a.input) else expand_paths(a.input))
    if files:
        more = f" and {len(files) - 3:,} more" if len(files) > 3 else ""
        line += f"; files read: {len(files):,} ({', '.join(files[:3])}{more})"
    return line


def outside_warning(rel, a: argparse.Namespace, domain: Domain, memory: np.ndarray | None) -> str | None:
    """The data owner's warning (stderr, never the file) when more than a tenth of the rows read lie outside
    the domain, naming the likely cause where a swapped order would keep them (--lon / --lat, or bounds given
    as XMIN XMAX YMIN YMAX): the bad-rows rule the app follows too (:mod:`psdviz.present`'s
    ``outside_warning``). Exact counts, for the owner only: the release is written whatever they are (a
    decision on exact counts would leak)."""
    rep = rel.audit()
    read, outside = rows_read(rep), rep["rows_outside_domain"]
    if a.allow_outside or outside_line(read, outside, domain, None) is None:
        return None
    line = outside_line(read, outside, domain, _inside_if_swapped(a, domain, memory), where="--domain",
                        swap="--lon and --lat the other way round",
                        check="check the bounds (XMIN YMIN XMAX YMAX: bounds in the wrong order are refused) and "
                              "the columns")
    return f"warning: {line}"


def _inside_if_swapped(a: argparse.Namespace, domain: Domain, memory: np.ndarray | None) -> int | None:
    """Rows that would lie inside ``domain`` with --lon and --lat exchanged (None where that cannot be
    counted in one cheap scan: Dask and Spark inputs)."""
    if memory is not None:
        xy = memory[:, ::-1]
        return int(domain.contains(xy[np.isfinite(xy).all(axis=1)]).sum())
    if a.scheduler or a.spark:
        return None
    from .sources.files import DuckDBSource
    src = DuckDBSource(a.input, domain, lon=a.lat, lat=a.lon, nonfinite="drop", memory_limit=a.memory_limit)
    try:
        return src.n_input - src.n_nonfinite - src.n_outside
    finally:
        src.close()


@contextmanager
def spark_frame(master: str, pattern, columns: list[str]):
    """A Spark DataFrame of the named columns of Parquet / CSV files, on a session at ``master``
    (stopped afterwards). No pyspark, or a Spark that cannot start, is a ValueError saying so."""
    from .sources.files import expand_paths, file_kind, literal
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
        from .sources.spark_frame import coordinates
        frame = reader(*files)
        missing = [c for c in columns if c not in frame.columns]
        if missing:
            raise InputDataError(f"column {missing[0]!r} is not in {files[0]}; its columns are {frame.columns}")
        yield coordinates(frame, *columns).toDF(*columns)
    finally:
        spark.stop()


def _warning_line(w: warnings.WarningMessage) -> str | None:
    """One line for a warning the engine gave (its own words; deprecations and library chatter dropped)."""
    from .regions import RegionRepairWarning
    if not issubclass(w.category, (NoiseDominatesWarning, LargeEpsilonWarning, RegionRepairWarning)):
        return None
    return "warning: " + " ".join(str(w.message).split())


def check_params_are_the_methods(given: dict) -> None:
    """--param sets a method's own parameters; the build's own inputs (epsilon, seed, domain, ...) have
    options of their own and are refused here in words (they reached ``build`` twice)."""
    import inspect
    own = {p for p, v in inspect.signature(build).parameters.items() if v.kind is not v.VAR_KEYWORD}
    clash = sorted(set(given) & own)
    if clash:
        name = clash[0]
        option = {"points": "INPUT", "seed": "--seed", "epsilon": "--epsilon", "domain": "--domain",
                  "method": "--method", "resolution": "--resolution", "lon": "--lon", "lat": "--lat",
                  "user": "--user", "max_points_per_user": "--max-points-per-user", "workload": "--workload",
                  "memory_limit": "--memory-limit", "passes": "--passes", "nonnegative": "--nonnegative"}.get(name)
        where = f"give it as {option}" if option else "the command line sets it itself"
        raise ParameterError(f"--param {name}=...: {name} is not a method parameter ({where}); --param sets the "
                             "method's own parameters (psdviz params METHOD lists them)")


def open_budget(a: argparse.Namespace):
    """The --budget file (or None)."""
    from .budget import Budget
    return None if getattr(a, "budget", None) is None else Budget(a.budget)


def write_drawn(budget, rel, kind: str, out, write) -> Path:
    """Write the release with ``write(path)``; with a budget, write it beside ``out`` first, record the
    release in the budget (under its lock, the remainder checked again), then move it into place, so a
    release the budget refuses is never left on disk and the budget is updated after the file exists."""
    if budget is None:
        return Path(write(out))
    out = Path(out)
    partial = out.with_name(out.name + ".partial" + out.suffix)
    written = Path(write(partial))
    try:
        budget.draw(rel, kind, file=str(out.resolve()))
    except BaseException:
        written.unlink(missing_ok=True)
        raise
    os.replace(written, out)
    return out


def check_budget(a: argparse.Namespace) -> None:
    """With --budget: refuse, before any data is read, a release the budget cannot take."""
    budget = open_budget(a)
    if budget is not None:
        budget.check(a.epsilon, 0.0, unit_for(a.max_points_per_user if a.user else None))


def check_input_options(a: argparse.Namespace) -> None:
    """Options that do not go together, refused before anything is read."""
    check_common_options(a)
    if (a.user is None) != (a.max_points_per_user is None):
        raise ParameterError("user-level privacy needs both --user COL and --max-points-per-user K")
    check_budget(a)


def check_common_options(a: argparse.Namespace) -> None:
    """The checks every command that reads points shares: epsilon, clusters, seeds."""
    if a.epsilon > LARGE_EPSILON and not a.allow_large_epsilon:
        raise ParameterError(f"--epsilon {a.epsilon:g} is above {LARGE_EPSILON:g}: such a release protects nearly no "
                             f"one (one person may make an output e^{a.epsilon:g} times more likely); give a smaller "
                             "epsilon, or --allow-large-epsilon if you mean it. Nothing was written")
    if a.user and (a.scheduler or a.spark):
        raise ParameterError("--user reads the points into memory; drop --scheduler / --spark (or --user)")
    if a.scheduler and a.spark:
        raise ParameterError("choose one cluster: --scheduler (Dask) or --spark (Spark)")
    if a.seed is not None and not a.allow_seeded:
        raise ParameterError("--seed makes a reproducible teaching run, which is NOT private (whoever finds the seed "
                             "recovers every exact count); drop --seed for a real release, or add --allow-seeded to "
                             "write a teaching file labelled NOT private")


WORKLOAD_COLUMNS = ("xmin", "ymin", "xmax", "ymax")


LAYER_SUFFIXES = (".geojson", ".gpkg", ".zip", ".topojson", ".shp")


def workload_of(a: argparse.Namespace):
    """``--workload``: a bundled layer by name, a layer file (with ``--workload-id``) or a rectangle file."""
    from . import regions as rg
    if a.workload in BUNDLED:
        given = [f for f, v in (("--workload-id", a.workload_id), ("--workload-parent", a.workload_parent)) if v]
        if given:
            raise ParameterError(f"--workload {a.workload} is a bundled layer with its own ids and levels: drop "
                                 f"{' and '.join(given)} (they name the columns of a layer file)")
        return bundled_layer(a.workload)
    if a.workload_id is not None:
        crs = {} if a.crs is None else {"crs": a.crs}     # the layer in the domain's coordinates
        return rg.Regions.from_file(a.workload, id=a.workload_id, parent=a.workload_parent, **crs)
    if a.workload_parent is not None:
        raise ParameterError("--workload-parent needs --workload-id (the layer's region id column)")
    if Path(a.workload).suffix.lower() in LAYER_SUFFIXES:
        raise ParameterError(f"--workload {a.workload!r} looks like a region layer: give its id column with "
                             "--workload-id COL (or pass rectangles as CSV or Parquet)")
    return read_workload(a.workload)


def read_workload(path: str) -> np.ndarray:
    """The rectangles of a workload file (CSV or Parquet, columns xmin, ymin, xmax, ymax)."""
    import pandas as pd
    if not Path(path).is_file():
        raise InputDataError(f"--workload: no file {path!r}")
    try:
        frame = pd.read_parquet(path) if path.lower().endswith(".parquet") else pd.read_csv(path)
    except (ValueError, OSError) as exc:     # pandas' and pyarrow's read errors
        raise InputDataError(f"--workload {path!r} cannot be read as CSV or Parquet ({exc})") from None
    missing = [c for c in WORKLOAD_COLUMNS if c not in frame.columns]
    if missing:
        raise InputDataError(f"--workload {path!r} has no column {missing[0]!r} (it needs "
                             f"{', '.join(WORKLOAD_COLUMNS)})")
    values = frame[list(WORKLOAD_COLUMNS)].apply(pd.to_numeric, errors="coerce").to_numpy(float)
    if not np.isfinite(values).all():
        raise InputDataError(f"--workload {path!r}: every xmin, ymin, xmax, ymax must be a finite number")
    return values


def run_build(a: argparse.Namespace) -> int:
    if a.time is not None:
        return run_time_build(a)
    given = [f"--{n.replace('_', '-')}" for n in TIME_ONLY if getattr(a, n) not in (None, "1d")]
    if given:
        raise ParameterError(f"{given[0]} is for a release over time: give --time COLUMN too")
    if not a.out.lower().endswith(".parquet"):
        raise ParameterError(f"--out must be a .parquet release file (got {a.out!r})")
    check_input_options(a)
    domain = Domain(*a.domain)
    check_crs(a.crs, domain)
    extra = dict(a.param)
    check_params_are_the_methods(extra)
    if a.resolution is not None:
        extra["resolution"] = a.resolution
    if a.nonnegative:
        extra["nonnegative"] = True
    if a.workload is not None:
        extra["workload"] = workload_of(a)
    with _input(a, extra) as points, warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        warnings.simplefilter("ignore", EmptyReleaseWarning)     # said below, with the counts
        with _progress_bar() as update:
            rel = build(points, domain, a.method, a.epsilon, a.seed, nonfinite="drop", progress=update, **extra)
        memory = points if isinstance(points, np.ndarray) else None
        print(input_counts(rel, a), file=sys.stderr)
        outside = outside_warning(rel, a, domain, memory)
    say("build", [outside, *map(_warning_line, said)])
    budget = open_budget(a)
    path = write_drawn(budget, rel, "spatial", a.out, lambda p: rel.save(p, crs=a.crs, allow_seeded=a.allow_seeded))
    _print_ledger(rel)
    _print_notes(rel)
    print(f"wrote {path}: {rel.method}" + (f" ({rel.params['chosen']})" if rel.method == "auto" else "")
          + f", {int(rel.tree.is_leaf.sum()):,} cells, epsilon {rel.epsilon:g} per {rel.privacy_unit}")
    if rel.randomness.seeded:
        print(f"warning: {rel.randomness.warning()['warning']}", file=sys.stderr)
    return 0


def bundled_layer(name: str):
    """One of the bundled layers by its command-line name (:data:`BUNDLED`)."""
    from . import regions as rg
    return rg.bundled(name)


def load_layer(a: argparse.Namespace):
    """The region layer: a bundled one by name, or a file with its id (and parent, name) columns."""
    from . import regions as rg
    files = a.regions
    if len(files) == 1 and files[0] in BUNDLED:
        return bundled_layer(files[0])
    if any(f in BUNDLED for f in files):
        raise ParameterError(f"a bundled layer ({', '.join(BUNDLED)}) is given alone: --regions us-counties")
    if a.parent is not None and len(files) > 1:
        raise ParameterError("--parent is for one file; with several files (top level first) each region's parent is "
                             "the region of the file before that covers it")
    read = []
    for f in files:
        frame = rg.read_layer(f, a.layer)
        if a.id is None or a.name is None:     # the same guess as the app's and Python's, said in one line
            if a.id is not None and a.id not in frame.columns:
                raise InputDataError(f"--id {a.id!r} is not a column of {Path(f).name}; its columns are "
                                     f"{[str(c) for c in frame.columns if c != frame.geometry.name]}")
            guess = rg.guess_columns(frame, a.id)
            say("regions", [f"{Path(f).name}: {guess.why} (guessed; --id COL and --name COL choose others)"])
        read.append(rg.Regions.from_frame(frame, id=a.id, parent=a.parent, name=a.name))
    return read[0] if len(read) == 1 else rg.Regions.from_levels(read)


def regions_from_release(a: argparse.Namespace) -> int:
    """``psdviz regions --release FILE --regions LAYER --out counts.csv``: an analyst's region counts from
    a published spatial release (post-processing: no data read, no epsilon spent)."""
    suffix = Path(a.out).suffix.lower()
    if suffix not in (".csv", ".parquet"):
        raise ParameterError(f"with --release, --out is the counts table (.csv or .parquet) (got {a.out!r})")
    if a.input is not None:
        raise ParameterError("give either points (INPUT --lon --lat) or --release FILE, not both")
    rel = load_release(a.release)
    if not hasattr(rel, "answer_regions"):
        raise ParameterError(f"{a.release} is not a spatial release: region counts are answered from published cells")
    with warnings.catch_warnings(record=True) as loaded:
        warnings.simplefilter("always")
        layer = load_layer(a)
    say("regions", map(_warning_line, loaded))
    from .present import labelled
    from .regions import people_table
    table = people_table(labelled(rel.answer_regions(layer), rel.randomness))
    write_table(table, a.out)
    silent = int((table["domain_share"] <= 0).sum())
    outside = (f"; {silent:,} lie outside the release's domain and have no answer (empty fields)" if silent else "")
    print(f"wrote {a.out}: {len(table) - silent:,} regions answered from {a.release} (estimate, low_95 and high_95: "
          f"noise and the cells the borders cut; no epsilon spent){outside}")
    return 0


def run_regions(a: argparse.Namespace) -> int:
    if a.release is not None:
        return regions_from_release(a)
    if a.input is None or a.lon is None or a.lat is None:
        raise ParameterError("psdviz regions needs INPUT --lon COL --lat COL (points), or --release FILE (a spatial "
                             "release to answer the regions from)")
    suffix = Path(a.out).suffix.lower()
    if suffix not in (".json", ".csv", ".parquet"):
        raise ParameterError(f"--out must end in .json (the release), .csv or .parquet (its counts) (got {a.out!r})")
    check_input_options(a)
    with warnings.catch_warnings(record=True) as loaded:     # the layer's repairs, said below in one line each
        warnings.simplefilter("always")
        layer = load_layer(a)
    extra = {} if a.resolution is None else {"resolution": a.resolution}
    with _input(a, extra) as points, warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        rel = build_regions(points, layer, epsilon=a.epsilon, seed=a.seed, pooling=a.pooling, **extra)
    print(input_counts(rel, a), file=sys.stderr)
    say("regions", map(_warning_line, [*loaded, *said]))
    path = write_drawn(open_budget(a), rel, "regions", a.out, lambda p: region_output(rel, p, a.allow_seeded))
    _print_ledger(rel)
    levels = int(rel.report()["levels"])
    print(f"wrote {path}: {len(rel.estimate):,} regions in {levels} level{'s' if levels != 1 else ''}, "
          f"epsilon {rel.epsilon:g} per {rel.privacy_unit}")
    return 0


def run_info(a: argparse.Namespace) -> int:
    rel = load_release(a.release)
    if a.format == "markdown":
        print(rel.report(format="markdown"))
    elif a.json or a.format == "json":
        print(json.dumps(rel.report(), indent=2, default=str))
    else:
        describe(rel)
    return 0


def describe(rel) -> None:
    """A readable summary of a release: what it is, its privacy, its cells, and the ledger as a table
    (notes wrapped, never cut)."""
    from rich.console import Console

    con = Console()
    rep = rel.report()
    if "warning" in rep:
        con.print(shown(rep["warning"]), style="bold red")
    params, method = rep["parameters"], rep["method"]
    chosen = f" (chose {params['chosen']})" if "chosen" in params else ""
    head = shown(f"{method}{chosen}")
    head.stylize("bold")
    con.print(head + shown(f", epsilon {rel.epsilon:g} per {rel.privacy_unit}"
                           + (f", delta {rep['delta']:.3g}" if rep.get("delta") else "")), highlight=False)
    if rep["kind"] == "spatial":            # cells on a grid over a domain
        d = rel.domain
        con.print(f"cells: {rep['cells']:,} published ({rep['nodes']:,} nodes in the tree)", highlight=False)
        con.print(f"domain: x [{d.xmin:g}, {d.xmax:g}], y [{d.ymin:g}, {d.ymax:g}]; resolution "
                  f"{rel.grid.bits} bits ({rel.grid.size:,} positions per axis)", highlight=False)
    else:
        sizes = {k: rep[k] for k in ("regions", "levels", "nodes", "size", "m", "time_cells", "windows") if k in rep}
        con.print(shown(", ".join(f"{k}: {v:,}" for k, v in sizes.items())), highlight=False)
    con.print(shown(f"randomness: {rel.randomness.mode}"), highlight=False)
    text = parameters_text(params)
    if text:
        con.print(shown(f"parameters: {text}"), highlight=False)
    _print_ledger(rel)
    _print_notes(rel, con)


def _print_notes(rel, con=None) -> None:
    """The release's notes (a size the resolution or memory_limit lowered, a plan not used, ...), printed
    literally, at most :data:`SHOWN_ROWS`."""
    from rich.console import Console
    con = con or Console()
    for note in rel.notes[:SHOWN_ROWS]:
        con.print(shown(f"note: {note}"), highlight=False)
    if len(rel.notes) > SHOWN_ROWS:
        con.print(shown(f"... {len(rel.notes) - SHOWN_ROWS:,} more notes (psdviz info --json lists all)"))


def run_budget(a: argparse.Namespace) -> int:
    from .budget import Budget
    if a.action == "init":
        if a.epsilon is None:
            raise ParameterError("psdviz budget init FILE needs --epsilon (the whole epsilon for the data set)")
        if Path(a.file).exists():
            raise BudgetError(f"{a.file} exists already: a budget is created once (psdviz budget show {a.file})")
        Budget(a.file, total_epsilon=a.epsilon, unit=unit_for(a.max_points_per_user), total_delta=a.delta)
    print(Budget(a.file).report())
    return 0


def run_job(a: argparse.Namespace) -> int:
    from .budget import Budget
    from .jobs import columns as job_columns
    from .jobs import load_job, plan, preflight
    job = load_job(a.job)
    for line in plan(job):
        print(line, flush=True)
    budget = None if job.budget is None else Budget(job.path.parent / job.budget)
    if budget is not None:              # the whole job must fit before any data is read
        from .jobs import release_unit
        units = {str(release_unit(r)): release_unit(r) for r in job.releases}
        for unit in units.values():     # one unit a budget: a job of several units is refused here
            budget.check(job.epsilon, 0.0, unit, what=f"the job ({len(job.releases)} releases)")
    prepared = preflight(job)           # columns, layers, hierarchies, outputs: before any row or epsilon
    if a.dry_run:
        print("dry run: checked the columns, layers, hierarchies and outputs; no data row read, nothing written")
        return 0
    d = job.data
    cols = read_columns(str(job.path.parent / d["path"]), job_columns(job))     # the data, read once
    points = numeric_points(cols, d["lon"], d["lat"])
    written: list[tuple[Path, float]] = []
    for i, r in enumerate(job.releases):
        try:
            out, eps = job_release(job, r, i, prepared, points, cols, budget)
        except Exception as exc:
            raise failed_release(job_failure(r.line, exc, written, budget), exc) from None
        written.append((out, eps))
        print(f"wrote {out} (line {r.line}): epsilon {eps:g}", flush=True)
    return 0


def job_release(job, r, i: int, prepared, points: np.ndarray, cols: dict, budget) -> tuple[Path, float]:
    """Build and write one release of a job (drawn from its budget, if any): the file and its epsilon."""
    from .jobs import job_coco
    s, domain = r.spec, Domain(*job.data["domain"])
    out = job.path.parent / s["out"]
    if r.kind == "spatial":
        grid = {"resolution": s["resolution"]} if "resolution" in s else {}
        rel = build(points, domain, s["method"], float(s["epsilon"]), nonfinite="drop", **grid, **s.get("params", {}))
        write_drawn(budget, rel, "spatial", out, lambda p: rel.save(p, crs=s.get("crs")))
    elif r.kind == "count-of-counts":
        rel = job_coco(s, cols, prepared.hierarchies[i])
        write_drawn(budget, rel, "count-of-counts", out, lambda p: rel.save(p))
    elif r.kind == "over-time":
        from .over_time import build_over_time
        keys = ("unit", "mechanism", "max_points_per_window", "max_points_per_user", "w", "partition", "grid_level",
                "partition_fraction", "fanout")
        over = build_over_time(points, domain, time=cols[s["time"]], span=tuple(str(v) for v in s["span"]),
                               window=s["window"], epsilon=float(s["epsilon"]), nonfinite="drop",
                               user=cols[s["user"]] if s.get("user") else None, **{k: s[k] for k in keys if k in s})
        write_drawn(budget, over, "over-time", out, lambda p: over.save(p))
        return out, over.epsilon
    else:
        rel = build_regions(points, prepared.layers[i], epsilon=float(s["epsilon"]), pooling=s.get("pooling", "sparse"))
        write_drawn(budget, rel, "regions", out, lambda p: region_output(rel, p))
    return out, rel.epsilon


def user_error(exc: BaseException) -> bool:
    """Whether ``exc`` is a mistake of the command's user (told in one line, exit 2) rather than a bug: one of
    :mod:`psdviz.errors`' types, a file the system refuses or a missing optional package."""
    return isinstance(exc, (PsdvizError, OSError, MissingExtraError))


def failed_release(message: str, exc: BaseException) -> Exception:
    """The error to raise for a release that failed mid-job: the named type of a user's mistake (an OSError or a
    missing package: :class:`JobFileError`), a RuntimeError (reported as a bug) otherwise."""
    if isinstance(exc, PsdvizError):
        return type(exc)(message)
    return JobFileError(message) if user_error(exc) else RuntimeError(message)


def job_failure(line: int, exc: BaseException, written: list[tuple[Path, float]], budget) -> str:
    """One line for a release that failed mid-job: what failed, and what had been written and charged."""
    what = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    if not user_error(exc):
        what = f"unexpected {type(exc).__name__}: {what} (a bug in psdviz: please report it)"
    done = (f"already written: {', '.join(str(p) for p, _ in written)}" if written else "nothing was written")
    charged = sum(e for _, e in written)
    spent = (f"; the budget {budget.path.name} was charged epsilon {charged:g} for them ({budget.remaining:g} "
             "left)" if budget is not None and written else
             "; the budget is unchanged" if budget is not None else "")
    return f"the release on line {line} failed: {what}; {done}{spent}"


def region_output(rel, path, allow_seeded: bool = False) -> Path:
    """A region release as its file (.json) or its counts (.csv, .parquet; a seeded run's rows say NOT
    PRIVATE)."""
    path = Path(path)
    if path.suffix.lower() == ".json":
        return Path(rel.save(path, allow_seeded=allow_seeded))
    from .present import check_seeded_export, labelled
    from .regions import people_table
    check_seeded_export(rel.randomness, allow_seeded, "the region counts")
    return write_table(people_table(labelled(rel.counts(), rel.randomness)), path)


def write_table(table, path) -> Path:
    """A table as CSV or Parquet, by the path's suffix."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".csv", ".parquet"):
        raise ParameterError(f"{path.name}: a table is written as .csv or .parquet")
    table.to_csv(path, index=False) if suffix == ".csv" else table.to_parquet(path, index=False)
    return path


def say(command: str, lines) -> None:
    """The owner's warning lines on stderr, one line each (None entries skipped)."""
    for line in lines:
        if line:
            print(f"psdviz {command}: {line}", file=sys.stderr)


def run_sample(a: argparse.Namespace) -> int:
    rel = load_release(a.release)
    if not hasattr(rel, "sample_points"):
        raise ParameterError(f"{a.release} is not a spatial release: synthetic points are drawn from published cells")
    suffix = Path(a.out).suffix.lower()
    if suffix not in (".csv", ".parquet"):
        raise ParameterError(f"--out must end in .csv or .parquet (got {a.out!r})")
    pts = rel.sample_points(a.n, a.seed)
    write_table(pts, a.out)
    print(f"wrote {a.out}: {len(pts):,} synthetic points drawn from the private release (no real point; no "
          "epsilon spent)")
    return 0


def run_params(a: argparse.Namespace) -> int:
    if a.reference:
        from .api_reference import reference
        print(reference(), end="")
        return 0
    if a.method is None:
        raise ParameterError("give a method (psdviz params kdtree) or --reference")
    print(method_help(a.method))
    return 0


EXIT_BROKEN_PIPE = 141     # 128 + SIGPIPE: what a shell reports for a writer whose reader closed the pipe
READ_ONLY = ("info", "params")   # commands that write no file: a closed pipe ends them quietly


def main(argv: list[str] | None = None) -> int:
    a = parser().parse_args(argv)
    run = {"build": run_build, "regions": run_regions, "info": run_info, "params": run_params,
           "budget": run_budget, "sample": run_sample, "run": run_job}[a.command]
    try:
        code = run(a)
        sys.stdout.flush()                          # a closed pipe is found here, not at the interpreter's exit
        return code
    except BrokenPipeError as exc:
        if a.command not in READ_ONLY:              # a command that writes files says what it wrote: one line, exit 2
            print(f"psdviz {a.command}: {exc} (standard output closed: check what was written)", file=sys.stderr)
            return EXIT_USAGE
        with contextlib.suppress(OSError, ValueError):   # `psdviz info ... | head`: the reader has all it wanted;
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())   # no second error at shutdown
        return EXIT_BROKEN_PIPE
    except (Exception, RecursionError) as exc:      # never a traceback: one line
        if user_error(exc):                         # the user's mistake: what to fix
            print(f"psdviz {a.command}: {exc}", file=sys.stderr)
            return EXIT_USAGE
        first = (str(exc).strip().splitlines() or [""])[0]
        if "a bug in psdviz" in first:              # a job's release that failed says so, and what was written
            print(f"psdviz {a.command}: {first}", file=sys.stderr)
        else:
            first = first[:300]
            print(f"psdviz {a.command}: unexpected {type(exc).__name__}: {first} (a bug in psdviz: please report "
                  "it with the command that caused it)", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
