"""OLS post-processing (ICDE'12 section 5) against a dense weighted least-squares solve.

Definition 3: beta minimises sum_v eps_v^2 (Y_v - beta_v)^2 over consistent trees (each node the
sum of its children), i.e. beta = H x with x = argmin ||W^(1/2) (Y - H x)||^2, where H maps leaf
values to node values (H[v, l] = 1 if leaf l lies below v) and W = diag(eps_v^2). The dense solve
below uses scipy-free numpy linear algebra on trees of up to 64 leaves.
"""
import numpy as np
import pytest

from psdviz.core.budget import level_epsilons
from psdviz.core.tree import FlatTree
from psdviz.inference.ols import ols_coefficients, ols_estimate


def complete_tree(fanout: int, height: int, rng: np.random.Generator, eps: np.ndarray) -> FlatTree:
    """A complete tree stored level by level, children of the i-th node at f*i .. f*i+f-1."""
    sizes = fanout ** np.arange(height + 1)
    offs = np.r_[0, np.cumsum(sizes)]
    n = int(offs[-1])
    depth = np.repeat(np.arange(height + 1), sizes).astype(np.int16)
    pos = np.arange(n) - offs[depth]
    parent = np.where(depth > 0, offs[np.maximum(depth - 1, 0)] + pos // fanout, -1)
    first = np.where(depth < height, offs[np.minimum(depth + 1, height)] + fanout * pos, -1)
    noisy = rng.normal(100.0, 30.0, n)
    noisy[eps[depth] == 0] = np.nan                  # unmeasured levels release nothing
    return FlatTree(rect=np.zeros((n, 4)), depth=depth, parent=parent.astype(np.int64),
                    first_child=first.astype(np.int64),
                    n_children=np.where(depth < height, fanout, 0).astype(np.int32),
                    noisy=noisy, count_eps=eps[depth], split_eps=np.zeros(n))


def dense_h(tree: FlatTree, fanout: int) -> np.ndarray:
    h = tree.height
    offs = tree.level_bounds()
    n_leaves = fanout ** h
    H = np.zeros((tree.n_nodes, n_leaves))
    for v in range(tree.n_nodes):                      # slow and obvious on purpose
        d = int(tree.depth[v])
        i = v - offs[d]
        span = fanout ** (h - d)
        H[v, i * span:(i + 1) * span] = 1.0
    return H


CASES = [(f, h, plan) for f in (2, 4) for h in (1, 2, 3) for plan in ("uniform", "geometric", "leaf")]


@pytest.mark.parametrize("fanout,height,plan", CASES)
def test_ols_equals_dense_weighted_least_squares(fanout, height, plan):
    rng = np.random.default_rng(10 * fanout + height)
    eps = level_epsilons(0.9, height, plan)
    tree = complete_tree(fanout, height, rng, eps)
    H = dense_h(tree, fanout)
    w = eps[tree.depth] ** 2
    y = np.nan_to_num(tree.noisy)
    x = np.linalg.solve(H.T @ (w[:, None] * H), H.T @ (w * y))
    beta = ols_estimate(tree, eps, fanout)
    np.testing.assert_allclose(beta, H @ x, rtol=0, atol=1e-8 * np.abs(H @ x).max())


@pytest.mark.parametrize("fanout,height,plan", CASES)
def test_ols_is_consistent(fanout, height, plan):
    eps = level_epsilons(0.9, height, plan)
    tree = complete_tree(fanout, height, np.random.default_rng(1), eps)
    beta = ols_estimate(tree, eps, fanout)
    internal = np.flatnonzero(tree.n_children > 0)
    child_sum = beta[tree.first_child[internal][:, None] + np.arange(fanout)].sum(axis=1)
    np.testing.assert_allclose(beta[internal], child_sum, rtol=1e-10, atol=1e-8)


def test_ols_with_leaf_plan_is_the_sum_of_noisy_leaves():
    eps = level_epsilons(1.0, 3, "leaf")
    tree = complete_tree(4, 3, np.random.default_rng(2), eps)
    beta = ols_estimate(tree, eps, 4)
    np.testing.assert_allclose(beta, tree.subtree_sum(tree.noisy), rtol=1e-12)


@pytest.mark.parametrize("fanout,height,plan", [(4, 2, "geometric"), (2, 3, "uniform"), (4, 3, "uniform")])
def test_ols_adjoint_coefficients_equal_dense(fanout, height, plan):
    """w^T beta_leaves = c^T Y with c = W H (H^T W H)^-1 w."""
    eps = level_epsilons(0.5, height, plan)
    tree = complete_tree(fanout, height, np.random.default_rng(3), eps)
    H = dense_h(tree, fanout)
    W = eps[tree.depth] ** 2
    wl = np.random.default_rng(4).uniform(0, 1, (H.shape[1], 3))
    dense = (W[:, None] * H) @ np.linalg.solve(H.T @ (W[:, None] * H), wl)
    c = ols_coefficients(tree, eps, fanout, wl)
    np.testing.assert_allclose(c, dense, rtol=0, atol=1e-10 * np.abs(dense).max())
    # and the coefficients reproduce the estimate itself
    beta = ols_estimate(tree, eps, fanout)
    leaves = beta[tree.level_bounds()[height]:]
    np.testing.assert_allclose(c.T @ np.nan_to_num(tree.noisy), wl.T @ leaves, rtol=1e-10)


def test_ols_rejects_trees_it_cannot_solve():
    eps = level_epsilons(1.0, 2, "uniform")
    tree = complete_tree(4, 2, np.random.default_rng(0), eps)
    with pytest.raises(ValueError, match="complete tree"):
        ols_estimate(tree, eps, 2)
    with pytest.raises(ValueError, match="one epsilon per level"):
        ols_estimate(tree, eps[:2], 4)
    with pytest.raises(ValueError, match="leaf epsilon > 0"):
        ols_estimate(tree, np.array([0.5, 0.5, 0.0]), 4)
