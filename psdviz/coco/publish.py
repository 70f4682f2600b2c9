"""``publish``: the one entry point for count-of-counts histograms over a hierarchy.

Slides of Kuo et al. (VLDB 2018), section 3. Budget: ``epsilon_per_level[l]`` is spent on the nodes
of level l. The nodes of one level partition the groups (each group lies in one leaf, hence in one
node per level), so within a level the measurements compose in parallel; along a root-to-leaf path
they compose sequentially, and the ledger total is ``sum(epsilon_per_level)``.

``consistency``:

* ``"top-down"`` (the paper's method): every level measured, then matched and merged top-down
  (:mod:`psdviz.coco.consistency`); needs "hg" or "hc" at every level;
* ``"independent"``: every level measured, each node published as estimated (not consistent);
* ``"bottom-up"``: the whole budget ``sum(epsilon_per_level)`` on the leaves, every other node the
  sum of its leaves (the slides' bottom-up aggregation baseline).
"""
from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Literal, get_args

import numpy as np

from ..core.errors import ParameterError
from ..core.ledger import Ledger
from ..core.params import Param, declared, doc
from ..core.rng import Randomness, make_randomness
from ..core.validation import check_epsilon, warn_large_epsilon
from . import cumulative, naive, unattributed
from .consistency import MERGES, Merge, aggregate_up, top_down
from .estimate import LevelEstimate
from .hierarchy import Hierarchy
from .release import CocoRelease
from .representations import true_histograms
from .table import GroupedTable

_MODULES = {"naive": naive, "hg": unattributed, "hc": cumulative}
METHODS: tuple[str, ...] = tuple(_MODULES)
STRUCTURE_PUBLIC = "G per node and the hierarchy are public inputs (declared group list, empty groups included)"
STRUCTURE_FROM_DATA = ("G and hierarchy from the data: not private (G per node is the exact number of groups "
                       "seen in the records; declare the group list to make them public inputs)")
Consistency = Literal["top-down", "independent", "bottom-up"]
Loss = Literal["l2", "l1"]
CONSISTENCY: tuple[str, ...] = get_args(Consistency)
LOSSES: tuple[str, ...] = get_args(Loss)
# publish's options (name, kind, default and choices from its signature: :func:`psdviz.core.params.declared`)
_DECLARED = {
    "consistency": doc("How the levels are made consistent: top-down (match and merge each node's children, the "
                       "paper's method; needs hg or hc), independent (each node as estimated) or bottom-up (the whole "
                       "budget on the leaves, parents are sums).", "Kuo et al. VLDB'18, section 3"),
    "loss": doc("Loss of the isotonic fits of hg / hc (l2: least squares, l1: least absolute deviations).",
                "Kuo et al. VLDB'18, section 3.2"),
    "merge": doc("How a parent's estimate and its children's sum are merged top-down: weighted by inverse variance "
                 "(the paper) or a plain average (the slides' comparison).", "Kuo et al. VLDB'18, section 3.3"),
}


def method_parameters(method: str) -> dict[str, Param]:
    """name -> :class:`~psdviz.core.params.Param` for ``publish``'s options with ``method`` (one of
    :data:`METHODS`, used at every level; per-level mixes take the same options)."""
    if method not in METHODS:
        raise ParameterError(f"unknown count-of-counts method {method!r}; choose one of {METHODS}")
    return declared(publish, _DECLARED, _DECLARED, "count-of-counts")


def _per_level(value, n_levels: int, name: str) -> list:
    if isinstance(value, (str, int, float, np.integer, np.floating)):
        return [value] * n_levels
    values = list(value)
    if len(values) != n_levels:
        raise ParameterError(f"{name} must be one value or one per level ({n_levels}), got {len(values)}")
    return values


def _is_method(value) -> bool:
    return isinstance(value, str) or (isinstance(value, Sequence) and all(isinstance(v, str) for v in value))


def _entry_order(method, epsilon, epsilon_per_level):
    """(method, epsilon), accepting ``epsilon_per_level=`` and the earlier positional order with a warning."""
    if epsilon_per_level is not None:
        warnings.warn("publish(..., epsilon_per_level=...) is deprecated: write epsilon=...", DeprecationWarning,
                      stacklevel=3)
        return method, epsilon_per_level
    if not _is_method(method):     # numbers where the method goes: the earlier order (epsilons, method)
        warnings.warn("publish(table, hierarchy, epsilons, method) is deprecated: write publish(table, hierarchy, "
                      "method=..., epsilon=...)", DeprecationWarning, stacklevel=3)
        return (epsilon if _is_method(epsilon) else "hc"), method
    return method, epsilon


def _same(a: Hierarchy, b: Hierarchy) -> bool:
    return a is b or (isinstance(a, Hierarchy) and a.names == b.names
                      and np.array_equal(a.parent, b.parent) and np.array_equal(a.level, b.level))


