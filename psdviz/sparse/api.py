"""``summarize(table, method, epsilon, seed, **params)``: the entry point of psdviz.sparse.

Methods (ICDT'12): "filter" (section 2.2; ``max_size`` raises theta on the output as in appendix
C.1), "threshold" (section 2.3), "priority" (section 2.3),
"filter-priority" (section 2.4; two-sided filter then priority sampling), and "geometric", the
full geometric mechanism (the laborious baseline, size-limited). ``dyadic=True`` summarises the
dyadic-range transform instead (section 3), ``consistency=True`` adds its consistency check
(filter and filter-priority only, as the paper advocates).

Privacy: M' = M + two-sided geometric noise with a = exp(-epsilon_counts / sensitivity) for all
cells (implicitly for the zero cells); filtering and sampling are post-processing of M' (section
2.1), so the release costs epsilon_counts (+ the optional statistics slice, see :mod:`.params`).
"""
from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..core.errors import ParameterError
from ..core.ledger import Ledger
from ..core.noise import geometric_noise
from ..core.params import FRACTION, POSITIVE, Param, Share, coerce_all, declared, doc
from ..core.rng import make_randomness
from ..core.validation import check_epsilon, check_int, warn_large_epsilon
from .dyadic import DyadicIndex, consistent, dyadic_transform
from .laborious import check_laborious, geometric_table
from .params import Stats, TableStats, table_stats, tau_for_size, theta_for_size
from .release import SparseRelease
from .shortcut import Summary, filter_summary, priority_summary, raise_filter, threshold_summary, top_priorities
from .table import DATA_OWNER_KEYS, OBSERVED, SparseTable
from .zero_law import alpha_of

METHODS = ("filter", "threshold", "priority", "filter-priority", "geometric")
THETA_MAX = 10 ** 9
# the declarations of the methods' options; name, kind, default and choices come from the signature of the
# function that takes each one (summarize for the options every method shares, the method's runner for its
# own: :func:`psdviz.core.params.declared`)
_DECLARED = {
    "theta": doc("Filter threshold: a noisy cell is kept when its value (its magnitude, two-sided) reaches theta. "
                 "None: chosen from target_size (or the noisy number of non-zero cells).",
                 "ICDT'12 sections 2.2, 2.4, appendix C.1", 1, THETA_MAX),
    "target_size": doc("Expected summary size the filter or threshold is chosen for. None: the (noisy or public) "
                       "number of non-zero cells.", "ICDT'12 appendix C.1, C.2", 1, 10 ** 12),
    "two_sided": doc("Keep cells whose noisy value is large in magnitude (True) or only large positive values "
                     "(False, the paper's one-sided filter).", "ICDT'12 section 2.2, appendix C.1"),
    "max_size": doc("Cap on the filter's output: theta is raised on the output until at most this many cells remain "
                    "(post-processing).", "ICDT'12 appendix C.1", 1, 10 ** 12),
    "tau": doc("Threshold sampling: a cell is kept with probability min(|value| / tau, 1) and weighted by tau when "
               "sampled. None: from target_size.", "ICDT'12 section 2.3, appendix C.2", 0, open_low=True),
    "size": doc("Priority sampling: the summary keeps this many cells. None: the (noisy or public) number of "
                "non-zero cells, clamped to [1, m - 1].", "ICDT'12 sections 2.3, 4", 1),
    "dyadic": doc("Summarise the dyadic-range transform instead of the cells, for range queries.",
                  "ICDT'12 section 3"),
    "consistency": doc("With dyadic=True and a filter: keep only nodes whose ancestors passed (the paper's "
                       "consistency check).", "ICDT'12 section 3"),
    "stats": doc("n and ||M||_1 for the parameter formulas: bought with stats_fraction of epsilon (noisy) or "
                 "declared public (the paper's assumption).", "ICDT'12 section 2.1"),
    "stats_fraction": doc("Share of epsilon spent on the noisy n and ||M||_1 when a formula needs them.", "",
                          **FRACTION),
    "sensitivity": doc("How much one individual can change the table's counts in total (L1); 1 for one row per "
                       "individual.", "ICDT'12 section 2.1", **POSITIVE),
}
OBSERVED_NOTE = ("NOT PRIVATE: the category lists (layout rows and cols) and hence m were read from the data, "
                 "so they reveal which values occur; declare public lists (row_values, col_values) for a real release")


