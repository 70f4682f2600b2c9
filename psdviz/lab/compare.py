"""The accuracy lab: run methods x epsilons x query shapes x trials and return a tidy table.

The protocol follows ICDE'12 section 8.1 (Cormode et al.): for each query shape draw a fixed set of
queries with a non-zero true answer, answer them from every release, and report the relative error
of Qardaji et al. (``metrics.relative_error``: |est - true| / max(true, 0.001 N)). The same queries
are used for every method, epsilon and trial (a paired comparison); each trial is a fresh build.

Engine only (no UI imports). The app calls :func:`make_queries` once and :func:`run_cell` per
(variant, epsilon) so that each cell can be cached on its own and a progress bar advanced between
cells; :func:`run_experiment` does the whole grid with an optional progress callback.

A variant with ``planned=True`` is given the experiment's own query rectangles as its workload
(``pv.build(..., workload=...)``: the quadtree plans its budget for them), as DPBench gives DAWA-2D its
test queries. Where those queries were drawn from the data (centred on data points, or kept for a
non-zero true answer) the rectangles depend on the data, so such a build shows what planning for known
queries is worth but is not a private release of the data; the app says so.

Randomness: with an integer ``seed`` the workload and every build are reproducible; the seed of a
build is derived from (seed, variant label, epsilon, trial) so adding a method or an epsilon does
not change the other cells. ``seed=None`` draws everything from OS entropy.
"""
from __future__ import annotations

import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..api import build
from ..core.domain import Domain, prepare_points
from ..core.errors import InputDataError, ParameterError
from ..core.validation import check_epsilon, check_int
from ..methods.param_info import coerce_params
from ..methods.registry import accepts_workload, get_builder, methods, references
from ..query.truth import PointIndex
from .metrics import absolute_error, relative_error
from .workloads import centered_queries, grid_queries, nonempty, shape_queries

WORKLOAD_KINDS = ("shape", "centered", "dpbench")
MAX_QUERIES = 5000
MAX_TRIALS = 100
COLUMNS = ["method", "algorithm", "epsilon", "shape", "trial", "query", "estimate", "truth",
           "rel_error", "abs_error", "build_seconds"]

Progress = Callable[[int, int, str], None]


@dataclass(frozen=True)
class Variant:
    """A labelled method configuration, e.g. ``Variant("quad-geo", "quadtree", (("budget", "geometric"),))``.

    ``params`` is a tuple of (name, value) pairs so that a Variant is hashable (cache keys).
    """

    label: str
    method: str
    params: tuple[tuple[str, object], ...] = ()
    planned: bool = False   # given the experiment's own query rectangles as its workload (``workload=``)

    @property
    def kwargs(self) -> dict:
        return dict(self.params)

    def check(self) -> None:
        """ValueError if the method is unknown, a parameter does not belong to it or is out of range, or
        the variant is planned for the queries and the method plans for none."""
        get_builder(self.method)
        coerce_params(self.method, self.kwargs)
        if self.planned and not accepts_workload(self.method):
            raise ParameterError(f"{self.label}: {self.method} does not plan its measurements for queries "
                             "(the quadtree, or auto when it picks the quadtree, does)")

    @property
    def private(self) -> bool:
        return self.method not in references()


def variant(label: str, method: str, planned: bool = False, **params) -> Variant:
    return Variant(label, method, tuple(sorted(params.items())), planned)


