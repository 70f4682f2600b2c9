"""What the command line reads: files and columns, a Spark or Dask cluster's frame, layers, workloads, the
budget file, and the checks of the input options before any data are read."""
from __future__ import annotations

import argparse
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from .. import Domain
from ..api import build
from ..errors import InputDataError, ParameterError
from ..present import LARGE_EPSILON, require, rows_read, unit_for
from ..present import outside_warning as outside_line
from ..sources.files import check_not_empty, expand_paths, file_kind
from .output import say
from .parsing import BUNDLED


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


def numeric_points(cols: dict, lon: str, lat: str) -> np.ndarray:
    """The (n, 2) points of the columns ``lon`` and ``lat`` read by :func:`read_columns`
    (:class:`InputDataError` when one holds values that are not numbers)."""
    try:
        return np.column_stack([np.asarray(cols[lon], float), np.asarray(cols[lat], float)])
    except (TypeError, ValueError) as exc:
        raise InputDataError(f"columns {lon!r} / {lat!r} hold values that are not numbers ({exc}); fix or remove "
                             "those rows") from None


@contextmanager
def points_input(a: argparse.Namespace, extra: dict):
    """What ``build`` reads: the files (DuckDB), a Dask frame on the given cluster, or, for user-level
    privacy, the columns in memory. Sets the column names and limits in ``extra``."""
    if a.user:
        data = read_columns(a.input, [a.lon, a.lat, a.user])
        extra.update(user=data[a.user], max_points_per_user=a.max_points_per_user)
        yield numeric_points(data, a.lon, a.lat)
        return
    extra.update(lon=a.lon, lat=a.lat, passes=a.passes)
    if a.spark:
        from ..sources.spark_frame import on_session
        with on_session(a.spark, a.input, [a.lon, a.lat]) as frame:
            yield frame
        return
    if not a.scheduler:
        extra["memory_limit"] = a.memory_limit
        yield a.input
        return
    from ..sources.dask_frame import on_cluster
    with on_cluster(a.scheduler, a.input, [a.lon, a.lat]) as frame:
        yield frame


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
    from ..sources.files import DuckDBSource
    src = DuckDBSource(a.input, domain, lon=a.lat, lat=a.lon, nonfinite="drop", memory_limit=a.memory_limit)
    try:
        return src.n_input - src.n_nonfinite - src.n_outside
    finally:
        src.close()


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
    from ..budget import Budget
    return None if getattr(a, "budget", None) is None else Budget(a.budget)


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
    if a.max_points_per_user == "auto":
        raise ParameterError("--max-points-per-user auto is for a release over time (--time); a map needs a whole "
                             "number K")
    if a.user is not None and a.user in (a.lon, a.lat):
        raise ParameterError(f"--user {a.user!r} is also a coordinate column: name the column that says whose each "
                             "point is (one id per person)")
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
    from .. import regions as rg
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


def bundled_layer(name: str):
    """One of the bundled layers by its command-line name (:data:`BUNDLED`)."""
    from .. import regions as rg
    return rg.bundled(name)


def load_layer(a: argparse.Namespace):
    """The region layer: a bundled one by name, or a file with its id (and parent, name) columns."""
    from .. import regions as rg
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