def method_parameters(method: str) -> dict[str, Param]:
    """name -> :class:`~psdviz.core.params.Param`: the parameters ``method`` accepts, declared once (its own,
    from its runner's signature, then those every method shares, from :func:`summarize`'s)."""
    if method not in METHODS:
        raise ParameterError(f"unknown sparse method {method!r}; choose one of {METHODS}")
    return {**declared(_RUNNERS[method], _DECLARED, owner=method), **declared(summarize, _DECLARED, owner="summarize")}


def _entry_order(method, epsilon):
    """(method, epsilon), accepting the earlier positional order (epsilon, method) with a warning."""
    if not isinstance(method, str) and (isinstance(epsilon, str) or epsilon is None):
        warnings.warn("summarize(table, epsilon, method) is deprecated: write summarize(table, method=..., "
                      "epsilon=...)", DeprecationWarning, stacklevel=3)
        method, epsilon = ("filter-priority" if epsilon is None else epsilon), method
    if epsilon is None:
        raise ParameterError("epsilon is required: summarize(table, method=..., epsilon=...)")
    return method, epsilon


def _needs_stats(method: str, p: dict) -> bool:
    return {"filter": p.get("theta") is None, "threshold": p.get("tau") is None,
            "priority": p.get("size") is None,
            "filter-priority": p.get("theta") is None or p.get("size") is None,
            "geometric": False}[method]


def _check_params(table, method: str, params: dict) -> None:
    if not isinstance(table, SparseTable):
        raise ParameterError("table must be a psdviz.sparse.SparseTable (see make_table, contingency_table, "
                             "grid_table)")
    coerce_all(method, method_parameters(method), params)
    if params.get("consistency") and not (params.get("dyadic") and method in ("filter", "filter-priority")):
        raise ParameterError("consistency=True needs dyadic=True and method 'filter' or 'filter-priority' "
                             "(paper section 3 does not advocate it for pure sampling)")


