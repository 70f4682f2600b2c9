"""The release over time: private counts of every cell of a shared partition in every window of a public span.

It answers the release protocol (``epsilon``, ``ledger``, ``privacy_unit``, ``report()``, ``audit()``,
``save(path)``; ``pv.load_release`` opens the file) and queries over space and time: ``answer(rects, first,
last)`` for any rectangle over any range of windows, its noise variance, the modelled error of the cells its
edges cut (and, for w-event releases, of the windows that repeat an older publication), the whole interval
(:mod:`psdviz.kernel.intervals`), ``series(rect)`` the time series of a rectangle, ``answer_regions`` for a
region layer. Every answer is a sum of released estimates: post-processing, no budget.

A rectangle takes each cell in proportion to the covered share of its area (the uniformity assumption); the
cells' windows are independent between cells and share one time model, so the noise variance of a rectangle
over a range is the range's variance for one cell (:mod:`psdviz.temporal.mechanisms`) times the sum of the
squared shares. The cut cells' error is the quasi-binomial model of :mod:`psdviz.query.uniformity`, its factor
kappa measured from how unevenly the cells' pooled estimates (over the whole span) sit inside their dyadic
parents. A cell's points are taken to sit inside it the same way in every window (the places stay, the counts
change), so the covered part deviates from its area share by the same fraction in every window: for a range holding
R of the cell's P pooled events the variance is a (1 - a) R (1 + (kappa - 1) R / P), binomial for a few events and
kappa a (1 - a) R over the whole span.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import ClassVar, Literal, overload

import numpy as np
import pandas as pd

from ..core.errors import ParameterError, ReleaseFileError
from ..core.ledger import Ledger
from ..core.privacy_unit import PrivacyUnit
from ..core.rng import Randomness, check_seeded_export
from ..kernel import json_release as jr
from ..kernel.file_checks import bad, loaded_unit
from ..kernel.freeze import freeze
from ..kernel.header import ReleaseHeader
from ..kernel.intervals import whole_interval
from ..kernel.protocol import owner_audit
from ..query.uniformity import overdispersion
from . import user_bound as ub
from .axis import TimeAxis
from .cells import Partition
from .mechanisms import FlatModel, StreamModel, TreeTimeModel, model_from_data, one_whole_a_level

FORMAT = "psdviz-over-time"
KIND = "over-time"
MAX_VALUES = 60_000_000      # noisy values a file may hold (cells x measured intervals)


@dataclass(frozen=True)
class TimeRelease:
    """Private counts per (cell, window) of a public partition and time axis (immutable once built)."""

    axis: TimeAxis
    partition: Partition
    mechanism: str
    noisy: np.ndarray                # (cells, measured values): windows (flat, bd, ba) or tree nodes
    model: FlatModel | TreeTimeModel | StreamModel
    params: dict
    ledger: Ledger
    randomness: Randomness
    notes: tuple[str, ...] = ()
    privacy_unit: PrivacyUnit = field(default_factory=PrivacyUnit)
    input_report: dict = field(default_factory=dict)   # the owner's exact input counts: audit() only
    estimate: np.ndarray = field(init=False)          # (cells, windows), derived from the noisy values
    kappa: np.ndarray = field(init=False)             # (cells,) the cut cells' overdispersion factor
    kind: ClassVar[str] = KIND
    private: ClassVar[bool] = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "estimate", self.model.estimate(self.noisy))
        object.__setattr__(self, "kappa", self._kappa())
        freeze(self, arrays=("noisy", "estimate", "kappa"), tuples=("notes",), dicts=("params", "input_report"))

    def _kappa(self) -> np.ndarray:
        pooled = self.estimate.sum(axis=1)
        var = float(self.model.variance(np.ones((1, self.axis.windows)))[0])
        tree, rows = self.partition.family_tree(pooled, var)
        k = overdispersion(tree)
        out = np.ones(self.partition.size)
        out[rows] = k[tree.is_leaf]
        return out

    @property
    def epsilon(self) -> float:
        return self.ledger.budget

    @property
    def method(self) -> str:
        """The time mechanism (``mechanism``, the name ``build_over_time`` takes it by)."""
        return self.mechanism

    @cached_property
    def header(self) -> ReleaseHeader:
        """The facts every release kind states first (:class:`~psdviz.kernel.header.ReleaseHeader`)."""
        return ReleaseHeader(self.kind, self.method, self.params, self.ledger, self.randomness, self.privacy_unit,
                             notes=self.notes)

    @property
    def windows(self) -> int:
        return self.axis.windows

    # ---- queries -------------------------------------------------------------------------------------------
    def _ranges(self, k: int, first, last) -> tuple[np.ndarray, np.ndarray]:
        def per_rect(v):
            return [v] * k if v is None or np.ndim(v) == 0 else list(v)
        f, g = per_rect(first), per_rect(last)
        if len(f) != k or len(g) != k:
            raise ParameterError(f"first and last must be one window each, or one per rectangle ({k})")
        ab = np.array([self.axis.window_range(a, b) for a, b in zip(f, g)], dtype=np.int64).reshape(k, 2)
        return ab[:, 0], ab[:, 1]

    def _weights(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        t = np.arange(self.windows)
        return ((t >= a[:, None]) & (t < b[:, None])).astype(float)

    def shares(self, rects) -> np.ndarray:
        """(k, cells): the share of each cell's area each rectangle covers."""
        from ..core.domain import validate_rects
        q = validate_rects(rects)
        c = self.partition.rects()
        ox = np.clip(np.minimum(q[:, None, 2], c[None, :, 2]) - np.maximum(q[:, None, 0], c[None, :, 0]), 0, None)
        oy = np.clip(np.minimum(q[:, None, 3], c[None, :, 3]) - np.maximum(q[:, None, 1], c[None, :, 1]), 0, None)
        area = (c[:, 2] - c[:, 0]) * (c[:, 3] - c[:, 1])
        return ox * oy / area[None, :]

    def _parts(self, rects, first, last):
        share = self.shares(rects)
        a, b = self._ranges(share.shape[0], first, last)
        cum = np.zeros((self.partition.size, self.windows + 1))
        np.cumsum(self.estimate, axis=1, out=cum[:, 1:])
        in_range = (cum[:, b] - cum[:, a]).T            # (k, cells): each cell's estimate over each range
        return share, a, b, in_range

    def answer(self, rects, first=None, last=None) -> np.ndarray:
        """Private estimates of the events in each rectangle [x0, y0, x1, y1] over windows ``first`` to
        ``last`` (inclusive; window indices or timestamps, one for all rectangles or one each; None: the
        span's ends)."""
        share, _, _, in_range = self._parts(rects, first, last)
        return (share * in_range).sum(axis=1)

    def answer_variance(self, rects, first=None, last=None) -> np.ndarray:
        """The exact variance of each answer's noise (data-independent)."""
        share = self.shares(rects)
        a, b = self._ranges(share.shape[0], first, last)
        return (share ** 2).sum(axis=1) * self.model.variance(self._weights(a, b))

    def answer_model_error(self, rects, first=None, last=None) -> np.ndarray:
        """The modelled standard deviation of the error that is not the noise: the cells the rectangle's edges
        cut (:func:`psdviz.query.uniformity.cut_cell_variance`'s model) and, for w-event releases, the windows
        that repeat an older publication (at most the threshold their noisy test compared with, a cell)."""
        share, a, b, in_range = self._parts(rects, first, last)
        cut = (self._cut_factor(in_range) * np.maximum(in_range, 0.0) * share * (1.0 - share)).sum(axis=1)
        stale = self.model.approximation(self._weights(a, b)) * share.sum(axis=1)
        return np.sqrt(cut) + stale

    def _cut_factor(self, in_range: np.ndarray) -> np.ndarray:
        """kappa for the events a range holds (module docstring): 1 + (kappa - 1) R / P per cell."""
        pooled = np.maximum(self.estimate.sum(axis=1), 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            part = np.where(pooled > 0, np.clip(np.maximum(in_range, 0.0) / pooled, 0.0, 1.0), 1.0)
        return 1.0 + (self.kappa - 1.0) * part

    def answer_interval(self, rects, first=None, last=None, level: float = 0.95) -> np.ndarray:
        """[low, high] per rectangle: the answer -+ z sqrt(noise variance + model error^2), the whole interval
        every psdviz release states (:func:`psdviz.kernel.intervals.whole_interval`)."""
        est = self.answer(rects, first, last)
        low, high = whole_interval(est, np.sqrt(self.answer_variance(rects, first, last)),
                                   self.answer_model_error(rects, first, last), level)
        return np.column_stack([low, high])

    def series(self, rect, level: float = 0.95) -> pd.DataFrame:
        """The time series of one rectangle: one row per window with its start (UTC), the private estimate,
        its noise standard error, the modelled error, and the whole interval."""
        k = self.windows
        rects = np.repeat(np.asarray(rect, float).reshape(1, 4), k, axis=0)
        idx = np.arange(k)
        est = self.answer(rects, idx, idx)
        se = np.sqrt(self.answer_variance(rects, idx, idx))
        model = self.answer_model_error(rects, idx, idx)
        low, high = whole_interval(est, se, model, level)
        return pd.DataFrame({"window": idx, "start": self.axis.starts(), "estimate": est, "standard_error": se,
                             "model_error": model, "low": low, "high": high})

    def answer_regions(self, regions, first=None, last=None, level: float = 0.95) -> pd.DataFrame:
        """Every region of a public layer (``psdviz.regions.Regions``, in the release's coordinates) over the
        windows ``first`` to ``last``: estimate, standard_error, model_error, low and high."""
        from ..query.overlap import cell_shares
        a, b = self.axis.window_range(first, last)
        reg, cell, share = cell_shares(self.partition.rects(), np.asarray(regions.geometry))
        n = len(regions.geometry)
        values = self.estimate[:, a:b].sum(axis=1)
        est = np.bincount(reg, weights=share * values[cell], minlength=n)
        tvar = float(self.model.variance(self._weights(np.array([a]), np.array([b])))[0])
        se = np.sqrt(np.bincount(reg, weights=share ** 2, minlength=n) * tvar)
        factor = self._cut_factor(values[None, :])[0]
        cut = np.bincount(reg, weights=factor[cell] * np.maximum(values[cell], 0) * share * (1 - share),
                          minlength=n)
        stale = float(self.model.approximation(self._weights(np.array([a]), np.array([b])))[0])
        model = np.sqrt(cut) + stale * np.bincount(reg, weights=share, minlength=n)
        low, high = whole_interval(est, se, model, level)
        return regions.table().assign(estimate=est, standard_error=se, model_error=model, low=low, high=high)

    def cells(self, window: int) -> pd.DataFrame:
        """The partition's cells in one window: x0, y0, x1, y1, estimate, standard_error, and ``pale`` (the
        estimate within two noise standard errors of zero: not distinguishable from an empty cell)."""
        w = self.axis._at(window, "window")
        se = math.sqrt(float(self.model.variance(np.eye(self.windows)[w:w + 1])[0]))
        r = self.partition.rects()
        est = self.estimate[:, w]
        return pd.DataFrame({"x0": r[:, 0], "y0": r[:, 1], "x1": r[:, 2], "y1": r[:, 3], "estimate": est,
                             "standard_error": se, "pale": np.abs(est) <= 2 * se})

    # ---- the protocol --------------------------------------------------------------------------------------
    @overload
    def report(self, format: Literal["json"] = "json") -> dict: ...

    @overload
    def report(self, format: str) -> dict | str: ...

    def report(self, format: str = "json") -> dict | str:
        """Publishable facts: the head every release kind shares, then the axis, the partition's size and the
        mechanism; with ``format="markdown"`` the privacy statement."""
        from ..kernel.statement import check_format, markdown
        if check_format(format) == "markdown":
            return markdown(self)
        out = {**self.header.report(),
               "windows": self.windows, "window": self.axis.label(),
               "span": [self.axis.to_data()["start_utc"], self.axis.to_data()["end_utc"]],
               "time_cells": self.partition.size}
        if isinstance(self.model, StreamModel):
            out["published_windows"] = int((self.model.published_epsilon > 0).sum())
        return out

    def audit(self) -> dict:
        """The data owner's exact input counts (rows read, outside the domain or the span, dropped by the
        contribution bounds, used): not private."""
        return owner_audit(self.input_report, self.randomness.seed, method=self.method)

    def save(self, path, *, allow_seeded: bool = False):
        """Write the release file (JSON: the report, the axis, the partition, the time model and the noisy
        values); ``pv.load_release`` opens it. A seeded run is refused unless ``allow_seeded=True``."""
        check_seeded_export(self.randomness, allow_seeded, "the release over time")
        noisy = [[None if v != v else int(v) for v in row] for row in self.noisy.tolist()]
        return jr.write(path, FORMAT, {"report": self.report(), "privacy_unit": self.privacy_unit.to_data(),
                                       "axis": self.axis.to_data(), "partition": self.partition.to_data(),
                                       "model": self.model.to_data(), "noisy": noisy})


def load_time(path) -> TimeRelease:
    """Read a release over time; a damaged or edited file is a ReleaseFileError naming what is wrong."""
    doc = jr.read(path, FORMAT)
    rep = doc["report"]
    head = ReleaseHeader.from_report(rep, KIND, loaded_unit(doc.get("privacy_unit")))
    ledger, unit = head.ledger, head.privacy_unit
    try:
        ax = doc.get("axis")
        if not isinstance(ax, dict) or not all(isinstance(ax.get(k), int) and not isinstance(ax.get(k), bool)
                                               for k in ("start", "window_seconds", "windows")):
            raise ReleaseFileError("the axis must hold start, window_seconds and windows as whole numbers")
        axis = TimeAxis(ax["start"], ax["window_seconds"], ax["windows"])
        part = doc.get("partition")
        if not isinstance(part, dict):
            raise ReleaseFileError("the file has no partition")
        partition = Partition.from_data(part)
        model = model_from_data(doc.get("model"), axis.windows)
    except (ValueError, TypeError, KeyError) as exc:
        raise bad(f"{path}: {exc}") from None
    noisy = _noisy(doc.get("noisy"), partition.size, model, axis.windows)
    if isinstance(model, TreeTimeModel):
        model = model.for_values(noisy)
    params = head.parameters
    if head.method != model.kind:
        raise bad("the report's method must be the time model's kind")
    _check_ledger_against_model(ledger, model, unit, params)
    return TimeRelease(axis, partition, model.kind, noisy, model, params, ledger, head.randomness, head.notes, unit)


def _noisy(values, cells: int, model, windows: int) -> np.ndarray:
    width = model.tree.n_nodes if isinstance(model, TreeTimeModel) else windows
    if cells * width > MAX_VALUES:
        raise bad(f"the file states {cells:,} cells x {width:,} values, above {MAX_VALUES:,}")
    if not isinstance(values, list) or len(values) != cells or not all(isinstance(r, list) and len(r) == width
                                                                       for r in values):
        raise bad(f"noisy must hold {cells:,} rows of {width:,} values (one per cell and measured interval)")
    flat = [v for row in values for v in row]
    if not all(v is None or (isinstance(v, int) and not isinstance(v, bool)) for v in flat):
        raise bad("every noisy value must be a whole number (counts carry integer noise) or null")
    out = np.array([np.nan if v is None else v for v in flat], dtype=float).reshape(cells, width)
    measured = np.isfinite(out)
    if isinstance(model, StreamModel):
        published = model.source == np.arange(windows)
        if not np.array_equal(measured, np.broadcast_to(published, out.shape)):
            raise bad("exactly the published windows must hold noisy counts")
    elif not measured.all():
        raise bad("every measured interval must hold a noisy count")
    return out


def _check_ledger_against_model(ledger: Ledger, model, unit: PrivacyUnit, params: dict) -> None:
    """The ledger must state the very epsilons and sensitivities the time model's noise was drawn at, and the
    sensitivities must be those of the privacy unit the file states."""
    spends = [s for s in ledger.spends if not s.what.startswith(("partition", ub.SPEND))]
    if unit.kind == "point":
        want = np.ones(1, np.int64)
    elif unit.kind == "user":
        want = _user_bound(params, unit, ledger, model)
    else:
        want = np.full(1, int(params.get("max_points_per_window", 0) or 0), np.int64)
    if isinstance(model, TreeTimeModel) and any(s.level != d for d, s in enumerate(spends)):
        raise bad("the time tree's ledger lines must state their levels, from the root (0) down")
    have = model.level_sensitivity if isinstance(model, TreeTimeModel) else np.full(1, model.sensitivity)
    each = np.broadcast_to(want, have.shape) if isinstance(model, TreeTimeModel) else np.full(len(spends), want[0])
    if not (np.array_equal(np.broadcast_to(want, have.shape), have) and len(spends) == each.size
            and all(s.sensitivity == w for s, w in zip(spends, each))):
        said = ", ".join(map(str, want.tolist())) + (" (one a level)" if want.size > 1 else "")
        raise bad(f"the counts' sensitivity must be {said} for a release per {unit}")
    k = int(want.max()) * (int(unit.limit) if unit.kind == "w-event" else 1)     # one unit's pooled events
    if any(not math.isclose(s.sensitivity, k, rel_tol=1e-12) for s in ledger.spends if s.what.startswith("partition")):
        raise bad(f"the partition's ledger lines must state sensitivity {k} (group privacy for {unit})")
    if isinstance(model, FlatModel):
        ok = len(spends) == 1 and math.isclose(spends[0].epsilon, model.epsilon, rel_tol=1e-12)
    elif isinstance(model, TreeTimeModel):
        ok = len(spends) == model.tree.levels and all(
            math.isclose(s.epsilon, e, rel_tol=1e-12) for s, e in zip(spends, model.level_epsilon))
    else:
        ok = (unit.kind == "w-event" and int(unit.limit) == model.w and len(spends) == 2
              and math.isclose(spends[1].epsilon, model.worst_window(), rel_tol=1e-9, abs_tol=1e-15)
              and model.worst_window() <= spends[0].epsilon * (1 + 1e-9))
    if not ok:
        raise bad("the ledger does not state the epsilons the time model's noise was drawn at")


def _user_bound(params: dict, unit: PrivacyUnit, ledger: Ledger, model) -> np.ndarray:
    """The L a user-level release's counts were drawn for (one, or one a level of the tree, root first): the
    unit's limit, or, when L was chosen privately, what the rule could have drawn: rungs of the public ladder, the
    unit m times the windows, and the choice's ledger lines (the exponential mechanism at its share of epsilon
    and its sensitivity, one line, or one a level at the level's quantile)."""
    chosen = params.get("max_points_per_user_chosen")
    if chosen is None:
        if "max_points_per_user_levels" in params:
            raise bad("one L a level is only drawn with max_points_per_user_chosen")
        return np.full(1, int(unit.limit), np.int64)
    m, bound, levels = (params.get("max_points_per_window"), params.get("max_points_per_user"),
                        params.get("max_points_per_user_levels"))
    if (chosen is not True or not isinstance(m, int) or not isinstance(bound, int) or isinstance(m, bool)
            or isinstance(bound, bool) or m < 1 or bound < 1):
        raise bad("a chosen max_points_per_user needs max_points_per_user_chosen true and whole numbers m and L")
    windows = model.windows
    if int(unit.limit) != min(m * windows, ub.MAX_BOUND):
        raise bad(f"a release with a chosen L protects one user of at most m x the windows points "
                  f"({min(m * windows, ub.MAX_BOUND):,}), not {int(unit.limit):,}")
    tree_levels = model.tree.levels if isinstance(model, TreeTimeModel) else 1
    bounds = _chosen_levels(levels, bound, tree_levels)
    if not np.isin(bounds, ub.ladder(m, windows)).all():
        raise bad(f"the chosen max_points_per_user {', '.join(map(str, bounds.tolist()))} is not on the public ladder")
    if (np.diff(bounds) > 0).any():
        raise bad("the chosen L a level must not grow from the root down (each is at most its ancestors')")
    quantiles = ub.level_quantiles(bounds.size) if bounds.size > 1 else np.array([ub.QUANTILE])
    share = ub.FRACTION * ledger.budget / bounds.size
    lines = [s for s in ledger.spends if s.what.startswith(ub.SPEND)]
    ok = len(lines) == bounds.size and all(
        (bounds.size == 1 or s.level == d) and s.mechanism == "exponential"
        and math.isclose(s.sensitivity, ub.score_sensitivity(float(q)), rel_tol=1e-12)
        and math.isclose(s.epsilon, share, rel_tol=1e-9) for d, (s, q) in enumerate(zip(lines, quantiles)))
    if not ok:
        raise bad(f"a chosen max_points_per_user needs its ledger lines: the exponential mechanism at "
                  f"{ub.FRACTION:g} of epsilon in all, one line a level, sensitivity max(q, 1 - q) at each level's "
                  "quantile")
    return bounds


def _chosen_levels(levels, bound: int, tree_levels: int) -> np.ndarray:
    """The chosen L a level (root first) a file states: ``max_points_per_user_levels`` (whole numbers, one a level of
    a tree of more than one level, the largest ``max_points_per_user``), or the one L."""
    if levels is None:
        return np.full(1, bound, np.int64)
    if not (tree_levels > 1 and one_whole_a_level(levels, tree_levels, bound)):
        raise bad("max_points_per_user_levels must hold one whole number a level of the tree over time, the largest "
                  "equal to max_points_per_user")
    return np.asarray(levels, np.int64)


def true_answer_over_time(points, seconds, axis: TimeAxis, rects, first=None, last=None) -> np.ndarray:
    """The exact number of points in each rectangle over windows ``first`` to ``last`` (the owner's truth, never
    part of a release): ``points`` (n, 2), ``seconds`` their timestamps (:func:`psdviz.temporal.axis.to_seconds`)."""
    from ..query.truth import true_answer
    w = axis.index(np.asarray(seconds, np.int64))
    a, b = axis.window_range(first, last)
    return true_answer(np.asarray(points, float)[(w >= a) & (w < b)], rects)
