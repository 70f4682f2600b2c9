"""The command line's parser: its commands and options, and usage mistakes said in one line (exit 2)."""
from __future__ import annotations

import argparse
import json
import sys
from typing import NoReturn

import psdviz as pv

from ..api_reference import every_method
from ..present import LARGE_EPSILON
from ..regions import POOLINGS

EXIT_USAGE = 2


def _param(text: str) -> tuple[str, object]:
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"--param takes NAME=VALUE (got {text!r})")
    name, value = text.split("=", 1)
    if value == "None":                  # Python's word for a default, as the parameters' docs write it (JSON: null)
        return name, None
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
                   help="a method parameter, e.g. --param height=6 (repeatable; a JSON value, None or null for the "
                        "default)")
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
    p.add_argument("method", nargs="?", choices=every_method(),
                   help="a spatial, count-of-counts or sparse method")
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


def _bound(text: str):
    return text if text == "auto" else int(text)


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
    sp.add_argument("--max-points-per-user", type=_bound, default=None,
                    help="k: at most k points kept per user (with --time, auto: chosen privately from the data)")
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
