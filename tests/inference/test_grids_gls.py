"""Constrained inference (tree_gls) against a direct dense weighted least-squares solve."""
import numpy as np

from psdviz.core.tree import FlatTree
from psdviz.inference.tree_gls import gls_adjoint, gls_estimate, gls_node_variance, gls_plan, gls_variance_fn


def random_tree(rng, fanouts=((2, 4), (1, 3), (1, 3)), unmeasured_root=True):
    """Level-by-level tree with random fanouts; random variances; the root optionally unmeasured."""
    parent, depth, level = [-1], [0], [0]
    for d, (lo, hi) in enumerate(fanouts, start=1):
        nxt = []
        for p in level:
            for _ in range(rng.integers(lo, hi + 1)):
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
    var = rng.uniform(0.5, 5.0, n)
    if unmeasured_root:
        var[0] = np.inf
    tree = FlatTree(rect=np.zeros((n, 4)), depth=np.array(depth, np.int16), parent=parent,
                    first_child=np.where(n_children > 0, first, -1), n_children=n_children,
                    noisy=rng.normal(10, 3, n), count_eps=np.ones(n), split_eps=np.zeros(n), noise_var=var)
    return tree


def leaf_design(tree):
    """The leaves and the dense (nodes x leaves) 0/1 matrix: node v sums leaf j when j lies below v."""
    leaves = np.flatnonzero(tree.is_leaf)
    h = np.zeros((tree.n_nodes, leaves.size))
    for j, leaf in enumerate(leaves):
        v = leaf
        while v >= 0:
            h[v, j] = 1.0
            v = tree.parent[v]
    return leaves, h


def dense_wls(tree):
    """x_leaves = argmin sum_v (Y_v - sum of leaves under v)^2 / var_v over measured v."""
    leaves, h = leaf_design(tree)
    meas = np.isfinite(tree.noise_var)
    hm, w = h[meas], 1.0 / tree.noise_var[meas]
    lmat = np.linalg.solve(hm.T @ (w[:, None] * hm), hm.T * w)   # leaves x measured
    return leaves, meas, lmat


def test_gls_matches_dense_wls_on_random_trees():
    rng = np.random.default_rng(3)
    for trial in range(6):
        tree = random_tree(rng, unmeasured_root=trial % 2 == 0)
        leaves, meas, lmat = dense_wls(tree)
        plan = gls_plan(tree, tree.noise_var)
        est = gls_estimate(tree, tree.noisy, plan)
        np.testing.assert_allclose(est[leaves], lmat @ tree.noisy[meas], rtol=1e-9, atol=1e-9)
        # consistency: each internal node equals the sum of its children
        np.testing.assert_allclose(tree.subtree_sum(est), est, atol=1e-9)


def test_gls_adjoint_and_variance_match_dense():
    rng = np.random.default_rng(4)
    tree = random_tree(rng)
    leaves, meas, lmat = dense_wls(tree)
    plan = gls_plan(tree, tree.noise_var)
    w = np.zeros((tree.n_nodes, 3))
    w[leaves] = rng.uniform(0, 1, (leaves.size, 3))
    c = gls_adjoint(tree, plan, w)
    np.testing.assert_allclose(c[meas], lmat.T @ w[leaves], rtol=1e-9, atol=1e-12)
    assert np.allclose(c[~meas], 0)
    var = gls_variance_fn(tree, plan)(w)
    dense = ((lmat.T @ w[leaves]) ** 2 * tree.noise_var[meas][:, None]).sum(axis=0)
    np.testing.assert_allclose(var, dense, rtol=1e-9)


def test_node_variances_in_two_passes_equal_the_dense_ones():
    """Every node's estimate variance from the two passes equals the dense least squares' (the node's
    leaves' rows of L summed, times the noise), with unmeasured roots and inner nodes."""
    rng = np.random.default_rng(5)
    for trial in range(6):
        tree = random_tree(rng, fanouts=((1, 4), (1, 3), (0, 3)) if trial % 3 else ((2, 4), (1, 3), (1, 3)),
                           unmeasured_root=trial % 2 == 0)
        if trial >= 4:                      # an unmeasured inner node (not a leaf)
            inner = np.flatnonzero(~tree.is_leaf & (tree.depth == 1))[:1]
            tree.noise_var[inner] = np.inf
        leaves, meas, lmat = dense_wls(tree)
        _, h = leaf_design(tree)
        node_rows = h[:, np.searchsorted(np.flatnonzero(tree.is_leaf), leaves)] @ lmat   # nodes x measured
        dense = (node_rows ** 2 * tree.noise_var[meas][None, :]).sum(axis=1)
        got = gls_node_variance(tree, tree.noise_var, gls_plan(tree, tree.noise_var))
        np.testing.assert_allclose(got, dense, rtol=1e-9)


def test_star_is_inverse_variance_then_even_spread():
    """The papers' rule on one cell: v' = IVW(v, sum), then (v' - sum) / k added to each child."""
    parent = np.array([-1, 0, 0, 0, 0])
    var = np.array([2.0, 1.0, 1.0, 1.0, 1.0])
    y = np.array([20.0, 3.0, 4.0, 5.0, 2.0])
    tree = FlatTree(rect=np.zeros((5, 4)), depth=np.array([0, 1, 1, 1, 1], np.int16), parent=parent,
                    first_child=np.array([1, -1, -1, -1, -1]), n_children=np.array([4, 0, 0, 0, 0], np.int32),
                    noisy=y, count_eps=np.ones(5), split_eps=np.zeros(5), noise_var=var)
    est = gls_estimate(tree, y, gls_plan(tree, var))
    s = y[1:].sum()
    v = (y[0] / 2.0 + s / 4.0) / (1 / 2.0 + 1 / 4.0)
    np.testing.assert_allclose(est[0], v)
    np.testing.assert_allclose(est[1:], y[1:] + (v - s) / 4)
