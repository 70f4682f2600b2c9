"""Non-negative least squares on flat trees (tree_nnls) against scipy's bounded solver."""
import numpy as np
import pytest
from scipy.optimize import lsq_linear

from psdviz.core.tree import FlatTree
from psdviz.inference.tree_gls import gls_estimate, gls_plan
from psdviz.inference.tree_nnls import leaf_gradient, nnls_estimate


def mixed_tree(rng, levels=4, max_kids=4, truth_scale=3.0, noise=4.0, unmeasured=0.2):
    """A tree whose leaves sit at several depths; sparse true leaf counts; noisy counts of every
    node (some internal nodes unmeasured); returns the tree and its true node counts."""
    parent, depth, level = [-1], [0], [0]
    for d in range(1, levels + 1):
        nxt = []
        for p in level:
            k = int(rng.integers(2 if p == 0 else 0, max_kids + 1))
            for _ in range(k):
                nxt.append(len(parent))
                parent.append(p)
                depth.append(d)
        level = nxt
    parent = np.array(parent)
    n = parent.size
    n_children = np.bincount(parent[1:], minlength=n).astype(np.int32)
    first = np.full(n, -1)
    for v in range(n - 1, 0, -1):
        first[parent[v]] = v
    tree = FlatTree(rect=np.zeros((n, 4)), depth=np.array(depth, np.int16), parent=parent,
                    first_child=np.where(n_children > 0, first, -1), n_children=n_children,
                    noisy=np.zeros(n), count_eps=np.ones(n), split_eps=np.zeros(n), noise_var=np.ones(n))
    leaf_truth = np.where(rng.random(n) < 0.3, rng.poisson(truth_scale, n), 0) * tree.is_leaf
    truth = tree.subtree_sum(leaf_truth.astype(float))
    var = rng.uniform(0.5, 2.0, n) * noise ** 2
    var[~tree.is_leaf & (rng.random(n) < unmeasured)] = np.inf
    noisy = np.where(np.isfinite(var), truth + rng.normal(0, 1, n) * np.sqrt(np.where(np.isfinite(var), var, 0)), np.nan)
    tree.noisy, tree.noise_var = noisy, var
    return tree, truth


def design(tree):
    """Dense (measured nodes x leaves) matrix and weights of the least-squares objective."""
    leaves = tree.leaf_index()
    h = np.zeros((tree.n_nodes, leaves.size))
    for j, leaf in enumerate(leaves):
        v = leaf
        while v >= 0:
            h[v, j] = 1.0
            v = tree.parent[v]
    meas = np.isfinite(tree.noise_var)
    return leaves, h[meas], 1.0 / np.sqrt(tree.noise_var[meas]), tree.noisy[meas]


def test_nnls_matches_scipy_bvls_on_random_trees():
    rng = np.random.default_rng(11)
    bound_active = 0
    for _ in range(25):
        tree, _ = mixed_tree(rng)
        leaves, h, w, y = design(tree)
        ref = lsq_linear(h * w[:, None], y * w, bounds=(0, np.inf), method="bvls", tol=1e-12).x
        est = nnls_estimate(tree, tree.noisy, tree.noise_var)
        np.testing.assert_allclose(est[leaves], ref, atol=1e-7 * max(1.0, np.abs(ref).max()))
        np.testing.assert_allclose(tree.subtree_sum(est), est, atol=1e-9)   # consistent
        assert (est[leaves] >= 0).all()
        bound_active += int((gls_estimate(tree, tree.noisy, gls_plan(tree, tree.noise_var))[leaves] < 0).any())
    assert bound_active >= 15   # the cases exercise the bound, not only unconstrained GLS


def test_kkt_conditions_hold():
    rng = np.random.default_rng(12)
    tree, _ = mixed_tree(rng, levels=5)
    est = nnls_estimate(tree, tree.noisy, tree.noise_var)
    leaves = tree.leaf_index()
    grad = leaf_gradient(tree, est, tree.noisy, tree.noise_var)[leaves]
    free = est[leaves] > 1e-9
    assert np.allclose(grad[free], 0, atol=1e-8)
    assert (grad[~free] >= -1e-8).all()


def test_equals_gls_when_gls_is_already_non_negative():
    rng = np.random.default_rng(13)
    tree, truth = mixed_tree(rng, truth_scale=200.0, noise=0.5)
    tree.noisy = np.where(np.isfinite(tree.noise_var), tree.subtree_sum(truth * tree.is_leaf + 100.0 * tree.is_leaf), np.nan)
    gls = gls_estimate(tree, tree.noisy, gls_plan(tree, tree.noise_var))
    assert (gls[tree.leaf_index()] > 0).all()
    np.testing.assert_allclose(nnls_estimate(tree, tree.noisy, tree.noise_var), gls, rtol=1e-10, atol=1e-8)


def test_never_further_from_a_non_negative_truth_than_gls():
    """NNLS is the projection of the GLS estimate onto {leaves >= 0} in the norm of the objective's
    Hessian H = A^T W A; the truth lies in that convex set, so the H-distance to it cannot grow
    (non-expansive projection). Deterministic, checked on every draw."""
    rng = np.random.default_rng(14)
    for _ in range(30):
        tree, truth = mixed_tree(rng)
        leaves, h, w, _ = design(tree)
        hess = (h * w[:, None] ** 2).T @ h
        gls = gls_estimate(tree, tree.noisy, gls_plan(tree, tree.noise_var))[leaves] - truth[leaves]
        nn = nnls_estimate(tree, tree.noisy, tree.noise_var)[leaves] - truth[leaves]
        assert nn @ hess @ nn <= gls @ hess @ gls * (1 + 1e-9) + 1e-9


def test_noise_free_leaf_is_kept_exact():
    rng = np.random.default_rng(15)
    tree, truth = mixed_tree(rng)
    leaves = tree.leaf_index()
    exact = leaves[0]
    tree.noise_var[exact] = 0.0
    tree.noisy[exact] = truth[exact]
    est = nnls_estimate(tree, tree.noisy, tree.noise_var)
    assert est[exact] == pytest.approx(truth[exact], abs=1e-9)
    assert (est[leaves] >= 0).all()
