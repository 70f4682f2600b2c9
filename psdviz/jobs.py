"""Job files: several releases of one data set under one budget, the data read once (``psdviz run``).

A job is a YAML file (example: docs/job-example.yaml)::

    data: {path: trips.csv, lon: lon, lat: lat, domain: [-125, 24, -66, 50]}
    budget: trips.budget.json          # optional: every release draws from it
    releases:
      - {kind: spatial, method: auto, epsilon: 0.5, out: trips.parquet}
      - {kind: spatial, method: quadtree, epsilon: 0.2, params: {height: 7}, out: trips-quad.parquet}
      - {kind: regions, regions: us-counties, epsilon: 0.3, out: counties.csv}
      - {kind: count-of-counts, group: household, levels: [state, county], hierarchy: places.csv,
         max_size: 20, epsilon: 0.3, out: households.json}
      - {kind: over-time, time: pickup, window: 1d, span: [2026-01-01, 2026-07-01], epsilon: 0.5, out: daily.json}

An over-time release (:func:`psdviz.build_over_time`) reads ``time`` (and ``user``); a budget keeps its unit. A
count-of-counts release reads the ``group`` column (which group each row belongs to) and the ``levels``
columns (its place, coarsest first) of the same rows; the places come from ``hierarchy``, a public CSV with
those columns (never from the data: which places hold records is private), and its epsilon is split
evenly over the hierarchy's levels (root included). Each row is one record, so its privacy unit, "one
record", is the spatial releases' "one point": one row of the data set.

The schema is checked before anything is read, with errors that name the line of the file: unknown or repeated
keys, a method's parameters (``params`` holds the method's own, never build's epsilon or seed), at most
:data:`MAX_RELEASES` releases. Then the whole job is checked against the world before any data row is read or any
epsilon drawn (:func:`preflight`): the data files' column names, every region layer and hierarchy (public files,
loaded once), every output's folder writable; with a budget the whole job must fit what remains.
``--dry-run`` does all of that, prints the plan (each release's epsilon and its expected error at typical query
sizes, from public facts only) and writes nothing. If a release still fails while the job runs, the error says
which files were written and what the budget was charged.
"""
from __future__ import annotations

import math
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .core.domain import Domain
from .core.errors import JobFileError, PsdvizError
from .core.grid import DEFAULT_RESOLUTION, MAX_RESOLUTION
from .core.optional import require
from .kernel.intervals import interval_z

KINDS = ("spatial", "regions", "count-of-counts", "over-time")
RELEASE_KEYS = {"spatial": {"kind", "method", "epsilon", "params", "out", "resolution", "crs"},
                "regions": {"kind", "regions", "id", "parent", "name", "layer", "epsilon", "out", "pooling"},
                "count-of-counts": {"kind", "group", "levels", "hierarchy", "max_size", "method", "span", "epsilon",
                                    "out"},
                "over-time": {"kind", "time", "window", "span", "epsilon", "out", "unit", "mechanism", "user",
                              "max_points_per_window", "max_points_per_user", "w", "partition", "grid_level",
                              "partition_fraction", "fanout"}}
DATA_KEYS = {"path", "lon", "lat", "domain"}
MAX_RELEASES = 1_000       # releases in one job: each is read, planned and written in turn
BUILD_ARGUMENTS = {"points", "domain", "method", "epsilon", "seed", "outside", "nonfinite", "resolution", "user",
                   "max_points_per_user", "progress", "lon", "lat", "memory_limit", "passes", "nonnegative",
                   "workload", "privacy_budget"}    # pv.build's own: never a method parameter


JobError = JobFileError     # this module's short name for psdviz.errors.JobFileError


@dataclass
class JobRelease:
    kind: str
    spec: dict
    line: int


@dataclass
class Job:
    path: Path
    data: dict
    budget: str | None
    releases: list[JobRelease] = field(default_factory=list)

    @property
    def epsilon(self) -> float:
        return math.fsum(float(r.spec["epsilon"]) for r in self.releases)


def _lines(node) -> int:
    mark = getattr(node, "start_mark", None)
    return mark.line + 1 if mark is not None else 0