def _check(table, hierarchy, epsilon_per_level, method, consistency, loss, merge):
    if not isinstance(table, GroupedTable):
        raise ParameterError("table must be a GroupedTable (see psdviz.coco.group_records)")
    if hierarchy is not None and not _same(hierarchy, table.hierarchy):
        raise ParameterError("hierarchy must be the one the table was grouped with (or None)")
    L = table.hierarchy.n_levels
    given = _per_level(epsilon_per_level, L, "epsilon")
    eps = [check_epsilon(e, f"epsilon[{i}] (level {i})") for i, e in enumerate(given)]
    warn_large_epsilon(sum(eps), stacklevel=4)
    methods = [str(m) for m in _per_level(method, L, "method")]
    for m in methods:
        if m not in METHODS:
            raise ParameterError(f"method must be one of {tuple(METHODS)} (got {m!r})")
    if consistency not in CONSISTENCY:
        raise ParameterError(f"consistency must be one of {CONSISTENCY} (got {consistency!r})")
    if consistency == "top-down" and "naive" in methods:
        raise ParameterError("consistency='top-down' needs method 'hg' or 'hc' at every level")
    if loss not in LOSSES:
        raise ParameterError(f"loss must be one of {LOSSES} (got {loss!r})")
    if merge not in MERGES:
        raise ParameterError(f"merge must be one of {MERGES} (got {merge!r})")
    return eps, methods


def _measure(H: np.ndarray, method: str, eps: float, level: int, n_nodes: int, rnd: Randomness,
             ledger: Ledger, loss: str) -> LevelEstimate:
    module = _MODULES[method]
    ledger.spend(f"{method} histograms", eps, "geometric", level=level, nodes=n_nodes,
                 sensitivity=module.SENSITIVITY,
                 note=f"{module.__name__.rsplit('.', 1)[-1]} query, one per node of level {level}")
    return module.estimate(H, eps, rnd.rng, loss=loss)


def publish(table: GroupedTable, hierarchy: Hierarchy | None = None, method: str | Sequence[str] = "hc",
            epsilon: float | Sequence[float] = 1.0, seed: int | Randomness | None = None, *,
            consistency: Consistency = "top-down", loss: Loss = "l2", merge: Merge = "weighted",
            epsilon_per_level: float | Sequence[float] | None = None, privacy_budget=None) -> CocoRelease:
    """Private count-of-counts histograms of every node of the table's hierarchy.

    Parameters
    ----------
    table : GroupedTable
        Records reduced to groups (``group_records``), with the public hierarchy.
    hierarchy : Hierarchy, optional
        Must be the table's own when given.
    method : str or sequence of str
        "naive", "hg" or "hc", or one per level (the slides mix H_c and H_g per level).
    epsilon : float or sequence of float
        The budget of each level (one number for every level, or one per level); levels compose
        sequentially, so the release's epsilon is their sum.
    seed : int or None
        None for fresh randomness; an integer for a reproducible, labelled teaching run.
    consistency, loss, merge : str
        Declared in ``method_parameters(method)``.
    privacy_budget : psdviz.Budget, optional
        The data set's budget across releases (:mod:`psdviz.budget`): checked before the table is read,
        the release recorded in it.

    ``epsilon_per_level=`` and the earlier order ``publish(table, hierarchy, method, epsilons)`` still
    work, with a DeprecationWarning.
    """
    method, epsilon = _entry_order(method, epsilon, epsilon_per_level)
    eps, methods = _check(table, hierarchy, epsilon, method, consistency, loss, merge)
    if privacy_budget is not None:
        privacy_budget.check(float(sum(eps)), 0.0, "one record")
    h = table.hierarchy
    rnd = make_randomness(seed)
    truth = true_histograms(table)          # private input of the mechanisms only
    groups = truth.sum(axis=1)              # G per node: public when the group list was declared
    K = table.max_size
    ledger = Ledger(float(sum(eps)))
    independent = np.full_like(truth, -1)
    if consistency == "bottom-up":
        leaves = h.leaves
        est = _measure(truth[leaves], methods[-1], float(sum(eps)), h.n_levels - 1, leaves.size, rnd, ledger, loss)
        independent[leaves] = est.hist
        hist = aggregate_up(h, est.hist)
    else:
        estimates = []
        for level in range(h.n_levels):
            ids = h.level_nodes(level)
            est = _measure(truth[ids], methods[level], eps[level], level, ids.size, rnd, ledger, loss)
            independent[ids] = est.hist
            estimates.append(est)
        hist = top_down(h, estimates, K, merge) if consistency == "top-down" else independent.copy()
    params = {"epsilon_per_level": ",".join(f"{e:g}" for e in eps), "loss": loss, "merge": merge,
              "max_size": K}
    notes = [(STRUCTURE_PUBLIC if table.public_groups else STRUCTURE_FROM_DATA)
             + f"; group sizes truncated at K = {K}"]
    rel = CocoRelease(h, K, groups, hist, independent, tuple(methods), consistency, params, ledger, rnd, tuple(notes),
                      structure_public=table.public_groups, input_report=table.report())
    if privacy_budget is not None:
        privacy_budget.draw(rel, "count-of-counts")
    return rel
