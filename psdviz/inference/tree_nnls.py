"""Non-negative least squares on any flat tree: the consistent estimate closest to the noisy counts
(weighted by their inverse variances) among those whose leaves are all >= 0.

This is the constrained inference DPBench's successor ektelo applies after its measurements
("NNLS"), written for psdviz's trees. GLS (:mod:`psdviz.inference.tree_gls`) solves the problem
without the bound; on sparse data it spreads noise of either sign over the empty regions, and a
negative leaf is known to be wrong. NNLS is post-processing of released counts and public
variances: it costs no epsilon.

Problem: leaves x >= 0; a node's value is the sum of the leaves below it; minimise
sum over measured nodes v of (value_v - Y_v)^2 / var_v.

Solver (our construction, exact at convergence): an active set of leaves pinned to 0. For a given
pinned set the restricted problem is the GLS of the same tree in which each pinned leaf is "measured
as 0 with variance 0" (its own measurement is then a constant of the objective; its ancestors keep
theirs), so each step is one O(n) GLS pass. The KKT conditions of the bound are: free leaves >= 0,
and for pinned leaves the gradient g_j = 2 sum over measured ancestors-or-self v of
(value_v - Y_v) / var_v is >= 0. Leaves breaking them are swapped (block principal pivoting, Kim &
Park 2011): all at once while the number of violations falls, with Murty's single-swap rule (the
violating leaf of largest index) after three steps without progress, which makes the iteration
finite. The result is checked by the same KKT test; nodes measured without noise (variance 0) are
kept as exact constraints by the GLS and left out of the gradient.
"""
from __future__ import annotations

import numpy as np

from ..core.tree import FlatTree
from .tree_gls import gls_estimate, gls_plan

#: relative tolerance of the KKT test (on the scale of the largest measurement weight)
KKT_TOL = 1e-9
#: steps without fewer violations before the single-swap rule
FULL_SWAP_GRACE = 3


def nnls_estimate(tree: FlatTree, noisy: np.ndarray, noise_var: np.ndarray, max_steps: int | None = None) -> np.ndarray:
    """Consistent estimates for every node with non-negative leaves (see the module docstring)."""
    noisy = np.asarray(noisy, dtype=float)
    var = np.asarray(noise_var, dtype=float)
    leaves = tree.leaf_index()
    pinned = np.zeros(leaves.size, dtype=bool)
    tols = _kkt_tolerances(noisy, var)
    best, grace = np.inf, FULL_SWAP_GRACE
    steps = max_steps if max_steps is not None else 10 * leaves.size + 10
    for _ in range(steps):
        est = _restricted_gls(tree, noisy, var, leaves, pinned)
        bad = _violations(tree, est, noisy, var, leaves, pinned, tols)
        if not bad.any():
            break
        if bad.sum() < best:
            best, grace = int(bad.sum()), FULL_SWAP_GRACE
            pinned ^= bad
        elif grace > 0:
            grace -= 1
            pinned ^= bad
        else:
            last = np.flatnonzero(bad)[-1]
            pinned[last] = ~pinned[last]
    return _clip_consistent(tree, est, leaves)


def _restricted_gls(tree: FlatTree, noisy: np.ndarray, var: np.ndarray, leaves: np.ndarray,
                    pinned: np.ndarray) -> np.ndarray:
    """GLS with the pinned leaves fixed at 0 (measured as 0 with variance 0)."""
    y, v = noisy.copy(), var.copy()
    y[leaves[pinned]] = 0.0
    v[leaves[pinned]] = 0.0
    return gls_estimate(tree, y, gls_plan(tree, v))


def _kkt_tolerances(noisy: np.ndarray, var: np.ndarray) -> tuple[float, float]:
    """(value tolerance, gradient tolerance) of the KKT test, from the counts' scale and the largest
    measurement weight (fixed for the whole solve)."""
    scale = np.abs(noisy[np.isfinite(noisy)]).max(initial=1.0)
    w = 1.0 / var[(var > 0) & np.isfinite(var)]
    return KKT_TOL * scale, KKT_TOL * scale * w.max(initial=1.0)


def _violations(tree: FlatTree, est: np.ndarray, noisy: np.ndarray, var: np.ndarray,
                leaves: np.ndarray, pinned: np.ndarray, tols: tuple[float, float]) -> np.ndarray:
    """Leaves breaking the KKT conditions: free and negative, or pinned with a negative gradient."""
    grad = leaf_gradient(tree, est, noisy, var)[leaves]
    return np.where(pinned, grad < -tols[1], est[leaves] < -tols[0])


def leaf_gradient(tree: FlatTree, est: np.ndarray, noisy: np.ndarray, var: np.ndarray) -> np.ndarray:
    """Half the objective's gradient per node: sum over measured ancestors-or-self of
    (est - Y) / var (only leaf entries are used; nodes of variance 0 or infinity contribute 0)."""
    weighted = (var > 0) & np.isfinite(var) & np.isfinite(noisy)
    r = np.zeros(tree.n_nodes)
    r[weighted] = (est[weighted] - noisy[weighted]) / var[weighted]
    return tree.path_sum(r)


def _clip_consistent(tree: FlatTree, est: np.ndarray, leaves: np.ndarray) -> np.ndarray:
    """Leaves clipped at 0 (removes round-off below 0) and every node the sum of its leaves."""
    vals = np.zeros(tree.n_nodes)
    vals[leaves] = np.maximum(est[leaves], 0.0)
    return tree.subtree_sum(vals)
