"""The measurements of a release over time, one per privacy unit, each recording its ledger lines.

``counts`` is (cells, windows): the number of kept events of each cell in each window. ``per_window`` (m) and
``total`` (L) bound what one unit adds (1 and 1 for one event; a user's contribution bounded per window and in
all, :mod:`psdviz.temporal.bounding`); every noise is two-sided geometric on integer counts
(:mod:`psdviz.core.noise`), so no released value carries floating-point noise.

- ``flat``: one noisy count per (cell, window). One event changes one count by one: cells and windows are
  disjoint, parallel composition, sensitivity 1. One user changes the counts by at most L in L1 over all cells
  and windows: sensitivity L.
- ``tree``: the tree mechanism over time for every cell (:mod:`psdviz.temporal.timetree`): the count of every
  b-adic interval of windows, epsilon split evenly over the h + 1 levels. The intervals of one level are
  disjoint, so one event changes one node a level by one (sensitivity 1 a level) and one user changes a level's
  nodes by at most L in L1 (sensitivity L a level); the levels compose sequentially: h + 1 levels at epsilon /
  (h + 1) each spend epsilon. Least squares afterwards is post-processing.
- ``bd`` and ``ba``: w-event privacy (Kellaris, Papadopoulos, Xiao and Papadias, VLDB 2014, Algorithms 2 and
  3): in each window a noisy dissimilarity between the window's counts and the last release (epsilon / (2w) a
  window, sensitivity m: the sum over cells of |count - last release| moves by at most m) decides whether to
  publish fresh noisy counts or repeat the last release; budget distribution gives a publication half of the
  publication budget left in the last w windows, budget absorption gives it the unused budget of the windows
  skipped since the last publication and skips as many after it. Any w consecutive windows spend at most
  epsilon / 2 on tests and epsilon / 2 on publications (the proof is written out in
  docs/decisions/counts-over-time.md). Only whether a window was published and the published counts are
  released; the noisy dissimilarities are not.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..core.errors import ParameterError, ReleaseFileError
from ..core.ledger import Ledger
from ..core.noise import MAX_EXACT_SCALE, geometric_noise, geometric_variance
from ..core.privacy_unit import PrivacyUnit
from .timetree import MAX_FANOUT, TimeTree, TreeModel

UNITS = ("event", "user", "w-event")
MECHANISMS = {"event": ("flat", "tree"), "user": ("tree", "flat"), "w-event": ("ba", "bd")}   # first: the default


@dataclass(frozen=True)
class Accounting:
    """What one unit may add: ``per_window`` events to one window (m), ``total`` in all (L); ``w`` windows for
    w-event privacy. ``level_totals``: one L a level of the tree over time (root first; ``total`` is then the
    largest), each level counting a user's first L_d kept events of one random order."""

    unit: str
    per_window: int = 1
    total: int = 1
    w: int = 0
    level_totals: tuple[int, ...] = ()


def privacy_unit(unit: str, total: int = 1, w: int = 1) -> PrivacyUnit:
    """The privacy unit a release over time protects: one point (event level), one user with at most ``total``
    points (user level), or one user in any ``w`` consecutive windows (w-event)."""
    if unit == "event":
        return PrivacyUnit("point")
    return PrivacyUnit("user", int(total)) if unit == "user" else PrivacyUnit("w-event", int(w))


def check_mechanism(unit: str, mechanism: str | None) -> str:
    if unit not in UNITS:
        raise ParameterError(f"unit must be one of {UNITS} (got {unit!r})")
    allowed = MECHANISMS[unit]
    if mechanism is None:
        return allowed[0]
    if mechanism not in allowed:
        raise ParameterError(f"mechanism {mechanism!r} does not apply to unit {unit!r}: choose one of {allowed}")
    return mechanism


# ---- the time models: how the windows' estimates and their variances follow from the noisy values ----------

class FlatModel:
    """One noisy count a window, each at ``epsilon`` for L1 sensitivity ``sensitivity``."""

    kind = "flat"

    def __init__(self, windows: int, epsilon: float, sensitivity: int):
        self.windows, self.epsilon, self.sensitivity = int(windows), float(epsilon), int(sensitivity)
        self.noise_variance = float(geometric_variance(self.epsilon, self.sensitivity))

    def to_data(self) -> dict:
        return {"kind": self.kind, "epsilon": self.epsilon, "sensitivity": self.sensitivity}

    def estimate(self, noisy: np.ndarray) -> np.ndarray:
        return np.asarray(noisy, float).copy()

    def variance(self, weights: np.ndarray) -> np.ndarray:
        return (np.atleast_2d(np.asarray(weights, float)) ** 2).sum(axis=1) * self.noise_variance

    def approximation(self, weights: np.ndarray) -> np.ndarray:
        return np.zeros(np.atleast_2d(weights).shape[0])


