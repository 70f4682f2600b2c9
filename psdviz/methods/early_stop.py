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

from collections.abc import Callable
from typing import Literal, get_args

import numpy as np

from ..core.budget import STOP_SDS  # a node stops when its noisy count <= max(threshold, STOP_SDS * sd)
from ..core.errors import ParameterError
from ..core.ledger import Ledger
from ..core.noise import geometric_noise, geometric_variance
from ..core.progress import report
from ..core.rng import Randomness
from ..core.tree import FlatTree, child_links

Pruning = Literal["after_ols", "build"]   # when a tree's prune threshold applies
PRUNINGS: tuple[str, ...] = get_args(Pruning)
# a depth's measured nodes: indices in the complete level, noisy counts, variances, epsilons
Level = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
Rects = Callable[[int, np.ndarray], np.ndarray]   # (depth, node indices in its complete level) -> (k, 4) rectangles


def check_pruning(pruning: str) -> str:
    """``pruning`` if it is one of :data:`PRUNINGS`, else a ValueError naming them."""
    if pruning not in PRUNINGS:
        raise ParameterError(f"pruning must be one of {PRUNINGS} (got {pruning!r})")
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


def measure_with_stops(rnd: Randomness, ledger: Ledger, level_counts: list[np.ndarray], eps: np.ndarray,
                       threshold: float, split_by_depth: np.ndarray, rects_of: Rects, *, root_split: float = 0.0,
                       sds: float = STOP_SDS, progress: str | None = None, fanout: int = 4) -> FlatTree:
    """Measure the complete tree of ``fanout`` top-down, stopping below nodes whose noisy count is <=
    max(threshold, sds * noise sd) (module docstring).

    The complete tree is implicit: node i of depth d has children fanout*i .. fanout*i + fanout - 1 of
    depth d + 1 (the quadtree's Morton order, a flattened kd-tree's order), so only the measured nodes are
    made, level by level. ``level_counts``: exact counts per depth (root first, every node of the complete
    level in that order); ``eps``: count epsilon per depth; ``split_by_depth``: the split epsilon of a node
    at each depth (``root_split`` more at the root: a noisy N that chose the height); ``rects_of(d, i)``:
    the rectangles of nodes ``i`` of depth d; ``progress``: the label under which each measured depth is
    reported (:func:`psdviz.core.progress.report`). Returns the measured sub-tree in level order (noisy,
    noise_var, count_eps, pruned_eps set)."""
    height = len(level_counts) - 1
    rest = np.r_[np.cumsum(eps[::-1])[::-1][1:], 0.0]        # rest[d] = eps[d+1] + ... + eps[h]
    idx, stopped_above = np.zeros(1, dtype=np.int64), 0
    levels: list[Level] = []
    for d in range(height + 1):
        count = np.asarray(level_counts[d], dtype=np.int64)[idx]
        noisy, var, ceps = np.full(idx.size, np.nan), np.full(idx.size, np.inf), np.zeros(idx.size)
        if eps[d] > 0:
            ledger.spend("count", float(eps[d]), "geometric", level=d, nodes=int(idx.size) + stopped_above,
                         note="" if not stopped_above else
                         f"also {stopped_above} nodes stopped above this depth, measured once with the "
                         "count budget of the depths below them (pruning during the build)")
            noisy = count + geometric_noise(rnd.rng, idx.size, float(eps[d]))
            var[:], ceps[:] = geometric_variance(float(eps[d])), eps[d]
        if progress:
            report(d + 1, height + 1, progress)
        stop = np.zeros(idx.size, dtype=bool)
        if d < height:
            limit = np.maximum(threshold, sds * np.sqrt(var)) if sds > 0 else threshold
            stop = np.isfinite(noisy) & (noisy <= limit)
            if stop.any() and rest[d] > 0:     # the second count replaces the one that stopped them
                noisy[stop] = count[stop] + geometric_noise(rnd.rng, int(stop.sum()), float(rest[d]))
                var[stop] = geometric_variance(float(rest[d]))
                ceps[stop] += rest[d]
            stopped_above += int(stop.sum())
        levels.append((idx, noisy, var, ceps))
        idx = (fanout * idx[~stop][:, None] + np.arange(fanout)).ravel()
    return _measured_tree(levels, fanout, rects_of, split_by_depth, root_split, height)


def _measured_tree(levels: list[Level], fanout: int, rects_of: Rects, split_by_depth: np.ndarray,
                   root_split: float, height: int) -> FlatTree:
    """The measured nodes of every depth (their indices in the complete level, noisy counts, variances and
    epsilons) as a level-ordered tree with links; a stopped node's ``pruned_eps`` is the split epsilon
    its complete subtree would have drawn."""
    sizes = [lv[0].size for lv in levels]
    start = np.r_[0, np.cumsum(sizes)]
    depth = np.repeat(np.arange(len(levels), dtype=np.int16), sizes)
    parent = np.concatenate([np.full(1, -1, dtype=np.int64)] + [
        start[d - 1] + np.searchsorted(levels[d - 1][0], levels[d][0] // fanout) for d in range(1, len(levels))])
    first_child, n_children = child_links(parent)
    split_eps = np.asarray(split_by_depth, dtype=float)[depth]
    split_eps[0] += root_split

    def joined(k: int) -> np.ndarray:
        return np.concatenate([lv[k] for lv in levels])
    tree = FlatTree(rect=np.concatenate([rects_of(d, lv[0]) for d, lv in enumerate(levels)]), depth=depth,
                    parent=parent, first_child=first_child, n_children=n_children, noisy=joined(1),
                    count_eps=joined(3), split_eps=split_eps, noise_var=joined(2))
    below = np.r_[np.cumsum(split_by_depth[::-1])[::-1][1:], 0.0]   # splits drawn under a node
    tree.pruned_eps = np.where(tree.is_leaf & (tree.depth < height), below[tree.depth], 0.0)
    return tree
