"""Pruning (ICDE'12 section 7): cut the tree below nodes whose released count is small.

The decision must not look at true counts: it uses the post-processed estimate when OLS ran
(the paper prunes after post-processing) and the raw noisy count otherwise. Either is a function
of released values only, so pruning is post-processing and costs no budget.
"""
from __future__ import annotations

import numpy as np

from ..core.errors import ParameterError
from ..core.tree import FlatTree


def prune_mask(tree: FlatTree, threshold: float, use_estimate: bool = True) -> np.ndarray:
    """Nodes kept: those with no proper ancestor whose value is below ``threshold``."""
    if not np.isfinite(threshold):
        raise ParameterError(f"prune threshold must be a finite number (got {threshold!r})")
    value = tree.est if use_estimate else tree.noisy
    small = np.isfinite(value) & (value < threshold) & ~tree.is_leaf
    cut = np.zeros(tree.n_nodes, bool)  # cut[v]: some proper ancestor of v is small
    bounds = tree.level_bounds()
    for d in range(1, tree.height + 1):
        lo, hi = bounds[d], bounds[d + 1]
        p = tree.parent[lo:hi]
        cut[lo:hi] = cut[p] | small[p]
    return ~cut


def prune_tree(tree: FlatTree, threshold: float, use_estimate: bool = True) -> tuple[FlatTree, np.ndarray]:
    """The pruned tree and, for each of its nodes, the id it had in ``tree``."""
    keep = prune_mask(tree, threshold, use_estimate)
    kept = np.flatnonzero(keep)
    below = tree.below_epsilons()
    small = tree.take(keep)
    # new leaves keep the cost of the measurements that were cut below them (ledger stays exact)
    extra = np.where(small.is_leaf & ~tree.is_leaf[kept], below[kept], 0.0)
    if tree.pruned_eps is not None:
        extra = extra + tree.pruned_eps[kept]
    small.pruned_eps = extra
    return small, kept