class TreeTimeModel(TreeModel):
    """The tree mechanism's model (:class:`psdviz.temporal.timetree.TreeModel`): each level's nodes measured
    at ``level_epsilon[d]`` for L1 sensitivity ``sensitivity`` (one number, or one a level, root first).

    With one L a level the levels count nested sets of events (each user's first L_d), so a lower level's counts
    are a smaller share of the events than the root's. ``level_scale`` (root first, the root 1) is that share,
    read from the noisy values (:func:`kept_shares`: post-processing); each level's counts are divided by it (and
    their noise variance by its square) before the least squares, so that every level estimates the events the
    root keeps and the long ranges are not pulled towards the lower levels' smaller sums."""

    kind = "tree"

    def __init__(self, windows: int, fanout: int, level_epsilon: np.ndarray, sensitivity,
                 level_scale: np.ndarray | None = None):
        self.level_epsilon = np.asarray(level_epsilon, float)
        self.level_sensitivity = np.broadcast_to(np.asarray(sensitivity, np.int64), self.level_epsilon.shape).copy()
        self.sensitivity = int(self.level_sensitivity.max(initial=1))
        self.level_scale = np.ones(self.level_epsilon.shape) if level_scale is None else np.asarray(level_scale, float)
        noise = geometric_variance(self.level_epsilon, self.level_sensitivity) / self.level_scale ** 2
        super().__init__(TimeTree(windows, fanout), noise)
        self.windows = int(windows)

    @property
    def per_level(self) -> bool:
        """Whether the levels carry different sensitivities (one L a level)."""
        return bool((self.level_sensitivity != self.sensitivity).any())

    def for_values(self, noisy: np.ndarray) -> TreeTimeModel:
        """The model with its ``level_scale`` read from the released ``noisy`` node counts (one L a level, each
        level's sensitivity its L; else unchanged)."""
        if not self.per_level:
            return self
        return TreeTimeModel(self.windows, self.tree.fanout, self.level_epsilon, self.level_sensitivity,
                             kept_shares(noisy, self.tree, self.level_sensitivity))

    def estimate(self, noisy: np.ndarray) -> np.ndarray:
        scaled = np.asarray(noisy, float) / np.repeat(self.level_scale, self.tree.level_nodes)[None, :]
        return super().estimate(scaled)

    def to_data(self) -> dict:
        data = {"kind": self.kind, "fanout": self.tree.fanout, "level_epsilon": self.level_epsilon.tolist(),
                "sensitivity": self.sensitivity}
        return {**data, "level_sensitivity": self.level_sensitivity.tolist()} if self.per_level else data

    def approximation(self, weights: np.ndarray) -> np.ndarray:
        return np.zeros(np.atleast_2d(weights).shape[0])


MIN_SHARE = 0.05      # a level's share of the root's events is read as at least this (a noisy sum near zero)


def kept_shares(noisy: np.ndarray, tree: TimeTree, level_bound: np.ndarray) -> np.ndarray:
    """Each level's noisy sum over every cell and node (the whole span) over the root's, clipped to [``MIN_SHARE``,
    1]: the share of the root's events a level with a smaller L keeps (released values only). A level whose L is
    the root's counts the same events: its share is 1 exactly."""
    y = np.asarray(noisy, float)
    sums = np.array([y[:, tree.bounds[d]:tree.bounds[d + 1]].sum() for d in range(tree.levels)])
    same = np.asarray(level_bound) >= np.asarray(level_bound)[0]
    if not sums[0] > 0:
        return np.ones(tree.levels)
    return np.where(same, 1.0, np.clip(sums / sums[0], MIN_SHARE, 1.0))


