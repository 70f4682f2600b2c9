"""Ordinary least squares post-processing of a complete tree (ICDE'12 section 5).

Implements Definition 3 by the three linear passes of Lemma 4 / Theorem 5, one numpy pass per
level. Requirements, as in the paper: a complete tree of fanout f stored level by level with the
children of a level's i-th node at positions f*i .. f*i+f-1 of the next level, and the same epsilon
for all nodes of a level (uniform or geometric plans; leaf-only works too). Levels with epsilon 0
released nothing and get weight 0.

The solver is linear in the leaf right-hand side, so the same passes also give the adjoint used
for exact query variances (:func:`ols_coefficients`).
"""
from __future__ import annotations

import numpy as np

from ..core.tree import FlatTree


def _check(tree: FlatTree, eps_by_depth: np.ndarray, fanout: int) -> np.ndarray:
    h = tree.height
    bounds = tree.level_bounds()
    sizes = np.diff(bounds)
    if not np.array_equal(sizes, fanout ** np.arange(h + 1)):
        raise ValueError("OLS needs a complete tree with the same fanout on every level")
    eps = np.asarray(eps_by_depth, dtype=float)
    if eps.shape != (h + 1,):
        raise ValueError(f"need one epsilon per level (expected {h + 1}, got {eps.shape})")
    if eps[-1] <= 0:
        raise ValueError("OLS needs noisy counts on the leaves (leaf epsilon > 0)")
    return bounds


def _solve(bounds: np.ndarray, eps: np.ndarray, fanout: int, z_leaf: np.ndarray) -> np.ndarray:
    """Phases II and III: given Z at the leaves (shape (n_leaves, k)), return beta for all nodes."""
    h = eps.size - 1
    k = z_leaf.shape[1]
    # E_l over paper levels l (height): E_l = sum_{j<=l} f^j eps_j^2, eps_j = eps at depth h - j
    w = eps[::-1] ** 2
    e_by_height = np.cumsum(fanout ** np.arange(h + 1, dtype=float) * w)
    z: list[np.ndarray] = [z_leaf] * (h + 1)   # Z per depth, the leaves' first
    for d in range(h - 1, -1, -1):  # Phase II, bottom-up: Z_v = sum over children
        z[d] = z[d + 1].reshape(-1, fanout, k).sum(axis=1)
    beta = np.empty((bounds[-1], k))
    beta_prev = z[0] / e_by_height[h]
    f_prev = np.zeros((1, k))
    beta[bounds[0]:bounds[1]] = beta_prev
    for d in range(1, h + 1):  # Phase III, top-down
        hv = h - d
        f_cur = np.repeat(f_prev + beta_prev * eps[d - 1] ** 2, fanout, axis=0)
        beta_prev = (z[d] - float(fanout) ** hv * f_cur) / e_by_height[hv]
        f_prev = f_cur
        beta[bounds[d]:bounds[d + 1]] = beta_prev
    return beta


def ols_estimate(tree: FlatTree, eps_by_depth: np.ndarray, fanout: int) -> np.ndarray:
    """The OLS estimate beta (Definition 3) for every node, from ``tree.noisy``."""
    bounds = _check(tree, eps_by_depth, fanout)
    eps = np.asarray(eps_by_depth, dtype=float)
    y = np.where(np.isfinite(tree.noisy), tree.noisy, 0.0)
    alpha = np.zeros(1)
    for d in range(tree.height + 1):  # Phase I, top-down: alpha_u = alpha_par(u) + eps^2 Y_u
        alpha = np.repeat(alpha, fanout if d else 1) + eps[d] ** 2 * y[bounds[d]:bounds[d + 1]]
    return _solve(bounds, eps, fanout, alpha[:, None])[:, 0]


def ols_coefficients(tree: FlatTree, eps_by_depth: np.ndarray, fanout: int,
                     leaf_weights: np.ndarray) -> np.ndarray:
    """Coefficients c (nodes x k) with  w^T beta_leaves = c^T Y  for each column w of leaf weights.

    beta_leaves = (H^T W H)^-1 H^T W Y with W = diag(eps^2), so c = W H x where
    x = (H^T W H)^-1 w: Phases II-III applied to the right-hand side w, then subtree sums (which
    Phase III already returns, the solution being consistent).
    """
    bounds = _check(tree, eps_by_depth, fanout)
    eps = np.asarray(eps_by_depth, dtype=float)
    w = np.asarray(leaf_weights, dtype=float)
    if w.ndim == 1:
        w = w[:, None]
    x = _solve(bounds, eps, fanout, w)
    return x * (eps[tree.depth] ** 2)[:, None]
