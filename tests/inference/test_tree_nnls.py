"""Non-negative least squares on flat trees (tree_nnls) against scipy's bounded solver."""
import numpy as np
import pytest
from scipy.optimize import lsq_linear
from test_grids_gls import leaf_design, random_tree  # tests/inference is on sys.path (pytest's prepend import mode)

from psdviz.inference.tree_gls import gls_estimate, gls_plan
from psdviz.inference.tree_nnls import leaf_gradient, nnls_estimate


def mixed_tree(rng, levels=4, max_kids=4, truth_scale=3.0, noise=4.0, unmeasured=0.2):
    """A tree whose leaves sit at several depths (random_tree with fanout 0 allowed below the root);
    sparse true leaf counts; noisy counts of every node (some internal nodes unmeasured); returns the
    tree and its true node counts."""
    tree = random_tree(rng, ((2, max_kids),) + ((0, max_kids),) * (levels - 1), unmeasured_root=False)
    n = tree.n_nodes
    leaf_truth = np.where(rng.random(n) < 0.3, rng.poisson(truth_scale, n), 0) * tree.is_leaf
    truth = tree.subtree_sum(leaf_truth.astype(float))
    var = rng.uniform(0.5, 2.0, n) * noise ** 2
    var[~tree.is_leaf & (rng.random(n) < unmeasured)] = np.inf
    sd = np.sqrt(np.where(np.isfinite(var), var, 0.0))
    tree.noisy = np.where(np.isfinite(var), truth + rng.normal(0, 1, n) * sd, np.nan)
    tree.noise_var = var
    return tree, truth


def design(tree):
    """Dense (measured nodes x leaves) matrix, weights and counts of the least-squares objective."""
    leaves, h = leaf_design(tree)
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
    tree.noisy = np.where(np.isfinite(tree.noise_var), tree.subtree_sum(truth * tree.is_leaf + 100.0 * tree.is_leaf),
                          np.nan)
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
