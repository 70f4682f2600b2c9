"""Consistent non-negative integer counts over a region tree, with standard errors.

Three steps on the region tree (a flat tree: :class:`psdviz.core.tree.FlatTree`, one row per region
below a virtual, unmeasured root):

1. least squares: the weighted least-squares estimate given every region's noisy count and its
   variance (:mod:`psdviz.inference.tree_gls`: the ICDE'12 OLS generalised to any fanout); its standard
   errors are exact for this linear step;
2. top level: each top-level region's least-squares estimate, clipped at 0 and rounded to the nearest
   integer;
3. top-down, level by level: a parent's integer is shared among its children as the closest
   non-negative values to their least-squares estimates that sum to it (Euclidean projection onto the
   simplex, as the US Census TopDown algorithm fits each level under its parent), then made integers:
   floors first, the remainder one each to the children with the largest fractional parts (ties: lower
   row). Parent = sum of children exactly, every count a non-negative integer, and no level's clipping
   at zero inflates the levels above it (clipping counties before summing them up would).

All three read released values only (post-processing, no privacy cost).
"""
from __future__ import annotations

import numpy as np

from ..core.tree import FlatTree, child_links
from ..inference.tree_gls import gls_estimate, gls_node_variance, gls_plan


def region_tree(parent: np.ndarray, level: np.ndarray, noisy: np.ndarray, var: np.ndarray) -> FlatTree:
    """The flat tree of regions in tree order (``parent``: row of each region's parent, -1 at the top),
    below a virtual unmeasured root (row 0 of the tree; region i is tree row i + 1)."""
    n = parent.size
    par = np.r_[-1, np.where(parent >= 0, parent + 1, 0)]
    depth = np.r_[0, level + 1].astype(np.int16)
    first, kids = child_links(par)
    return FlatTree(rect=np.zeros((n + 1, 4)), depth=depth, parent=par.astype(np.int64), first_child=first,
                    n_children=kids, noisy=np.r_[np.nan, noisy], count_eps=np.zeros(n + 1),
                    split_eps=np.zeros(n + 1), noise_var=np.r_[np.inf, var])


def least_squares(tree: FlatTree) -> tuple[np.ndarray, np.ndarray]:
    """(estimate, standard error) of every tree row from the weighted least squares; the standard errors
    exact, in two passes over the tree (:func:`psdviz.inference.tree_gls.gls_node_variance`)."""
    plan = gls_plan(tree, tree.noise_var)
    est = gls_estimate(tree, tree.noisy, plan)
    return est, np.sqrt(np.maximum(gls_node_variance(tree, tree.noise_var, plan), 0.0))


def up_sums(values: np.ndarray, parent: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """Leaf values summed into every ancestor (children into parents, deepest level first)."""
    out = np.asarray(values, dtype=float).copy()
    for d in range(int(levels.max(initial=0)), 0, -1):
        at = np.flatnonzero((levels == d) & (parent >= 0))
        out += np.bincount(parent[at], weights=out[at], minlength=parent.size)
    return out


def area_shares(parent: np.ndarray, levels: np.ndarray, leaf_area: np.ndarray) -> np.ndarray:
    """Each region's share of its parent (1 at the top): the area of its leaf regions over its
    parent's, so a parent's children share all of it even where the layer has gaps; equal shares
    among siblings whose areas sum to zero."""
    area = up_sums(leaf_area, parent, levels)
    has = parent >= 0
    total = np.ones(parent.size)
    total[has] = area[parent[has]]
    siblings = np.bincount(parent[has], minlength=parent.size)
    share = np.ones(parent.size)
    ok = has & (total > 0)
    share[ok] = area[ok] / total[ok]
    flat = has & ~(total > 0)
    share[flat] = 1.0 / siblings[parent[flat]]
    return share


def simplex_project(y: np.ndarray, group: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Per group, the closest non-negative values (Euclidean) to ``y`` that sum to the group's
    ``target`` (given per element): x = max(y - tau, 0) with tau fixed by the sum. Vectorised: one sort
    by (group, -y) and cumulative sums within groups."""
    order = np.lexsort((-y, group))
    g, ys, t = group[order], y[order], target[order]
    start = np.searchsorted(g, g, side="left")
    j = np.arange(g.size) - start + 1
    csum = np.cumsum(ys)
    within = csum - (csum[start] - ys[start])
    ok = ys - (within - t) / j > 0
    rho = np.zeros(int(g.max()) + 1 if g.size else 0, dtype=np.int64)
    np.maximum.at(rho, g, np.where(ok, j, 0))
    at = np.maximum(start + rho[g] - 1, start)                 # position of the rho-th element of the group
    tau = np.where(rho[g] > 0, (within[at] - t) / np.maximum(rho[g], 1), np.inf)
    out = np.empty_like(y, dtype=float)
    out[order] = np.maximum(ys - tau, 0.0)
    return out


def integer_counts(tree: FlatTree, ls: np.ndarray) -> np.ndarray:
    """Non-negative integers top-down (rule in the module docstring), vectorised per level."""
    out = np.zeros(tree.n_nodes, dtype=np.int64)
    bounds = tree.level_bounds()
    top = np.arange(bounds[1], bounds[2])
    out[top] = np.rint(np.maximum(ls[top], 0.0)).astype(np.int64)
    out[0] = out[top].sum()
    for d in range(2, tree.height + 1):
        rows = np.arange(bounds[d], bounds[d + 1])
        par = tree.parent[rows]
        want = simplex_project(ls[rows], par, out[par].astype(float))
        base = np.floor(want + 1e-9).astype(np.int64)
        left = out - np.bincount(par, weights=base, minlength=tree.n_nodes).astype(np.int64)
        frac = want - base
        order = np.lexsort((rows, -frac, par))
        start = np.searchsorted(par[order], par[order], side="left")
        rank = np.arange(order.size) - start
        bump = np.zeros(rows.size, dtype=np.int64)
        bump[order] = (rank < left[par[order]]).astype(np.int64)
        out[rows] = base + bump
    return out
