"""Variances of weighted sums of least-squares leaf estimates from sparse (query, leaf, weight) triples equal
the dense adjoint's, on trees of every shape the engine builds (unequal fanouts, leaves at many depths,
unmeasured nodes)."""
from __future__ import annotations

import numpy as np
import pytest

import psdviz as pv
from psdviz.inference.tree_gls import gls_pairs_variance, gls_plan, gls_variance_fn

PTS = np.random.default_rng(7).beta(2, 5, (20_000, 2))


@pytest.mark.parametrize("method", ["quadtree", "ag", "htree", "kdtree", "hybrid"])
def test_sparse_variances_equal_the_dense_adjoint(method):
    rel = pv.build(PTS, pv.Domain(0, 0, 1, 1), method, 0.5, seed=4)
    t = rel.tree
    plan = gls_plan(t, t.noise_var)
    dense = gls_variance_fn(t, plan)
    leaves = t.leaf_index()
    rng = np.random.default_rng(5)
    k = 25
    q = np.repeat(np.arange(k), rng.integers(1, 40, k))
    leaf = leaves[rng.integers(0, leaves.size, q.size)]          # repeats allowed: their weights add
    w = rng.uniform(-1, 1, q.size)
    weights = np.zeros((t.n_nodes, k))
    np.add.at(weights, (leaf, q), w)
    want = dense(weights)
    got = gls_pairs_variance(t, plan, q, leaf, w, k)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12 * want.max())
    if method == "quadtree":                                      # pruned: leaves at several depths
        assert len(np.unique(t.depth[leaves])) > 1


def test_a_query_with_no_leaves_has_no_variance_and_one_leaf_has_its_estimates():
    rel = pv.build(PTS, pv.Domain(0, 0, 1, 1), "ag", 1.0, seed=2)
    t = rel.tree
    plan = gls_plan(t, t.noise_var)
    leaf = t.leaf_index()[:3]
    got = gls_pairs_variance(t, plan, np.array([1, 1, 2]), leaf, np.array([1.0, 0.0, 1.0]), 4)
    from psdviz.inference.tree_gls import gls_node_variance
    node_var = gls_node_variance(t, t.noise_var, plan)
    np.testing.assert_allclose(got, [0.0, node_var[leaf[0]], node_var[leaf[2]], 0.0], rtol=1e-10)
