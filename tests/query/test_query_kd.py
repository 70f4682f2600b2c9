"""The vectorised canonical decomposition (psdviz.query.decompose, ICDE'12 section 4.1) against an obvious
recursive version, on kd-trees, pruned trees, Hilbert trees (overlapping boxes) and trees with
unreleased (NaN) nodes."""
import numpy as np
import pytest

import psdviz as pv
from psdviz.query.decompose import answer_tree, decompose

DOM = pv.Domain(0, 0, 10, 5)


def slow_answer(tree, rect, values):
    """Per query: take a usable node inside, open partial inner nodes, uniform share of leaves."""
    total = 0.0

    def visit(v):
        nonlocal total
        r = tree.rect[v]
        ox = min(rect[2], r[2]) - max(rect[0], r[0])
        oy = min(rect[3], r[3]) - max(rect[1], r[1])
        inside = r[0] >= rect[0] and r[2] <= rect[2] and r[1] >= rect[1] and r[3] <= rect[3]
        if not (inside or (ox > 0 and oy > 0)):
            return
        usable = np.isfinite(values[v])
        if inside and usable:
            total += values[v]
        elif tree.n_children[v] == 0:
            area = (r[2] - r[0]) * (r[3] - r[1])
            if usable and area > 0:
                total += values[v] * max(ox, 0) * max(oy, 0) / area
        else:
            for c in range(tree.first_child[v], tree.first_child[v] + tree.n_children[v]):
                visit(c)
    visit(0)
    return total


def queries(rng, k=60):
    a = rng.uniform([-1, -1], [11, 6], (k, 2))
    b = a + rng.uniform(0, 6, (k, 2))
    q = np.column_stack([a, b])
    q[:5] = [[0, 0, 10, 5], [2, 2, 2, 4], [-5, -5, 20, 20], [3, 1, 3.5, 1], [20, 20, 21, 21]]
    return q


@pytest.mark.parametrize("method,params", [
    ("kdtree", {"height": 3}), ("kdtree", {"height": 3, "prune": None, "postprocess": False}),
    ("hybrid", {"height": 4}), ("hilbert", {"height": 3, "prune": None}), ("kd-cell", {"height": 3, "grid": 64}),
])
def test_decompose_matches_recursive_reference(method, params):
    rng = np.random.default_rng(0)
    xy = np.clip(rng.normal([4, 2], [2, 1], (3000, 2)), [0, 0], [10, 5])
    rel = pv.build(xy, DOM, method, 0.7, seed=3, **params)
    q = queries(rng)
    for values in (rel.tree.est, rel.tree.noisy, np.where(rel.tree.depth == 1, np.nan, rel.tree.noisy)):
        fast = answer_tree(rel.tree, q, values)
        slow = [slow_answer(rel.tree, r, values) for r in q]
        np.testing.assert_allclose(fast, slow, rtol=1e-12, atol=1e-9)


def test_decompose_chunks_and_empty():
    import psdviz.query.decompose as query
    rng = np.random.default_rng(1)
    xy = rng.uniform(0, 1, (2000, 2)) * [10, 5]
    rel = pv.build(xy, DOM, "kdtree", 1.0, seed=1, height=3)
    q = queries(rng, 50)
    old = query.CHUNK
    try:
        query.CHUNK = 7
        small = answer_tree(rel.tree, q, rel.tree.est)
    finally:
        query.CHUNK = old
    np.testing.assert_allclose(small, answer_tree(rel.tree, q, rel.tree.est))
    qq, vv, cc = decompose(rel.tree, np.array([[20.0, 20, 21, 21]]), np.isfinite(rel.tree.est))
    assert qq.size == vv.size == cc.size == 0