def summarize(table: SparseTable, method: str = "filter-priority", epsilon: float | None = None, seed=None,
              privacy_budget=None, *, dyadic: bool = False, consistency: bool = False, stats: Stats = "noisy",
              stats_fraction: Share = 0.05, sensitivity: float = 1.0, **params) -> SparseRelease:
    """A private summary of a sparse count table; see the module docstring for the methods.

    Parameters
    ----------
    table : SparseTable
        The counts (``make_table``, ``contingency_table``, ``grid_table``).
    method : str
        One of :data:`METHODS`; its parameters: ``method_parameters(method)``.
    epsilon : float
        The privacy budget (required).
    seed : int or None
        None for fresh randomness; an integer for a reproducible, labelled teaching run.
    dyadic, consistency, stats, stats_fraction, sensitivity, **params
        Declared in ``method_parameters(method)``: the options every method shares, then the method's own.

    The earlier order ``summarize(table, method, epsilon)`` still works, with a DeprecationWarning.
    """
    method, epsilon = _entry_order(method, epsilon)
    _check_params(table, method, {**params, "dyadic": dyadic, "consistency": consistency, "stats": stats,
                                  "stats_fraction": stats_fraction, "sensitivity": sensitivity})
    epsilon = check_epsilon(epsilon)
    warn_large_epsilon(epsilon)
    sens = sensitivity
    if not (isinstance(sens, (int, float, np.integer, np.floating)) and np.isfinite(sens) and sens > 0):
        raise ParameterError(f"sensitivity must be a finite number > 0 (got {sens!r})")
    sens = float(sens)
    if privacy_budget is not None:                  # before the table is read
        from ..core.privacy_unit import PrivacyUnit
        privacy_budget.check(epsilon, 0.0, PrivacyUnit("individual", sens))
    rnd = make_randomness(seed)
    ledger = Ledger(epsilon)
    facts = None
    if _needs_stats(method, params):
        facts = table_stats(table, epsilon, rnd, ledger, stats, stats_fraction, sens)
    eps_counts = epsilon - (facts.epsilon if facts else 0.0)
    dx = None
    target = table
    if dyadic:
        target, dx = dyadic_transform(table)
        sens = sens * dx.sensitivity
    alpha = alpha_of(eps_counts, sens)
    ledger.spend("noisy counts of all cells" + (" and dyadic nodes" if dx else ""), eps_counts, "geometric",
                 nodes=target.m, sensitivity=sens,
                 note="zero cells are noised implicitly (shortcut of ICDT'12 section 2); one node per level"
                 if dx else "zero cells are noised implicitly (shortcut of ICDT'12 section 2)")
    resolved = {"alpha": alpha, "sensitivity": sens, "epsilon_counts": eps_counts,
                "dyadic": dx is not None, "consistency": bool(consistency),
                "stats": facts.source if facts else "not needed"}
    summ = _RUNNERS[method](_Run(method, target, rnd.rng, alpha, eps_counts, sens, facts, dx, consistency),
                           **params)
    if method != "geometric":
        ledger.spend(f"{method} summary", 0.0, "post-processing",
                     note="filtering / sampling of the noisy table is post-processing (section 2.1)")
    resolved.update(summ.params)
    layout = {k: v for k, v in table.layout.items() if k not in DATA_OWNER_KEYS}
    notes = [rnd.mode]
    if layout.get("categories") == OBSERVED:
        notes.append(OBSERVED_NOTE)
    rel = SparseRelease(method, resolved, table.m, summ.indices, summ.values, summ.weights, ledger, rnd,
                        layout, dx, tuple(notes),
                        input_report={"nonzero_cells": int(table.n), "total_count": int(table.l1),
                                      "cells": int(table.m)})
    if privacy_budget is not None:
        privacy_budget.draw(rel, "sparse")
    return rel


@dataclass(frozen=True)
class _Run:
    """What every method's run reads besides its own options."""

    method: str
    target: SparseTable
    rng: np.random.Generator
    alpha: float
    eps: float
    sens: float
    stats: TableStats | None
    dx: DyadicIndex | None
    consistency: bool


def _noisy(r: _Run) -> np.ndarray:
    """M': the non-zero cells' counts with two-sided geometric noise (the zero cells' noise is drawn by each
    method's shortcut)."""
    return r.target.counts + geometric_noise(r.rng, r.target.n, r.eps, r.sens)


def _run_geometric(r: _Run) -> Summary:
    """The full geometric mechanism: every cell's noisy count (no options of its own)."""
    check_laborious(r.target.m)
    noisy = geometric_table(r.rng, r.target, r.eps, r.sens)
    return Summary(np.arange(r.target.m, dtype=np.int64), noisy, noisy.astype(float), {})


def _run_filter(r: _Run, *, theta: int | None = None, target_size: int | None = None, two_sided: bool = True,
                max_size: int | None = None) -> Summary:
    noisy = _noisy(r)
    two = two_sided
    if not isinstance(two, (bool, np.bool_)):
        raise ParameterError(f"two_sided must be True or False (got {two!r})")
    chosen = _theta(theta, target_size, r.alpha, r.target.m, r.stats.n if r.stats else None, bool(two))
    summ = filter_summary(r.rng, r.target.indices, noisy, r.target.m, r.alpha, chosen, bool(two))
    if max_size is not None:
        summ = raise_filter(summ, check_int(max_size, "max_size", 1, 10 ** 12))
    if r.consistency and r.dx is not None:           # consistency needs dyadic (_check_params)
        keep = consistent(r.dx, summ.indices)
        summ = Summary(summ.indices[keep], summ.values[keep], summ.weights[keep], summ.params)
    return summ