@dataclass(frozen=True)
class Workload:
    """Query shapes and how to place them.

    ``kind="shape"``: ``sizes`` are (width, height) in data units, placed uniformly in the domain.
    ``kind="centered"``: ``sizes`` are (area_fraction, aspect) pairs, rectangles of that share of
    the domain's area centred on random data points (clipped to the domain).
    ``kind="dpbench"``: ``sizes`` is one (m, n) grid; the DPBench protocol's fixed query set, corners on
    that grid over the domain (``lab/dpbench.py``; empty answers are allowed, as in the protocol).
    ``queries`` per shape; with ``nonempty`` only queries with a non-zero true answer are kept
    (ICDE'12: "600 queries that have a non-zero answer").
    """

    kind: str
    sizes: tuple[tuple[float, float], ...]
    queries: int = 200
    nonempty: bool = True

    def check(self, domain: Domain) -> None:
        if self.kind not in WORKLOAD_KINDS:
            raise ParameterError(f"workload kind must be one of {WORKLOAD_KINDS} (got {self.kind!r})")
        if not self.sizes:
            raise ParameterError("workload sizes: give at least one query shape")
        check_int(self.queries, "queries", 1, MAX_QUERIES)
        for a, b in self.sizes:
            if self.kind == "shape" and not (0 < a <= domain.width and 0 < b <= domain.height):
                raise ParameterError(f"query shape ({a:g}, {b:g}) must be positive and fit in the domain "
                                 f"({domain.width:g} x {domain.height:g})")
            if self.kind == "dpbench" and not (float(a).is_integer() and float(b).is_integer() and a >= 1 and b >= 1):
                raise ParameterError(f"the DPBench workload needs the histogram's grid (m, n) as integers "
                                 f"(got {a:g}, {b:g})")
            if self.kind == "centered" and not (0 < a <= 1 and b > 0):
                raise ParameterError(f"centred query area fraction must lie in (0, 1] and aspect > 0 "
                                 f"(got {a:g}, {b:g})")

    def labels(self) -> list[str]:
        if self.kind == "dpbench":
            return [f"DPBench queries on {int(a)} x {int(b)}" for a, b in self.sizes]
        if self.kind == "shape":
            return [f"({a:.3g}, {b:.3g})" for a, b in self.sizes]
        return [f"{a:.3g} of area" + ("" if b == 1 else f", aspect {b:g}") for a, b in self.sizes]


@dataclass(frozen=True)
class QuerySet:
    """The workload drawn on the data: rectangles, their true counts and shape labels."""

    rects: np.ndarray      # (k, 4)
    truth: np.ndarray      # (k,) exact counts (evaluation only, never part of a release)
    shape: np.ndarray      # (k,) shape label of each query
    query: np.ndarray      # (k,) index of the query within its shape
    n_points: int          # N used for the relative-error floor rho = 0.001 N


def _rng(seed: int | None, *keys: object) -> np.random.Generator:
    if seed is None:
        return np.random.default_rng()
    words = [int(seed) & 0xFFFFFFFF] + [zlib.crc32(repr(k).encode()) for k in keys]
    return np.random.default_rng(np.random.SeedSequence(words))


def build_seed(seed: int | None, label: str, epsilon: float, trial: int) -> int | None:
    """The seed of one build: derived from the experiment seed, the cell and the trial."""
    if seed is None:
        return None
    return int(_rng(seed, "build", label, float(epsilon), int(trial)).integers(0, 2**62))


def inside_points(points, domain: Domain) -> np.ndarray:
    """The points the builders will use (outside rows dropped); a new array."""
    return prepare_points(points, domain, outside="drop", nonfinite="drop").xy


def make_queries(points, domain: Domain, workload: Workload, seed: int | None = 0,
                 index: PointIndex | None = None) -> QuerySet:
    """Draw the workload on the data inside the domain and compute the true answers."""
    workload.check(domain)
    xy = inside_points(points, domain)
    index = index if index is not None else PointIndex(xy)
    rng = _rng(seed, "workload")
    rects, truth, shape, qid = [], [], [], []
    for (a, b), label in zip(workload.sizes, workload.labels()):
        if workload.kind == "dpbench":
            make = lambda k, a=a, b=b: grid_queries(domain, int(a), int(b), k)
        elif workload.kind == "shape":
            make = lambda k, a=a, b=b: shape_queries(domain, a, b, k, rng)
        else:
            make = lambda k, a=a, b=b: centered_queries(xy, domain, a, k, rng, aspect=b)
        if workload.nonempty and workload.kind != "dpbench":
            try:
                r, t = nonempty(make, index, workload.queries)
            except InputDataError as exc:
                raise InputDataError(f"query shape {label}: {exc}") from None
        else:
            r = make(workload.queries)
            t = index.count(r)
        rects.append(r)
        truth.append(t)
        shape += [label] * len(t)
        qid.append(np.arange(len(t)))
    return QuerySet(np.concatenate(rects), np.concatenate(truth), np.array(shape, dtype=object),
                    np.concatenate(qid), int(xy.shape[0]))