class StreamModel:
    """w-event releases: window t repeats the publication of window ``source[t]`` (itself when published; -1:
    nothing published yet, the public zero start), published with noise variance ``pub_variance[t]``; a window
    not published carries the error of repeating an older release, modelled as at most the ``threshold`` its
    noisy test compared with (a mean absolute difference a cell)."""

    def __init__(self, kind: str, source: np.ndarray, published_epsilon: np.ndarray, threshold: np.ndarray,
                 sensitivity: int, w: int):
        self.kind, self.sensitivity, self.w = kind, int(sensitivity), int(w)
        self.source = np.asarray(source, np.int64)
        self.published_epsilon = np.asarray(published_epsilon, float)
        eps = self.published_epsilon
        self.pub_variance = np.where(eps > 0, geometric_variance(np.where(eps > 0, eps, 1.0), self.sensitivity), 0.0)
        self.threshold = np.asarray(threshold, float)
        self.windows = int(self.source.size)

    def to_data(self) -> dict:
        return {"kind": self.kind, "w": self.w, "sensitivity": self.sensitivity, "source": self.source.tolist(),
                "published_epsilon": self.published_epsilon.tolist(), "threshold": self.threshold.tolist()}

    def worst_window(self) -> float:
        """The most publication epsilon any w consecutive windows spent."""
        return float(np.convolve(self.published_epsilon, np.ones(self.w))[:self.windows].max(initial=0.0))

    def estimate(self, noisy: np.ndarray) -> np.ndarray:
        y = np.asarray(noisy, float)
        src = self.source
        return np.where(src >= 0, y[:, np.maximum(src, 0)], 0.0)

    def _grouped(self, weights: np.ndarray) -> np.ndarray:
        w = np.atleast_2d(np.asarray(weights, float))
        g = np.zeros_like(w)
        ok = self.source >= 0
        np.add.at(g.T, self.source[ok], w.T[ok])
        return g

    def variance(self, weights: np.ndarray) -> np.ndarray:
        return (self._grouped(weights) ** 2 * np.where(self.pub_variance > 0, self.pub_variance, 0.0)).sum(axis=1)

    def approximation(self, weights: np.ndarray) -> np.ndarray:
        w = np.abs(np.atleast_2d(np.asarray(weights, float)))
        stale = self.source != np.arange(self.windows)
        return (w * np.where(stale, self.threshold, 0.0)).sum(axis=1)


# ---- the mechanisms ------------------------------------------------------------------------------------------

def measure(counts: np.ndarray, mechanism: str, epsilon: float, acct: Accounting, rng: np.random.Generator,
            ledger: Ledger, fanout: int = 2, counts_within: Callable[[int], np.ndarray] | None = None):
    """(noisy values, model) of ``mechanism`` on ``counts`` at ``epsilon``, its spends recorded in ``ledger``.
    With one L a level (``acct.level_totals``), the tree reads level d's counts as ``counts_within(L_d)``: the
    counts of each user's first L_d kept events."""
    if mechanism == "flat":
        return _flat(counts, epsilon, acct, rng, ledger)
    if mechanism == "tree":
        return _tree(counts, epsilon, acct, rng, ledger, fanout, counts_within)
    return _stream(counts, mechanism, epsilon, acct, rng, ledger)


def _sensitivity(acct: Accounting, level: int | None = None) -> int:
    """The L1 change one unit makes to all the counts of one level (flat: the only level; one L a level: that
    level's)."""
    if acct.unit == "event":
        return 1
    return int(acct.level_totals[level]) if acct.level_totals and level is not None else int(acct.total)


def level_sensitivities(acct: Accounting, levels: int) -> np.ndarray:
    """One sensitivity a level of the tree over time, root first."""
    return np.asarray([_sensitivity(acct, d) for d in range(levels)], dtype=np.int64)


def _why(acct: Accounting, what: str, level: int | None = None) -> str:
    if acct.unit == "event":
        return f"one event lies in one cell and one {what}: disjoint, parallel composition (sensitivity 1)"
    s = _sensitivity(acct, level)
    return (f"a user's at most {s} kept events change the counts of the disjoint cells and {what}s by at "
            f"most {s} in L1 (sensitivity {s})")


def _flat(counts, epsilon, acct, rng, ledger):
    s = _sensitivity(acct)
    cells, windows = counts.shape
    ledger.spend("counts per cell and window", epsilon, "geometric", nodes=cells * windows, sensitivity=s,
                 note=_why(acct, "window"))
    noisy = counts + geometric_noise(rng, counts.shape, epsilon, s)
    return noisy.astype(float), FlatModel(windows, epsilon, s)


FANOUTS = (2, 4, 8, 16)
RANGE_LENGTHS = (1, 7, 30)          # with the whole span: the ranges the fanout is chosen for


def choose_fanout(windows: int) -> int:
    """The tree's fanout among :data:`FANOUTS` whose least-squares estimates have the smallest sum, over range
    lengths of one window, a week, a month (of daily windows) and the span, of the mean noise variance of a
    range divided by its squared length (its relative variance when counts grow with the range). It reads the
    number of windows only: public, so the choice costs no budget (Qardaji, Yang and Li, VLDB 2013, find
    fanouts near 16 best for ranges; the binary tree of Chan et al. is the special case 2)."""
    def score(b: int) -> float:
        tree = TimeTree(windows, b)
        model = TreeModel(tree, np.full(tree.levels, float(tree.levels) ** 2))   # epsilon / levels a level
        total = 0.0
        for r in sorted({min(r, windows) for r in (*RANGE_LENGTHS, windows)}):
            starts = np.unique(np.linspace(0, windows - r, min(12, windows - r + 1)).astype(np.int64))
            t = np.arange(windows)
            q = ((t >= starts[:, None]) & (t < starts[:, None] + r)).astype(float)
            total += float(model.variance(q).mean()) / r ** 2
        return total
    return min(FANOUTS, key=score)