def _run_threshold(r: _Run, *, tau: float | None = None, target_size: int | None = None) -> Summary:
    noisy = _noisy(r)
    if tau is None:
        assert r.stats is not None                           # bought: tau is None (_needs_stats)
        l1 = r.stats.l1 * (r.dx.sensitivity if r.dx else 1)     # every count appears once per level
        tau = tau_for_size(r.alpha, _target(target_size, r.stats.n), l1, r.target.m)
    elif not (isinstance(tau, (int, float, np.integer, np.floating)) and np.isfinite(tau) and tau > 0):
        raise ParameterError(f"tau must be a finite number > 0 (got {tau!r})")
    return threshold_summary(r.rng, r.target.indices, noisy, r.target.m, r.alpha, float(tau))


def _run_priority(r: _Run, *, size: int | None = None) -> Summary:
    return _priority(r, _noisy(r), size, None)


def _run_filter_priority(r: _Run, *, theta: int | None = None, size: int | None = None) -> Summary:
    return _priority(r, _noisy(r), size, theta)


def _priority(r: _Run, noisy: np.ndarray, s: int | None, theta: int | None) -> Summary:
    top = max(r.target.m - 1, 1)
    if s is None:
        # the size from the noisy n is clamped into [1, m - 1] (post-processing of a released value):
        # raising here, after the statistics budget is spent, would fail at random and invite a
        # retry that spends epsilon again unseen
        assert r.stats is not None                           # bought: size is None (_needs_stats)
        s = min(max(1, int(round(r.stats.n))), top)
    s = check_int(s, "size", 1, top)
    if r.method == "priority":
        return priority_summary(r.rng, r.target.indices, noisy, r.target.m, r.alpha, s)
    if theta is None:
        theta = _default_fp_theta(r.alpha, r.target.m, r.stats, r.dx)
    theta = check_int(theta, "theta", 1, THETA_MAX)
    if not r.consistency or r.dx is None:           # consistency needs dyadic (_check_params)
        return priority_summary(r.rng, r.target.indices, noisy, r.target.m, r.alpha, s, theta)
    filt = filter_summary(r.rng, r.target.indices, noisy, r.target.m, r.alpha, theta, True)
    keep = consistent(r.dx, filt.indices)
    idx, val, tau_s = top_priorities(r.rng, filt.indices[keep], filt.values[keep], s)
    wts = np.sign(val) * np.maximum(np.abs(val), tau_s)
    return Summary(idx, val, wts.astype(float), {"size": s, "theta": theta, "tau_s": tau_s})


_RUNNERS: dict[str, Callable[..., Summary]] = {
    "filter": _run_filter, "threshold": _run_threshold, "priority": _run_priority,
    "filter-priority": _run_filter_priority, "geometric": _run_geometric}


def _default_fp_theta(alpha: float, m: int, stats, dx) -> int:
    """Section 4.2: theta about half the mean non-zero count. Over dyadic nodes (whose noise is
    ``levels`` times larger) our reading takes half the filter threshold for a target size n."""
    if dx is None:
        return max(1, int(round(stats.l1 / stats.n / 2)))
    return max(1, theta_for_size(alpha, stats.n, m - stats.n, True) // 2)


def _target(target_size: int | None, n_est) -> float:
    if target_size is None:
        return float(n_est)
    return float(check_int(target_size, "target_size", 1, 10 ** 12))


def _theta(theta: int | None, target_size: int | None, alpha: float, m: int, n_est, two_sided: bool) -> int:
    if theta is not None:
        if target_size is not None:
            raise ParameterError("give either theta or target_size, not both")
        return check_int(theta, "theta", 1, THETA_MAX)
    return theta_for_size(alpha, _target(target_size, n_est), m - n_est, two_sided)
