"""Private quadtree (ICDE'12 sections 3.3, 4, 7): structure, counting, consistency, pruning."""
import numpy as np
import pytest

import psdviz as pv
from psdviz.inference.prune import prune_mask

DOM = pv.Domain(-2, 1, 6, 5)
EXACT = 1e6   # epsilon so large that geometric noise is exactly 0 (a = exp(-1e6) underflows to 0)


def points(n=4000, seed=0):
    rng = np.random.default_rng(seed)
    p = np.column_stack([rng.uniform(-2, 6, n), rng.uniform(1, 5, n)])
    # points exactly on cell edges, domain corners and the max edges (they belong to the last cell)
    return np.vstack([p, [[-2, 1], [6, 5], [2, 3], [0, 2], [6, 1], [-2, 5], [4, 4.5]]])


def brute_count(p: np.ndarray, rect: np.ndarray, at_xmax: bool, at_ymax: bool) -> int:
    """Half-open cells [x0, x1) x [y0, y1); the domain's max edges are closed."""
    inx = (p[:, 0] >= rect[0]) & ((p[:, 0] < rect[2]) | (at_xmax & (p[:, 0] == rect[2])))
    iny = (p[:, 1] >= rect[1]) & ((p[:, 1] < rect[3]) | (at_ymax & (p[:, 1] == rect[3])))
    return int((inx & iny).sum())


def test_structure_children_partition_parent():
    rel = pv.build(points(), DOM, method="quadtree", epsilon=1.0, seed=0, height=3)
    t = rel.tree
    assert t.n_nodes == 1 + 4 + 16 + 64
    np.testing.assert_allclose(t.rect[0], DOM.as_rect())
    for v in np.flatnonzero(~t.is_leaf):
        kids = t.rect[t.first_child[v]:t.first_child[v] + 4]
        assert (t.parent[t.first_child[v]:t.first_child[v] + 4] == v).all()
        area = ((kids[:, 2] - kids[:, 0]) * (kids[:, 3] - kids[:, 1])).sum()
        r = t.rect[v]
        assert area == pytest.approx((r[2] - r[0]) * (r[3] - r[1]))
        assert kids[:, 0].min() == r[0] and kids[:, 2].max() == r[2]
        assert kids[:, 1].min() == r[1] and kids[:, 3].max() == r[3]


def test_counts_per_node_equal_brute_force_without_noise():
    p = points()
    rel = pv.build(p, DOM, method="quadtree", epsilon=EXACT, seed=0, height=3, postprocess=False, budget="uniform")
    t = rel.tree
    truth = np.array([brute_count(p, t.rect[v], t.rect[v, 2] == DOM.xmax, t.rect[v, 3] == DOM.ymax)
                      for v in range(t.n_nodes)])
    np.testing.assert_array_equal(t.noisy, truth)
    assert truth[0] == p.shape[0]


def test_noise_variance_recorded_per_node():
    rel = pv.build(points(), DOM, method="quadtree", epsilon=0.5, seed=0, height=3, budget="geometric")
    t = rel.tree
    a = np.exp(-t.count_eps)
    np.testing.assert_allclose(t.noise_var, 2 * a / (1 - a) ** 2)


@pytest.mark.parametrize("budget", ["uniform", "geometric", "leaf"])
def test_released_tree_is_consistent_after_postprocessing(budget):
    rel = pv.build(points(), DOM, method="quadtree", epsilon=0.5, seed=3, height=4, budget=budget)
    t = rel.tree
    assert rel.consistent
    internal = np.flatnonzero(~t.is_leaf)
    child_sum = t.est[t.first_child[internal][:, None] + np.arange(4)].sum(axis=1)
    np.testing.assert_allclose(t.est[internal], child_sum, rtol=1e-9, atol=1e-7)


@pytest.mark.parametrize("pruning", ["after_ols", "build"])
def test_no_postprocessing_publishes_raw_noisy_counts(pruning):
    """Without least squares the leaves publish their raw noisy counts; the complete tree (pruning after
    OLS) publishes every node's, the tree stopped during the build the sums of its leaves above them."""
    rel = pv.build(points(), DOM, method="quadtree", epsilon=0.5, seed=3, height=3, budget="uniform",
                   postprocess=False, pruning=pruning)
    assert not rel.consistent
    t = rel.tree
    np.testing.assert_array_equal(t.est[t.is_leaf], t.noisy[t.is_leaf])
    if pruning == "after_ols":
        np.testing.assert_array_equal(t.est, t.noisy)
    else:
        np.testing.assert_allclose(t.est, t.subtree_sum(t.noisy))


def slow_prune_keep(tree, values, threshold) -> np.ndarray:
    """Keep v iff no proper ancestor u (internal) has values[u] < threshold; walks parents one by one."""
    keep = np.ones(tree.n_nodes, bool)
    for v in range(tree.n_nodes):
        u = tree.parent[v]
        while u >= 0:
            if values[u] < threshold:
                keep[v] = False
            u = tree.parent[u]
    return keep


@pytest.mark.parametrize("threshold", [-5.0, 20.0, 80.0, 1e9])
def test_prune_mask_drops_exactly_descendants_of_small_nodes(threshold):
    rel = pv.build(points(), DOM, method="quadtree", epsilon=0.3, seed=4, height=3)
    t = rel.tree
    np.testing.assert_array_equal(prune_mask(t, threshold), slow_prune_keep(t, t.est, threshold))
    np.testing.assert_array_equal(prune_mask(t, threshold, use_estimate=False),
                                  slow_prune_keep(t, t.noisy, threshold))


@pytest.mark.parametrize("postprocess", [True, False])
def test_pruned_release_depends_on_released_values_only(postprocess):
    """The pruned tree is the unpruned release (same seed) cut by the rule on its released values:
    the decision uses the estimates (after OLS) or the noisy counts, never the true counts."""
    p = points()
    kw = dict(method="quadtree", epsilon=0.3, seed=5, height=4, postprocess=postprocess, budget="uniform",
              pruning="after_ols")
    full = pv.build(p, DOM, prune=None, **kw)
    pruned = pv.build(p, DOM, prune=40.0, **kw)
    values = full.tree.est if postprocess else full.tree.noisy
    keep = slow_prune_keep(full.tree, values, 40.0)
    assert 0 < pruned.tree.n_nodes == keep.sum() < full.tree.n_nodes
    np.testing.assert_array_equal(pruned.tree.rect, full.tree.rect[keep])
    np.testing.assert_array_equal(pruned.tree.est, full.tree.est[keep])


def test_prune_threshold_must_be_finite():
    rel = pv.build(points(), DOM, method="quadtree", epsilon=0.3, seed=4, height=2)
    with pytest.raises(ValueError, match="prune threshold"):
        prune_mask(rel.tree, np.nan)