def check_fanout(fanout) -> int:
    if isinstance(fanout, bool) or not isinstance(fanout, (int, np.integer)) or not 2 <= fanout <= MAX_FANOUT:
        raise ParameterError(f"fanout must be a whole number in [2, {MAX_FANOUT}] (got {fanout!r})")
    return int(fanout)


def _tree(counts, epsilon, acct, rng, ledger, fanout, counts_within=None):
    cells, windows = counts.shape
    tree = TimeTree(windows, check_fanout(fanout))
    sens = level_sensitivities(acct, tree.levels)
    if acct.level_totals and (len(acct.level_totals) != tree.levels or counts_within is None):
        raise ValueError("one L a level needs one L for each of the tree's levels and the counts within each")
    eps_level = epsilon / tree.levels
    nodes, nodes_of = None, -1
    noisy = np.empty((cells, tree.n_nodes), dtype=float)
    for d in range(tree.levels):
        lo, hi = tree.bounds[d], tree.bounds[d + 1]
        s = int(sens[d])
        if nodes is None or (acct.level_totals and s != nodes_of):
            nodes, nodes_of = tree.node_counts(counts_within(s) if acct.level_totals else counts), s
        ledger.spend(f"time tree level {d}: intervals of {int(tree.node_size[d]):,} windows", eps_level, "geometric",
                     level=d, nodes=cells * int(tree.level_nodes[d]), sensitivity=s,
                     note=_why(acct, f"interval of level {d}", d) + f"; {tree.levels} levels compose sequentially")
        noisy[:, lo:hi] = nodes[:, lo:hi] + geometric_noise(rng, (cells, hi - lo), eps_level, s)
    return noisy, TreeTimeModel(windows, tree.fanout, np.full(tree.levels, eps_level), sens).for_values(noisy)


def _stream(counts, kind, epsilon, acct, rng, ledger):
    """Kellaris et al.'s budget distribution (``bd``) or absorption (``ba``) over the windows."""
    cells, windows = counts.shape
    m, w = int(acct.per_window), int(acct.w)
    eps_test = epsilon / (2 * w)
    nominal = epsilon / (2 * w)
    noisy = np.full((cells, windows), np.nan)
    source = np.full(windows, -1, np.int64)
    spent = np.zeros(windows)
    threshold = np.zeros(windows)
    last = np.zeros(cells, np.int64)            # the last release (public zeros before the first)
    last_at, last_eps = -1, 0.0
    for i in range(windows):
        if kind == "bd":
            budget = (epsilon / 2 - spent[max(0, i - w + 1):i].sum()) / 2
        else:
            nullified = last_eps / nominal - 1 if last_at >= 0 else 0.0
            if i - last_at <= nullified + 1e-9:
                source[i], threshold[i] = source[i - 1], threshold[i - 1]
                continue
            absorb = i - (last_at + nullified) if last_at >= 0 else i + 1
            budget = nominal * min(int(round(absorb)), w)
        dis = np.abs(counts[:, i] - last).sum() + int(geometric_noise(rng, 1, eps_test, m)[0])
        scale = m / budget if budget > 0 else np.inf
        threshold[i] = scale
        if scale <= MAX_EXACT_SCALE and dis / cells > scale:
            last = counts[:, i] + geometric_noise(rng, cells, budget, m)
            noisy[:, i] = last
            source[i], spent[i], last_at, last_eps = i, budget, i, budget
        else:
            source[i] = source[i - 1] if i else -1
    model = StreamModel(kind, source, spent, threshold, m, w)
    worst = model.worst_window()
    if worst > epsilon / 2 * (1 + 1e-9):          # defensive: the proof says it cannot happen
        raise RuntimeError(f"{kind} spent {worst} > epsilon / 2 in {w} windows")
    ledger.spend(f"dissimilarity tests ({kind.upper()})", epsilon / 2, "geometric (yes/no: publish or repeat)",
                 nodes=windows, sensitivity=m,
                 note=f"epsilon / (2w) = {eps_test:.4g} a window, so any {w} consecutive windows spend epsilon / 2; "
                      "only the decision is released")
    ledger.spend(f"publications ({kind.upper()})", worst, "geometric", nodes=int((source == np.arange(windows)).sum()),
                 sensitivity=m, note=f"at most epsilon / 2 in any {w} consecutive windows (the most spent in {w} "
                                     f"consecutive windows: {worst:.4g}); {cells:,} cells a window, disjoint")
    return noisy, model


