"""Shared tail of builders that produce a complete tree of uniform fanout (ICDE'12 sections 5, 7).

Quadtrees and kd-trees flattened to fanout 4 (section 6.2) have the same shape, so they share:
OLS post-processing (level-uniform epsilons), pruning after post-processing, the fast pyramid
query path when the leaves form a regular grid, and exact answer variances via the OLS adjoint.
"""
from __future__ import annotations

import numpy as np

from ..core.domain import Domain, PointSet
from ..core.ledger import Ledger
from ..inference.ols import ols_coefficients, ols_estimate
from ..inference.prune import prune_tree
from ..query.pyramid import Pyramid
from ..publish.release import Release
from ..core.rng import Randomness
from ..core.tree import FlatTree


def finish_complete_tree(tree: FlatTree, eps: np.ndarray, fanout: int, ps: PointSet, domain: Domain,
                     ledger: Ledger, rnd: Randomness, method: str, params: dict, *,
                     grid: np.ndarray | None, postprocess: bool, prune: float | None,
                     private: bool = True, notes: tuple[str | None, ...] = ()) -> Release:
    """OLS (if ``postprocess``), pruning (if ``prune``), fast query index and the Release.

``eps`` is the count epsilon per depth; ``notes`` (None entries skipped) go into the release; ``grid`` (optional) maps (row, column) of the leaf grid
to the position within the leaf level (Morton ids for the quadtree), enabling the pyramid path.
"""
    full = tree
    consistent = bool(postprocess or (eps[:-1] == 0).all())
    if postprocess:
        tree.est = ols_estimate(tree, eps, fanout)
    elif consistent:  # leaf-only budget: internal estimates are sums of noisy leaves
        tree.est = tree.subtree_sum(tree.noisy)
    kept = None
    if prune is not None:
        tree, kept = prune_tree(tree, prune, use_estimate=consistent)
    pyramid = None
    if grid is not None and kept is None:
        lo = tree.level_bounds()
        levels = [tree.height] if consistent else [d for d in range(tree.height + 1) if eps[d] > 0]
        vals = tree.est if consistent else tree.noisy
        pyramid = Pyramid.from_grids(domain, [vals[lo[d]:lo[d + 1]][_grid_at(grid, tree.height - d)]
                                              for d in levels])
    if postprocess:
        var_fn = ols_variance_fn(full, eps, fanout, kept)
    elif consistent:
        var_fn = leaf_variance_fn(full, kept)
    else:
        var_fn = None
    return Release(method, params, domain, tree, ledger, rnd, ps.report(), consistent,
                   private=private, pyramid=pyramid, leaf_variance=var_fn, notes=[n for n in notes if n])


def _full_leaf_weights(full: FlatTree, kept: np.ndarray | None, w: np.ndarray) -> np.ndarray:
    """Weights on the full tree's leaves for weights given on a (possibly pruned) tree's leaves."""
    bounds = full.level_bounds()
    if kept is None:
        return w[bounds[full.height]:]
    big = np.zeros((full.n_nodes, w.shape[1]))
    big[kept] = w
    for d in range(1, full.height + 1):
        lo, hi = bounds[d], bounds[d + 1]
        big[lo:hi] += big[full.parent[lo:hi]]
    return big[bounds[full.height]:]


def ols_variance_fn(full: FlatTree, eps: np.ndarray, fanout: int, kept: np.ndarray | None):
    """Variance of sums of OLS leaf estimates: sum_v Var(Y_v) c_v^2 with c from the OLS adjoint."""
    finite = np.isfinite(full.noise_var)

    def fn(w: np.ndarray) -> np.ndarray:
        coef = ols_coefficients(full, eps, fanout, _full_leaf_weights(full, kept, w))
        return (coef[finite] ** 2 * full.noise_var[finite, None]).sum(axis=0)
    return fn


def leaf_variance_fn(full: FlatTree, kept: np.ndarray | None):
    """Variance of sums of independent noisy leaf counts."""
    leaf_var = full.noise_var[full.level_bounds()[full.height]:]

    def fn(w: np.ndarray) -> np.ndarray:
        return (_full_leaf_weights(full, kept, w) ** 2 * leaf_var[:, None]).sum(axis=0)
    return fn



def _grid_at(leaf_grid: np.ndarray, up: int) -> np.ndarray:
    """Position-within-level ids of the grid ``up`` levels above the leaves (Morton order)."""
    g = leaf_grid[:: 1 << up, :: 1 << up] if up else leaf_grid
    return g >> (2 * up)
