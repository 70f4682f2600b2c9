"""``psdviz build``: a release file from points (spatial, or over time with ``--time``)."""
from __future__ import annotations

import argparse
import sys
import warnings

import numpy as np

from .. import Domain
from ..api import EmptyReleaseWarning, build
from ..errors import ParameterError
from .inputs import (
    check_common_options,
    check_crs,
    check_input_options,
    check_params_are_the_methods,
    input_counts,
    open_budget,
    outside_warning,
    points_input,
    workload_of,
)
from .output import print_ledger, print_notes, progress_bar, say, warning_line, write_drawn
from .parsing import TIME_ONLY


def run_time_build(a: argparse.Namespace) -> int:
    """``psdviz build ... --time COL``: a release over time written as its JSON file."""
    from ..over_time import build_over_time, unit_over_time
    from ..temporal import check_mechanism
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
        budget.check(a.epsilon, 0.0, unit_over_time(unit, tuple(a.span), a.window, a.max_points_per_window,
                                                     a.max_points_per_user, a.w))
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
    say("build", map(warning_line, said))
    path = write_drawn(budget, rel, "over-time", a.out, lambda p: rel.save(p, allow_seeded=a.allow_seeded))
    print_ledger(rel)
    print_notes(rel)
    print(f"wrote {path}: {rel.mechanism}, {rel.partition.size:,} cells x {rel.windows:,} windows of "
          f"{rel.axis.label()}, epsilon {rel.epsilon:g} per {rel.privacy_unit}")
    if rel.randomness.seeded:
        print(f"warning: {rel.randomness.warning()['warning']}", file=sys.stderr)
    return 0


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
    with points_input(a, extra) as points, warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        warnings.simplefilter("ignore", EmptyReleaseWarning)     # said below, with the counts
        with progress_bar() as update:
            rel = build(points, domain, a.method, a.epsilon, a.seed, nonfinite="drop", progress=update, **extra)
        memory = points if isinstance(points, np.ndarray) else None
        print(input_counts(rel, a), file=sys.stderr)
        outside = outside_warning(rel, a, domain, memory)
    say("build", [outside, *map(warning_line, said)])
    budget = open_budget(a)
    path = write_drawn(budget, rel, "spatial", a.out, lambda p: rel.save(p, crs=a.crs, allow_seeded=a.allow_seeded))
    print_ledger(rel)
    print_notes(rel)
    print(f"wrote {path}: {rel.method}" + (f" ({rel.params['chosen']})" if rel.method == "auto" else "")
          + f", {int(rel.tree.is_leaf.sum()):,} cells, epsilon {rel.epsilon:g} per {rel.privacy_unit}")
    if rel.randomness.seeded:
        print(f"warning: {rel.randomness.warning()['warning']}", file=sys.stderr)
    return 0