def window_sd(mechanism: str, windows: int, epsilon: float, acct: Accounting, fanout: int = 2) -> float:
    """The noise standard deviation of one cell's count in one window before the data are read (public): flat
    and tree from their plans, w-event at the nominal publication budget epsilon / (2w)."""
    if mechanism == "flat":
        return float(np.sqrt(geometric_variance(epsilon, _sensitivity(acct))))
    if mechanism == "tree":
        tree = TimeTree(windows, fanout)
        model = TreeTimeModel(windows, fanout, np.full(tree.levels, epsilon / tree.levels),
                              level_sensitivities(acct, tree.levels))
        return float(np.sqrt(model.variance(np.eye(1, windows))[0]))
    return float(np.sqrt(geometric_variance(epsilon / (2 * acct.w), acct.per_window)))


def model_from_data(data, windows: int):
    """The time model a release file states (a ReleaseFileError naming what is wrong)."""
    if not isinstance(data, dict) or data.get("kind") not in ("flat", "tree", "bd", "ba"):
        raise ReleaseFileError("the time model must be an object whose kind is flat, tree, bd or ba")
    s = data.get("sensitivity")
    if isinstance(s, bool) or not isinstance(s, int) or s < 1:
        raise ReleaseFileError("the time model's sensitivity must be a whole number >= 1")
    if data["kind"] == "flat":
        return FlatModel(windows, _positive(data.get("epsilon"), "epsilon"), s)
    if data["kind"] == "tree":
        fanout = check_fanout(data.get("fanout"))
        eps = np.asarray([_positive(e, "level_epsilon") for e in _list(data.get("level_epsilon"))])
        if eps.size != TimeTree(windows, fanout).levels:
            raise ReleaseFileError("the time tree needs one epsilon per level")
        return TreeTimeModel(windows, fanout, eps, _level_sensitivity(data, s, eps.size))
    w = data.get("w")
    if isinstance(w, bool) or not isinstance(w, int) or w < 1:
        raise ReleaseFileError("w must be a whole number >= 1")
    src = np.asarray(_list(data.get("source")), dtype=np.int64)
    eps = np.asarray(_list(data.get("published_epsilon")), dtype=float)
    thr = np.asarray(_list(data.get("threshold")), dtype=float)
    if not src.size == eps.size == thr.size == windows:
        raise ReleaseFileError("source, published_epsilon and threshold must hold one value per window")
    published = src == np.arange(windows)
    repeats = np.r_[-1, src[:-1]]
    if not (np.isfinite(eps).all() and (eps >= 0).all() and np.array_equal(published, eps > 0)
            and np.array_equal(src[~published], repeats[~published]) and (thr >= 0).all()):
        raise ReleaseFileError("the w-event schedule is inconsistent: a window is published exactly when it has a "
                         "publication epsilon, and repeats the last publication otherwise")
    return StreamModel(data["kind"], src, eps, thr, s, w)


def _level_sensitivity(data: dict, s: int, levels: int) -> np.ndarray:
    """A tree's sensitivity a level (root first): ``level_sensitivity`` if the file states one (whole numbers >= 1,
    one a level, the largest equal to ``sensitivity``), else ``sensitivity`` at every level."""
    if "level_sensitivity" not in data:
        return np.full(levels, s, np.int64)
    v = data["level_sensitivity"]
    if not one_whole_a_level(v, levels, s):
        raise ReleaseFileError("the time tree's level_sensitivity must hold one whole number >= 1 a level, the "
                               "largest equal to its sensitivity")
    return np.asarray(v, np.int64)


def one_whole_a_level(v, levels: int, largest: int) -> bool:
    """Whether a file's ``v`` is a list of ``levels`` whole numbers >= 1 whose largest is ``largest`` (one L or
    sensitivity a level of the tree over time)."""
    return (isinstance(v, list) and len(v) == levels and levels >= 1
            and all(isinstance(x, int) and not isinstance(x, bool) and x >= 1 for x in v) and max(v) == largest)


def _list(v) -> list:
    if not isinstance(v, list) or not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v):
        raise ReleaseFileError("the time model's arrays must be lists of numbers")
    return v


def _positive(v, name: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not (np.isfinite(v) and v > 0):
        raise ReleaseFileError(f"the time model's {name} must be finite numbers > 0")
    return float(v)