def load_job(path) -> Job:
    """Read and check a job file (:class:`~psdviz.errors.JobFileError` naming the line on the first problem)."""
    yaml = require("yaml", "job files")
    path = Path(path)
    try:
        text = path.read_text()
        node = yaml.compose(text)
        doc = yaml.safe_load(text)
    except OSError as exc:
        raise JobError(f"cannot read the job file {path}: {exc.strerror or exc}") from None
    except RecursionError:
        raise JobError(f"{path.name}: nested too deeply (a job is a mapping of data, releases and budget, a few "
                       "levels deep)") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        raise JobError(f"{path.name}{where}: not valid YAML: {getattr(exc, 'problem', exc)}") from None
    if not isinstance(doc, dict) or node is None:
        raise JobError(f"{path.name}: a job file is a mapping with data, releases and optionally budget")
    _no_repeated_keys(node, path.name)
    at = {k.value: v for k, v in node.value}
    unknown = set(doc) - {"data", "releases", "budget"}
    if unknown:
        key = sorted(unknown)[0]
        raise JobError(f"{path.name} line {_lines(next(k for k, _ in node.value if k.value == key))}: unknown key "
                       f"{key!r} (a job has data, releases and budget)")
    data = doc.get("data")
    if not isinstance(data, dict) or set(data) - DATA_KEYS or not {"path", "lon", "lat", "domain"} <= set(data):
        raise JobError(f"{path.name} line {_lines(at.get('data'))}: data needs path, lon, lat and domain "
                       f"[xmin, ymin, xmax, ymax] (and nothing else)")
    dom = data["domain"]
    if not (isinstance(dom, list) and len(dom) == 4 and all(isinstance(v, (int, float)) for v in dom)):
        raise JobError(f"{path.name} line {_lines(at.get('data'))}: data.domain must be [xmin, ymin, xmax, ymax]")
    try:
        Domain(*dom)
    except PsdvizError as exc:
        raise JobError(f"{path.name} line {_lines(at.get('data'))}: {exc}") from None
    rels = doc.get("releases")
    if not isinstance(rels, list) or not rels:
        raise JobError(f"{path.name} line {_lines(at.get('releases'))}: releases must be a list of one or more")
    if len(rels) > MAX_RELEASES:
        raise JobError(f"{path.name} line {_lines(at.get('releases'))}: {len(rels):,} releases; a job holds at most "
                       f"{MAX_RELEASES:,} (split it into several jobs drawing from one budget)")
    job = Job(path, data, doc.get("budget"), [])
    for item, n in zip(rels, at["releases"].value):
        job.releases.append(_release(item, _lines(n), path.name))
    outs = [r.spec["out"] for r in job.releases]
    if len(set(outs)) != len(outs):
        raise JobError(f"{path.name}: two releases write the same file ({next(o for o in outs if outs.count(o) > 1)})")
    return job


def _no_repeated_keys(node, name: str) -> None:
    """Refuse a mapping that names a key twice (YAML keeps the last one silently: ``epsilon: 0.5`` then
    ``epsilon: 9`` would build at 9), naming the line of the second."""
    stack = [node]
    while stack:
        item = stack.pop()
        value = getattr(item, "value", None)
        if not isinstance(value, list):
            continue
        if type(item).__name__ == "MappingNode":
            seen: set = set()
            for key, child in value:
                if key.value in seen:
                    raise JobError(f"{name} line {_lines(key)}: {key.value!r} is given twice in one mapping (keep one)")
                seen.add(key.value)
                stack.append(child)
        else:
            stack.extend(value)


def _method_params(item: dict, line: int, name: str) -> None:
    """A spatial release's params: the method's own parameters, checked as build checks them."""
    from .methods.param_info import coerce_params
    params = item.get("params", {})
    own = sorted(set(params) & BUILD_ARGUMENTS)
    if own:
        where = "beside kind" if own[0] in RELEASE_KEYS["spatial"] else "not in a job (build's own argument)"
        raise JobError(f"{name} line {line}: params.{own[0]} is not a parameter of {item.get('method', 'auto')!r} "
                       f"but of the build itself ({where}); params holds the method's parameters only")
    try:
        coerce_params(item.get("method", "auto"), dict(params))
    except PsdvizError as exc:
        raise JobError(f"{name} line {line}: {exc}") from None


