"""Pruning during the build (ICDE'12 section 7, as the authors' prototype applies it): a node whose
noisy count is at most max(m, one noise sd of that count) is not split, and is measured again with
the count budget of the levels below it; the second count replaces the first.

The decision reads only the node's released noisy count and its public variance (post-processing),
never whether the node holds points. The floor of one noise sd (``STOP_SDS``) stops the false
splitting of empty nodes when the noise is wider than m; a build may ask for a higher floor
(``stop_sds``): under non-negative least squares an empty node split by chance leaves noisy leaves
whose positive noise is kept, so auto's routes with NNLS stop at two sds.

Privacy: every root-to-leaf path pays its count levels once: a node alive at depth k is measured with
eps_k; a node stopped at depth d is measured with eps_d, then once with eps_{d+1} + ... + eps_h, what
the levels below would have cost (its region is disjoint from the nodes still alive there, so each
ledger line "count" at depth k covers both). Medians drawn in a stopped node's subtree stay in the
ledger and in its ``pruned_eps``. The tree is then post-processed by the general GLS
(``inference/tree_gls.py``).

Why the second count replaces the first, and the measurements behind the floor: docs/decisions/
early-stop.md.
"""
from __future__ import annotations

from typing import Literal, get_args

import numpy as np

from ..core.budget import STOP_SDS  # a node stops when its noisy count <= max(threshold, STOP_SDS * sd)
from ..core.ledger import Ledger
from ..core.noise import geometric_noise, geometric_variance
from ..core.progress import report
from ..core.rng import Randomness
from ..core.tree import FlatTree

Pruning = Literal["after_ols", "build"]   # when a tree's prune threshold applies
PRUNINGS: tuple[str, ...] = get_args(Pruning)


def check_pruning(pruning: str) -> str:
    """``pruning`` if it is one of :data:`PRUNINGS`, else a ValueError naming them."""
    if pruning not in PRUNINGS:
        raise ValueError(f"pruning must be one of {PRUNINGS} (got {pruning!r})")
    return pruning


def effective_pruning(pruning: str, eps: np.ndarray, prune: float | None) -> tuple[str, str | None]:
    """The pruning that applies to a tree measured with count epsilon ``eps`` per depth and threshold
    ``prune``, and a note when it differs from the one asked for: a plan that measures no level above
    the leaves (budget "leaf") gives the build nothing to stop on, so the threshold applies after least
    squares."""
    check_pruning(pruning)
    if pruning == "build" and prune is not None and not (np.asarray(eps)[:-1] > 0).any():
        return "after_ols", ("pruning after least squares: the budget plan measures no level above the "
                             "leaves, so no node can stop during the build")
    return pruning, None


def stop_floor(pruning: str, prune: float | None, stop_sds: float) -> tuple[dict, str | None]:
    """The release's record of a floor other than the default: ``{"stop_sds": k}`` when the build stops on it,
    else a note that it was not used (the tree is pruned after least squares, or not at all)."""
    if stop_sds == STOP_SDS:
        return {}, None
    if pruning == "build" and prune is not None:
        return {"stop_sds": float(stop_sds)}, None
    return {}, (f"stop_sds={stop_sds:g} was not used: the floor applies only when the tree is pruned during its "
                "build (pruning='build' with a prune threshold)")


def measure_with_stops(rnd: Randomness, ledger: Ledger, full: FlatTree, level_counts: list[np.ndarray],
                       eps: np.ndarray, threshold: float, split_by_depth: np.ndarray,
                       sds: float = STOP_SDS, progress: str | None = None) -> FlatTree:
    """Measure the complete tree ``full`` top-down, stopping below nodes whose noisy count is <=
    max(threshold, sds * noise sd) (module docstring).

    ``level_counts``: exact counts per depth (root first, node order of ``full``); ``eps``: count
    epsilon per depth; ``split_by_depth``: the split epsilon of a node at each depth; ``progress``: the
    label under which each measured depth is reported (:func:`psdviz.core.progress.report`). Returns the
    measured sub-tree (noisy, noise_var, count_eps, pruned_eps set)."""
    counts = np.concatenate(level_counts).astype(np.int64)
    n, height = counts.size, full.height
    bounds = full.level_bounds()
    noisy, var, ceps = np.full(n, np.nan), np.full(n, np.inf), np.zeros(n)
    alive = np.zeros(n, bool)
    alive[0] = True
    stopped_above = 0
    rest = np.r_[np.cumsum(eps[::-1])[::-1][1:], 0.0]        # rest[d] = eps[d+1] + ... + eps[h]
    for d in range(height + 1):
        idx = bounds[d] + np.flatnonzero(alive[bounds[d]:bounds[d + 1]])
        if eps[d] > 0:
            ledger.spend("count", float(eps[d]), "geometric", level=d, nodes=int(idx.size) + stopped_above,
                         note="" if not stopped_above else
                         f"also {stopped_above} nodes stopped above this depth, measured once with the "
                         "count budget of the depths below them (pruning during the build)")
            noisy[idx] = counts[idx] + geometric_noise(rnd.rng, idx.size, float(eps[d]))
            var[idx], ceps[idx] = geometric_variance(float(eps[d])), eps[d]
        if progress:
            report(d + 1, height + 1, progress)
        if d == height:
            break
        limit = np.maximum(threshold, sds * np.sqrt(var[idx])) if sds > 0 else threshold
        stop = idx[np.isfinite(noisy[idx]) & (noisy[idx] <= limit)]
        if stop.size and rest[d] > 0:
            _second_count(rnd, counts, stop, float(rest[d]), noisy, var, ceps)
        stopped_above += stop.size
        grow = np.setdiff1d(idx, stop, assume_unique=True)
        kids = (full.first_child[grow][:, None] + np.arange(4)).ravel()
        alive[kids] = True
    tree = FlatTree(rect=full.rect, depth=full.depth, parent=full.parent, first_child=full.first_child,
                    n_children=full.n_children, noisy=noisy, count_eps=ceps, split_eps=full.split_eps,
                    noise_var=var)
    kept = tree.take(alive)
    below = np.r_[np.cumsum(split_by_depth[::-1])[::-1][1:], 0.0]   # splits drawn under a node
    kept.pruned_eps = np.where(kept.is_leaf & (kept.depth < height), below[kept.depth], 0.0)
    return kept


def _second_count(rnd: Randomness, counts: np.ndarray, nodes: np.ndarray, eps: float, noisy: np.ndarray,
                  var: np.ndarray, ceps: np.ndarray) -> None:
    """Measure ``nodes`` again with ``eps``; the new count replaces the one that stopped them."""
    noisy[nodes] = counts[nodes] + geometric_noise(rnd.rng, nodes.size, eps)
    var[nodes] = geometric_variance(eps)
    ceps[nodes] += eps
