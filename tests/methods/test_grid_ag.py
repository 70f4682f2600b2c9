"""Adaptive grid (Qardaji et al. ICDE'13): sizes, ledger per path, inference, fast queries."""
import math

import numpy as np
import pytest

import psdviz as pv
from psdviz.core.grid import whole_step_parts
from psdviz.lab.workloads import shape_queries
from psdviz.methods.ag import ag_level1_size, ag_level2_sizes, integer_optimum
from psdviz.query.decompose import answer_tree, decompose, leaf_weights

DOM = pv.Domain(0, 0, 1, 1)


def pts(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    return np.vstack([rng.normal(0.3, 0.05, (n // 2, 2)), rng.uniform(0, 1, (n - n // 2, 2))]).clip(0, 1)


def test_sizes_follow_the_formulas():
    assert ag_level1_size(1_000_000, 1.0) == max(10, math.floor(math.sqrt(1e6 / 10) / 4))  # 79
    assert ag_level1_size(1000, 0.1) == 10
    # m*^2 = N' eps2 / c2: 0.5 -> 1; 2 (m* = sqrt 2, a tie keeps 1); 2.02 -> 2 (ceil splits from m* > 1,
    # floor only from m* >= 2); 6 = 2 * 3 -> 2; 6.05 -> 3; 100 -> 10
    noisy = np.array([-3.0, 0.0, 5.0, 20.0, 20.2, 60.0, 60.5, 1000.0])
    assert ag_level2_sizes(noisy, 0.5).tolist() == [1, 1, 1, 1, 2, 2, 3, 10]


def test_level2_size_is_the_error_models_integer_minimiser():
    """m2 minimises a m + b / m over the integers m >= 1, where sqrt(b / a) = sqrt(N' eps2 / c2)."""
    square = np.random.default_rng(5).uniform(0, 500, 20_000)
    m = np.arange(1, 40)
    brute = m[np.argmin(m[None, :] + square[:, None] / m[None, :], axis=1)]
    np.testing.assert_array_equal(integer_optimum(square), brute)
    k = np.arange(1, 10_000)
    np.testing.assert_array_equal(integer_optimum(k.astype(float) ** 2), k)   # whole squares exactly


@pytest.mark.parametrize("kw", [{}, {"n_public": 3000}, {"m1": 4}])
def test_ledger_and_every_path_cost_epsilon(kw):
    rel = pv.build(pts(), DOM, method="ag", epsilon=0.8, seed=1, **kw)
    path = rel.tree.path_epsilons()
    np.testing.assert_allclose(path, 0.8)
    assert rel.ledger.total() == pytest.approx(0.8)
    by = rel.ledger.by_level("count")
    eps_n = 0.0 if kw else 0.05 * 0.8
    assert by[1] == pytest.approx(0.5 * (0.8 - eps_n)) and by[2] == pytest.approx(0.5 * (0.8 - eps_n))


def test_level2_sizes_come_from_released_level1_counts():
    rel = pv.build(pts(), DOM, method="ag", epsilon=1.0, seed=2, n_public=3000)
    t = rel.tree
    m1 = rel.params["m1"]
    assert m1 == ag_level1_size(3000, 1.0)
    lvl1 = t.noisy[1:1 + m1 * m1]
    np.testing.assert_array_equal(t.n_children[1:1 + m1 * m1], ag_level2_sizes(lvl1, 0.5) ** 2)
    # sub-cells tile their cell (cells are near-equal: edges on the public grid)
    leaves = t.rect[t.is_leaf]
    area = np.bincount(t.parent[t.is_leaf] - 1, weights=(leaves[:, 2] - leaves[:, 0]) * (leaves[:, 3] - leaves[:, 1]))
    cells = t.rect[1:1 + m1 * m1]
    np.testing.assert_allclose(area, (cells[:, 2] - cells[:, 0]) * (cells[:, 3] - cells[:, 1]), rtol=1e-12)
    np.testing.assert_allclose(area, 1.0 / (m1 * m1), rtol=m1 * 2.0 ** -19)   # within a grid step per edge


def test_whole_step_parts_keeps_cells_of_equal_whole_width():
    # a cell is ceil(width / parts) steps wide, so the split keeps ceil(width / that) cells
    assert whole_step_parts(79, 256) == 64 and whole_step_parts(25, 256) == 24
    assert whole_step_parts(79, 65536) == 79 and whole_step_parts(300, 256) == 256
    np.testing.assert_array_equal(whole_step_parts(np.array([1, 2, 3, 4, 5]), np.array([4, 4, 4, 4, 3])),
                                  [1, 2, 2, 4, 3])
    for parts in range(1, 300):            # never more cells than asked, and every cell at most g wide
        k = int(whole_step_parts(parts, 256))
        g = -(-256 // min(parts, 256))
        assert k <= parts and np.diff(np.linspace(0, 256, k + 1).astype(int)).max() <= g


def test_coarse_grid_cells_span_whole_equal_steps():
    """On a coarse public grid (resolution 8: 256 steps) m1 = 79 from the formula becomes 64 cells of
    4 steps, and no sub-grid is finer than its cell's steps nor splits them unevenly."""
    p = np.random.default_rng(3).uniform(0, 1, (20_000, 2))
    rel = pv.build(p, DOM, method="ag", epsilon=50.0, seed=1, n_public=20_000, resolution=8)
    m1 = rel.params["m1"]
    assert ag_level1_size(20_000, 50.0) == 79 and m1 == 64
    t = rel.tree
    m2 = np.sqrt(t.n_children[1:1 + m1 * m1]).astype(int)
    assert set(m2.tolist()) <= {1, 2, 4}     # divisors of the 4-step cells only
    steps = (t.rect[t.is_leaf][:, 2] - t.rect[t.is_leaf][:, 0]) * 256
    np.testing.assert_allclose(steps, np.rint(steps))


def test_counts_match_slow_point_in_cell():
    """Noise-free check of the leaf assignment: huge epsilon, counts = brute-force counts."""
    p = pts(500, seed=5)
    rel = pv.build(p, DOM, method="ag", epsilon=1e5, seed=1, m1=3, c2=1e5, postprocess=False)
    assert rel.tree.height == 2 and (rel.tree.n_children[1:10] > 1).all()
    t = rel.tree
    for v in np.flatnonzero(t.is_leaf):
        x0, y0, x1, y1 = t.rect[v]
        inside = ((p[:, 0] >= x0) & ((p[:, 0] < x1) | (x1 >= 1)) & (p[:, 1] >= y0) & ((p[:, 1] < y1) | (y1 >= 1)))
        assert abs(t.noisy[v] - inside.sum()) <= 0  # epsilon 1e5: noise is 0 with overwhelming probability


def dense_wls_leaves(t):
    leaves = np.flatnonzero(t.is_leaf)
    meas = np.flatnonzero(np.isfinite(t.noise_var))
    h = np.zeros((meas.size, leaves.size))
    pos = {v: i for i, v in enumerate(meas)}
    for j, v in enumerate(leaves):
        u = v
        while u >= 0:
            if u in pos:
                h[pos[u], j] = 1
            u = t.parent[u]
    w = 1.0 / t.noise_var[meas]
    lmat = np.linalg.solve(h.T @ (w[:, None] * h), h.T * w)
    return leaves, meas, lmat


def test_inference_equals_direct_weighted_least_squares():
    rel = pv.build(pts(800), DOM, method="ag", epsilon=0.3, seed=7, m1=3, alpha=0.3)
    t = rel.tree
    leaves, meas, lmat = dense_wls_leaves(t)
    np.testing.assert_allclose(t.est[leaves], lmat @ t.noisy[meas], atol=1e-8)
    q = shape_queries(DOM, 0.4, 0.3, 5, np.random.default_rng(1))
    qq, v, c = decompose(t, q, np.isfinite(t.est))
    w = leaf_weights(t, qq, v, c, q.shape[0])[leaves]
    dense = ((lmat.T @ w) ** 2 * t.noise_var[meas][:, None]).sum(axis=0)
    np.testing.assert_allclose(rel.answer_variance(q), dense, rtol=1e-8)


@pytest.mark.parametrize("post", [True, False])
def test_fast_queries_equal_the_canonical_traversal(post):
    rel = pv.build(pts(5000), DOM, method="ag", epsilon=1.0, seed=3, postprocess=post)
    rng = np.random.default_rng(2)
    q = np.vstack([shape_queries(DOM, w, h, 200, rng) for w, h in ((0.01, 0.02), (0.2, 0.1), (0.7, 0.9))])
    q = np.vstack([q, [[0, 0, 1, 1], [0.1, 0.1, 0.1, 0.5], [0.21, 0.2, 0.33, 0.3], [-1, -1, 2, 0.5]]])
    if post:  # cell-aligned edges: exact only for consistent values (float edge ties otherwise)
        q = np.vstack([q, [[0.2, 0.2, 0.3, 0.3]]])
    vals = rel.tree.est if post else rel.tree.noisy
    np.testing.assert_allclose(rel.answer(q), answer_tree(rel.tree, q, vals), atol=1e-7)


def test_whole_domain_estimate_is_unbiased():
    """Mean over 200 runs of the whole-domain answer within 4 standard errors, the standard error
    computed from the release's own exact variance (sqrt(var / runs))."""
    p = pts(1000)
    runs = [pv.build(p, DOM, method="ag", epsilon=0.5, seed=s, m1=3) for s in range(200)]
    est = np.array([r.answer([[0, 0, 1, 1]])[0] for r in runs])
    var = runs[0].answer_variance([[0, 0, 1, 1]])[0]
    assert abs(est.mean() - 1000) < 4 * math.sqrt(var / 200)


def test_too_many_cells_is_refused_before_allocating():
    with pytest.raises(ValueError, match="nodes"):
        pv.build(pts(), DOM, method="ag", epsilon=1e5, m1=3)


def test_bad_parameters_name_the_parameter():
    with pytest.raises(ValueError, match="alpha"):
        pv.build(pts(), DOM, method="ag", epsilon=1.0, alpha=1.5)
    with pytest.raises(ValueError, match="c2"):
        pv.build(pts(), DOM, method="ag", epsilon=1.0, c2=0)
    with pytest.raises(ValueError, match="m1"):
        pv.build(pts(), DOM, method="ag", epsilon=1.0, m1=0)