def _release(item, line: int, name: str) -> JobRelease:
    if not isinstance(item, dict) or item.get("kind") not in KINDS:
        raise JobError(f"{name} line {line}: each release needs kind: one of {', '.join(KINDS)}")
    kind = item["kind"]
    extra = set(item) - RELEASE_KEYS[kind]
    if extra:
        raise JobError(f"{name} line {line}: a {kind} release has no {sorted(extra)[0]!r} (it takes "
                       f"{', '.join(sorted(RELEASE_KEYS[kind]))})")
    eps = item.get("epsilon")
    if not isinstance(eps, (int, float)) or isinstance(eps, bool) or not 0 < eps <= 10:
        raise JobError(f"{name} line {line}: epsilon must be a number in (0, 10] (got {eps!r})")
    if not isinstance(item.get("out"), str):
        raise JobError(f"{name} line {line}: out must name the file to write")
    if kind == "spatial":
        from .methods.registry import methods
        if item.get("method", "auto") not in methods():
            raise JobError(f"{name} line {line}: method must be one of {', '.join(methods())}")
        if not isinstance(item.get("params", {}), dict):
            raise JobError(f"{name} line {line}: params must be a mapping of the method's parameters")
        _method_params(item, line, name)
        res = item.get("resolution", DEFAULT_RESOLUTION)
        if not isinstance(res, int) or isinstance(res, bool) or not 1 <= res <= MAX_RESOLUTION:
            raise JobError(f"{name} line {line}: resolution must be a whole number in [1, {MAX_RESOLUTION}]")
        if not item["out"].endswith(".parquet"):
            raise JobError(f"{name} line {line}: a spatial release is written as .parquet")
    elif kind == "regions" and not isinstance(item.get("regions"), str):
        raise JobError(f"{name} line {line}: a regions release needs regions: a bundled layer or a layer file")
    elif kind == "count-of-counts":
        return JobRelease(kind, _coco_spec(item, line, name), line)
    elif kind == "over-time":
        return JobRelease(kind, _time_spec(item, line, name), line)
    return JobRelease(kind, {"method": "auto", "params": {}, **item}, line)


def _time_spec(item: dict, line: int, name: str) -> dict:
    """An over-time release's keys checked as :func:`psdviz.build_over_time` checks them (no data read)."""
    from .temporal.axis import TimeAxis
    from .temporal.mechanisms import check_mechanism
    if not isinstance(item.get("time"), str):
        raise JobError(f"{name} line {line}: an over-time release needs time: the timestamp column")
    if not item["out"].endswith(".json"):
        raise JobError(f"{name} line {line}: an over-time release is written as .json")
    spec = {"window": "1d", **item}
    try:
        span = spec.get("span")
        if not isinstance(span, list) or len(span) != 2:
            raise JobError("span must be [start, end], the public time span")
        TimeAxis.over([str(v) for v in span], spec["window"])
        unit = spec.get("unit", "event")
        check_mechanism(unit, spec.get("mechanism"))
    except ValueError as exc:
        raise JobError(f"{name} line {line}: {exc}") from None
    if unit != "event" and spec.get("user") is not None and not isinstance(spec["user"], str):
        raise JobError(f"{name} line {line}: user must name the user id column")
    return spec


def release_unit(r: JobRelease):
    """The privacy unit a job's release protects (for the budget check before any data is read)."""
    from .over_time import unit_over_time
    from .temporal import privacy_unit
    if r.kind != "over-time" or r.spec.get("unit", "event") == "event":
        return privacy_unit("event")
    s = r.spec
    return unit_over_time(s["unit"], [str(v) for v in s["span"]], s.get("window", "1d"), s.get("max_points_per_window"),
                          s.get("max_points_per_user"), s.get("w"))