def run_cell(points, domain: Domain, var: Variant, epsilon: float, queries: QuerySet, trials: int = 1,
             seed: int | None = 0, reports: list | None = None, progress=None) -> pd.DataFrame:
    """Build ``var`` at ``epsilon`` ``trials`` times and answer the whole query set each time.

    If ``reports`` is a list, each build's privacy report (``Release.report()``) is appended to it.
    ``progress(trial, done, total, what)``: the engine's per-pass progress of each build.
    """
    epsilon = check_epsilon(epsilon)
    trials = check_int(trials, "trials", 1, MAX_TRIALS)
    var.check()
    frames = []
    for t in range(trials):
        start = time.perf_counter()
        plan: dict[str, Any] = {"workload": queries.rects} if var.planned else {}
        rel = build(points, domain, var.method, epsilon, seed=build_seed(seed, var.label, epsilon, t),
                    outside="drop", nonfinite="drop", progress=None if progress is None else
                    (lambda d, n, w, t=t: progress(t, d, n, w)), **var.kwargs, **plan)
        seconds = time.perf_counter() - start
        est = rel.answer(queries.rects)
        if reports is not None:
            reports.append(rel.report())
        frames.append(pd.DataFrame({
            "method": var.label, "algorithm": var.method, "epsilon": epsilon, "shape": queries.shape,
            "trial": t, "query": queries.query, "estimate": est, "truth": queries.truth,
            "rel_error": relative_error(est, queries.truth, queries.n_points),
            "abs_error": absolute_error(est, queries.truth), "build_seconds": seconds}))
    return pd.concat(frames, ignore_index=True)[COLUMNS]


def check_grid(variants, epsilons) -> tuple[list[Variant], list[float]]:
    variants, epsilons = list(variants), [check_epsilon(e) for e in epsilons]
    if not variants:
        raise ParameterError("methods: choose at least one method")
    if not epsilons:
        raise ParameterError("epsilons: choose at least one epsilon")
    labels = [v.label for v in variants]
    if len(set(labels)) != len(labels):
        raise ParameterError(f"method labels must be distinct (got {labels})")
    for v in variants:
        v.check()
    return variants, epsilons


def run_experiment(points, domain: Domain, variants, epsilons, workload: Workload, trials: int = 1,
                   seed: int | None = 0, progress: Progress | None = None) -> pd.DataFrame:
    """The full grid as one tidy DataFrame (columns :data:`COLUMNS`), one row per query answer.

    ``progress(done, total, label)`` is called after the workload is drawn and after every
    (variant, epsilon) cell.
    """
    variants, epsilons = check_grid(variants, epsilons)
    xy = inside_points(points, domain)
    qs = make_queries(xy, domain, workload, seed)
    cells = [(v, e) for v in variants for e in epsilons]
    if progress:
        progress(0, len(cells), "queries drawn")
    out = []
    for i, (v, e) in enumerate(cells, 1):
        out.append(run_cell(xy, domain, v, e, qs, trials, seed))
        if progress:
            progress(i, len(cells), f"{v.label} at epsilon {e:g}")
    return pd.concat(out, ignore_index=True)


def summarize(results: pd.DataFrame) -> pd.DataFrame:
    """Median / mean / 90th-percentile relative error and median build time per cell and shape."""
    g = results.groupby(["method", "epsilon", "shape"], sort=False)
    return g.agg(median_rel_error=("rel_error", "median"), mean_rel_error=("rel_error", "mean"),
                 p90_rel_error=("rel_error", lambda s: float(np.quantile(s, 0.9))),
                 mean_abs_error=("abs_error", "mean"), build_seconds=("build_seconds", "median"),
                 answers=("rel_error", "size")).reset_index()


def available_methods() -> tuple[str, ...]:
    """Private methods first, then the non-private references."""
    return methods() + references()
