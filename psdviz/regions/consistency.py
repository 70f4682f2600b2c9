"""Consistent non-negative integer counts over a region tree, with standard errors.

Three steps on the region tree (a flat tree: :class:`psdviz.core.tree.FlatTree`, one row per region
below a virtual, unmeasured root):

1. least squares: the weighted least-squares estimate given every region's noisy count and its
   variance (:mod:`psdviz.inference.tree_gls`: the ICDE'12 OLS generalised to any fanout); its standard
   errors are exact for this linear step;
2. non-negativity: the non-negative least-squares estimate (:mod:`psdviz.inference.tree_nnls`);
3. integers: the total is rounded to the nearest integer, then top-down each parent's integer is
   shared among its children in proportion to their estimates: floors first, the remainder one each to
   the children with the largest fractional parts (ties: lower row). Parent = sum of children exactly,
   every count a non-negative integer.

All three read released values only (post-processing, no privacy cost).
"""
from __future__ import annotations

import numpy as np

from ..core.tree import FlatTree
from ..inference.tree_gls import gls_estimate, gls_plan, gls_variance_fn
from ..inference.tree_nnls import nnls_estimate


def region_tree(parent: np.ndarray, level: np.ndarray, noisy: np.ndarray, var: np.ndarray) -> FlatTree:
    """The flat tree of regions in tree order (``parent``: row of each region's parent, -1 at the top),
    below a virtual unmeasured root (row 0 of the tree; region i is tree row i + 1)."""
    n = parent.size
    par = np.r_[-1, np.where(parent >= 0, parent + 1, 0)]
    depth = np.r_[0, level + 1].astype(np.int16)
    kids = np.bincount(par[1:], minlength=n + 1).astype(np.int32)
    first = np.full(n + 1, -1, dtype=np.int64)
    rows = np.arange(1, n + 1)
    uniq, at = np.unique(par[1:], return_index=True)
    first[uniq] = rows[at]
    return FlatTree(rect=np.zeros((n + 1, 4)), depth=depth, parent=par.astype(np.int64), first_child=first,
                    n_children=kids, noisy=np.r_[np.nan, noisy], count_eps=np.zeros(n + 1),
                    split_eps=np.zeros(n + 1), noise_var=np.r_[np.inf, var])


def least_squares(tree: FlatTree) -> tuple[np.ndarray, np.ndarray]:
    """(estimate, standard error) of every tree row from the weighted least squares."""
    plan = gls_plan(tree, tree.noise_var)
    est = gls_estimate(tree, tree.noisy, plan)
    var_fn = gls_variance_fn(tree, plan)
    anc = ancestors(tree)
    leaves = tree.is_leaf
    se = np.empty(tree.n_nodes)
    for s in range(0, tree.n_nodes, 64):      # chunks of 64 nodes: weights stay (n_nodes, 64)
        cols = np.arange(s, min(s + 64, tree.n_nodes))
        w = leaves[:, None] & (anc[:, tree.depth[cols]] == cols[None, :])   # the leaves below each node
        se[cols] = np.sqrt(np.maximum(var_fn(w.astype(float)), 0.0))
    return est, se


def ancestors(tree: FlatTree) -> np.ndarray:
    """(n_nodes, height + 1): column d holds each row's ancestor at depth d (itself at its own depth),
    -1 below its depth. One vectorised step per level."""
    anc = np.full((tree.n_nodes, tree.height + 1), -1, dtype=np.int64)
    cur = np.arange(tree.n_nodes)
    depth = tree.depth.astype(np.int64)
    for k in range(tree.height + 1):          # k steps up: the ancestor at depth - k
        alive = cur >= 0
        anc[np.flatnonzero(alive), (depth - k)[alive]] = cur[alive]
        cur = np.where(alive, tree.parent[np.maximum(cur, 0)], -1)
    return anc


def non_negative(tree: FlatTree) -> np.ndarray:
    """The non-negative least-squares estimate of every row."""
    return nnls_estimate(tree, tree.noisy, tree.noise_var)


def integer_counts(tree: FlatTree, est: np.ndarray) -> np.ndarray:
    """Non-negative integers with every parent equal to the sum of its children (rule in the module
    docstring), vectorised per level."""
    est = np.maximum(est, 0.0)
    out = np.zeros(tree.n_nodes, dtype=np.int64)
    out[0] = int(np.rint(est[0]))
    bounds = tree.level_bounds()
    for d in range(1, tree.height + 1):
        rows = np.arange(bounds[d], bounds[d + 1])
        par = tree.parent[rows]
        total = np.bincount(par, weights=est[rows], minlength=tree.n_nodes)[par]
        n_kids = tree.n_children[par]
        share = np.where(total > 0, est[rows] / np.where(total > 0, total, 1.0), 1.0 / n_kids)
        want = share * out[par]
        base = np.floor(want).astype(np.int64)
        left = out - np.bincount(par, weights=base, minlength=tree.n_nodes).astype(np.int64)
        frac = want - base
        order = np.lexsort((rows, -frac, par))
        start = np.searchsorted(par[order], par[order], side="left")
        rank = np.arange(order.size) - start
        bump = np.zeros(rows.size, dtype=np.int64)
        bump[order] = (rank < left[par[order]]).astype(np.int64)
        out[rows] = base + bump
    return out