def _coco_spec(item: dict, line: int, name: str) -> dict:
    """A count-of-counts release's keys checked (group, levels, hierarchy, max_size, method, span, .json)."""
    from .coco.publish import METHODS
    levels = item.get("levels")
    if not isinstance(item.get("group"), str):
        raise JobError(f"{name} line {line}: a count-of-counts release needs group: the column naming each row's group")
    if not (isinstance(levels, list) and levels and all(isinstance(c, str) for c in levels)):
        raise JobError(f"{name} line {line}: levels must list the place columns, coarsest first")
    if not isinstance(item.get("hierarchy"), str):
        raise JobError(f"{name} line {line}: hierarchy must name a public CSV of the places (columns {levels})")
    k = item.get("max_size")
    if not isinstance(k, int) or isinstance(k, bool) or k < 1:
        raise JobError(f"{name} line {line}: max_size must be a whole number >= 1 (groups larger are truncated)")
    method = item.get("method", "hc")
    if method not in METHODS:
        raise JobError(f"{name} line {line}: method must be one of {', '.join(METHODS)}")
    if item.get("span", "error") not in ("error", "split"):
        raise JobError(f"{name} line {line}: span must be error or split")
    if not item["out"].endswith(".json"):
        raise JobError(f"{name} line {line}: a count-of-counts release is written as .json")
    return {"method": method, "span": "error", **item}


def columns(job: Job) -> list[str]:
    """Every column the job reads from its data, in one read: the coordinates, then each count-of-counts
    release's group and place columns."""
    out = [job.data["lon"], job.data["lat"]]
    for r in job.releases:
        if r.kind == "count-of-counts":
            out += [c for c in [r.spec["group"], *r.spec["levels"]] if c not in out]
        if r.kind == "over-time":
            out += [c for c in (r.spec["time"], r.spec.get("user")) if c is not None and c not in out]
    return out


def plan(job: Job) -> Iterator[str]:
    """The job's plan in words, a line at a time, from public facts only (no data read)."""
    yield from [f"job {job.path.name}: {len(job.releases)} releases of {job.data['path']}, epsilon "
             f"{job.epsilon:g} in all (sequential composition)" + (f", drawn from {job.budget}" if job.budget else "")]
    for r in job.releases:
        eps = float(r.spec["epsilon"])
        if r.kind == "spatial":
            yield (f"- line {r.line}: {r.spec['method']} at epsilon {eps:g} -> {r.spec['out']}; "
                   + _spatial_error(r.spec, Domain(*job.data["domain"])))
        elif r.kind == "count-of-counts":
            n = len(r.spec["levels"]) + 1
            yield (f"- line {r.line}: count-of-counts of {r.spec['group']} groups over "
                   f"{' > '.join(r.spec['levels'])} ({r.spec['method']}) at epsilon {eps:g} ({eps / n:.3g} per "
                   f"level over {n} levels, root included) -> {r.spec['out']}; its error depends on the data")
        elif r.kind == "over-time":
            yield (f"- line {r.line}: counts over time of {r.spec['time']} in windows of {r.spec['window']} over "
                   f"{r.spec['span'][0]} to {r.spec['span'][1]} ({r.spec.get('unit', 'event')}-level) at epsilon "
                   f"{eps:g} -> {r.spec['out']}")
        else:
            yield (f"- line {r.line}: counts of {r.spec['regions']} at epsilon {eps:g} -> {r.spec['out']}; "
                   "each level's region counts carry two-sided geometric noise at epsilon / levels "
                   f"(standard deviation about {math.sqrt(2) / eps:.3g} times the number of levels)")


def _spatial_error(spec: dict, domain: Domain) -> str:
    """Expected standard errors of centred rectangles of 1 % and 10 % of the domain, where the method's
    noise does not depend on the data (built on no points: no data read); otherwise said in words."""
    if spec["method"] != "quadtree":
        return ("expected error depends on the data (its structure is chosen privately), so it is not known "
                "before the data are read")
    import warnings

    from .api import build
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rel = build(np.zeros((0, 2)), domain, "quadtree", float(spec["epsilon"]), seed=0,
                    **{"prune": None, **spec.get("params", {})})
    out = []
    for share in (0.01, 0.1):
        r = domain.centred_rect(share)
        noise = interval_z(0.95) * math.sqrt(rel.answer_variance(r)[0])
        out.append(f"{share:.0%} of the domain +- {noise:,.1f} (the noise's part of its 95 % interval)")
    return "expected error (before pruning) of a centred rectangle of " + ", ".join(out)


# ---- checked against the world before any data is read ------------------------------------------------------

@dataclass
class Prepared:
    """What a job needs besides its data, loaded and checked before any row is read: each regions release's
    layer and each count-of-counts release's hierarchy, by release index."""

    layers: dict[int, object] = field(default_factory=dict)
    hierarchies: dict[int, object] = field(default_factory=dict)


def preflight(job: Job) -> Prepared:
    """Check the whole job before any data row is read or any epsilon drawn (:class:`JobError` naming the line):
    the data files' column names (Parquet schemas, CSV headers), every layer and hierarchy (loaded once and
    returned), every output's folder writable."""
    base, name = job.path.parent, job.path.name
    _check_columns(base / job.data["path"], columns(job), name)
    prepared = Prepared()
    for i, r in enumerate(job.releases):
        try:
            if r.kind == "regions":
                prepared.layers[i] = job_layer(r.spec, base)
            elif r.kind == "count-of-counts":
                prepared.hierarchies[i] = job_hierarchy(r.spec, base)
        except (ValueError, OSError) as exc:
            raise JobError(f"{name} line {r.line}: {exc}") from None
        _check_writable(base / r.spec["out"], r.line, name)
    return prepared


def _check_columns(pattern: Path, wanted: list[str], name: str) -> None:
    """Every file of the data holds the columns the job reads: its schema or header only."""
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    from .sources.files import expand_paths, file_kind
    try:
        paths = expand_paths(str(pattern))
        for p in paths:
            if file_kind(p) == "parquet":
                have = pq.read_schema(p).names
            else:
                opts = pcsv.ParseOptions(delimiter="\t" if p.lower().endswith(".tsv") else ",")
                with pcsv.open_csv(p, parse_options=opts) as reader:    # the header and the first block only
                    have = reader.schema.names
            missing = [c for c in wanted if c not in have]
            if missing:
                raise JobError(f"{p} has no column {missing[0]!r} (its columns: {', '.join(have[:20])})")
    except (ValueError, OSError) as exc:
        raise JobError(f"{name}: data: {exc}") from None
    except Exception as exc:        # pyarrow's own errors: an unreadable file
        raise JobError(f"{name}: data: cannot read {pattern}: {exc}") from None


def _check_writable(out: Path, line: int, name: str) -> None:
    folder = out.parent
    if not folder.is_dir():
        raise JobError(f"{name} line {line}: cannot write {out}: the folder {folder} does not exist")
    if out.is_dir() or not os.access(folder, os.W_OK) or (out.exists() and not os.access(out, os.W_OK)):
        raise JobError(f"{name} line {line}: cannot write {out} (not a writable file in a writable folder)")


def job_layer(spec: dict, base: Path):
    """A job's region layer: a bundled one by name or a file with its id column."""
    from . import regions as rg
    if spec["regions"] in rg.BUNDLED:
        return rg.bundled(spec["regions"])
    if "id" not in spec:
        raise JobError(f"regions {spec['regions']!r}: a layer file needs id: its region id column")
    return rg.Regions.from_file(base / spec["regions"], id=spec["id"], parent=spec.get("parent"),
                                name=spec.get("name"), layer=spec.get("layer"))


def job_hierarchy(spec: dict, base: Path):
    """A count-of-counts release's public hierarchy, from its own CSV (never from the data)."""
    import pandas as pd

    from . import coco
    path = base / spec["hierarchy"]
    try:
        places = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (OSError, ValueError) as exc:
        raise JobError(f"hierarchy {spec['hierarchy']}: cannot read it ({exc})") from None
    missing = [c for c in spec["levels"] if c not in places.columns]
    if missing:
        raise JobError(f"hierarchy {spec['hierarchy']} has no column {missing[0]!r}")
    return coco.Hierarchy.from_columns(places, spec["levels"], root="all")


def job_coco(spec: dict, cols: dict, hierarchy):
    """A job's count-of-counts release: the rows' groups and places in the public hierarchy, the release's
    epsilon split evenly over the hierarchy's levels."""
    import pandas as pd

    from . import coco
    table = coco.group_records(cols[spec["group"]], pd.Series(cols[spec["levels"][-1]]).astype(str), hierarchy,
                               spec["max_size"], span=spec["span"])
    n = hierarchy.n_levels
    return coco.publish(table, hierarchy, spec["method"], epsilon=[float(spec["epsilon"]) / n] * n)
