"""The workload-optimised strategy (HDMM's Kronecker p-Identity): the algebra, the sensitivity, the ledger,
variances against simulation, the file round trip and a D vs D' audit."""
import math

import numpy as np
import pytest

import psdviz as pv
from psdviz.core.ledger import Ledger
from psdviz.core.rng import SEEDED, Randomness
from psdviz.inference.pidentity import (
    PIdentity,
    all_ranges_gram,
    axis_weights,
    objective,
    optimise,
    optimise_product,
)
from psdviz.methods.strategy import measure, plan_strategy, strategy_error

DOM = pv.Domain(0, 0, 8, 4)
RNG = np.random.default_rng(0)


def _rects(k, rng, dom=DOM):
    a = np.sort(rng.uniform(dom.xmin, dom.xmax, (k, 2)), 1)
    b = np.sort(rng.uniform(dom.ymin, dom.ymax, (k, 2)), 1)
    return np.column_stack([a[:, 0], b[:, 0], a[:, 1], b[:, 1]])


def test_objective_and_gradient_match_the_dense_formulas():
    theta = RNG.uniform(0, 1, (3, 12))
    q = RNG.uniform(0, 1, (20, 12))
    gram = q.T @ q
    a = PIdentity(theta).matrix()
    f, grad = objective(theta, gram)
    assert f == pytest.approx(np.trace(gram @ np.linalg.inv(a.T @ a)), rel=1e-10)
    h, numeric = 1e-6, np.zeros_like(theta)
    for i, j in np.ndindex(theta.shape):
        step = theta.copy()
        step[i, j] += h
        numeric[i, j] = (objective(step, gram)[0] - f) / h
    np.testing.assert_allclose(grad, numeric, atol=1e-4 * np.abs(grad).max())


def test_least_squares_and_inverse_gram_match_numpy():
    s = PIdentity(RNG.uniform(0, 1, (2, 9)))
    a = s.matrix()
    z = RNG.normal(size=(11, 3))
    np.testing.assert_allclose(s.pinv_apply(z), np.linalg.lstsq(a, z, rcond=None)[0], atol=1e-12)
    np.testing.assert_allclose(s.inverse_gram(), np.linalg.inv(a.T @ a), atol=1e-10)
    np.testing.assert_allclose(s.apply(z[:9]), a @ z[:9], atol=1e-14)


def test_sensitivity_of_the_product_strategy_is_one():
    """Every column of A_y (x) A_x has L1 norm 1: one point (one cell + 1) moves the answers by exactly 1 in L1."""
    sx, sy = PIdentity(RNG.uniform(0, 2, (2, 6))), PIdentity(RNG.uniform(0, 2, (1, 5)))
    full = np.kron(sy.matrix(), sx.matrix())
    np.testing.assert_allclose(np.abs(full).sum(axis=0), 1.0)
    x = RNG.integers(0, 9, (5, 6)).astype(float)
    for i, j in [(0, 0), (4, 5), (2, 3)]:
        y = x.copy()
        y[i, j] += 1
        moved = sx.apply(sy.apply(y).T).T - sx.apply(sy.apply(x).T).T
        assert np.abs(moved).sum() == pytest.approx(1.0)


def test_optimiser_beats_the_identity_on_all_ranges_and_keeps_it_for_single_cells():
    gram = all_ranges_gram(64)
    s = optimise(gram, 4)
    assert objective(s.theta, gram)[0] < 0.75 * np.trace(gram)        # every interval: hierarchies help
    cells = np.eye(64)
    assert optimise(cells, 4).theta.shape[0] == 0                      # single cells: the identity is optimal


def test_product_factor_is_the_sum_of_the_workload_variances():
    ex, ey = np.linspace(0, 8, 17), np.linspace(0, 4, 17)
    rects = _rects(40, np.random.default_rng(1))
    ax, ay, total = optimise_product(rects[:, [0, 2]], rects[:, [1, 3]], ex, ey, 2, 2)
    wx, wy = axis_weights(rects[:, 0], rects[:, 2], ex), axis_weights(rects[:, 1], rects[:, 3], ey)
    want = np.einsum("ki,ij,kj->k", wx, ax.inverse_gram(), wx) @ np.einsum("ki,ij,kj->k", wy, ay.inverse_gram(), wy)
    assert total == pytest.approx(want)
    identity = (wx ** 2).sum(1) @ (wy ** 2).sum(1)
    assert total <= identity


def test_release_ledger_paths_and_parameters():
    pts = np.column_stack([RNG.uniform(0, 8, 5000), RNG.uniform(0, 4, 5000)])
    rects = _rects(30, np.random.default_rng(2))
    rel = pv.build(pts, DOM, "strategy", 0.7, seed=1, grid_size=16, workload=rects)
    assert [(s.what, s.epsilon, s.mechanism, s.sensitivity) for s in rel.ledger.spends] == [
        ("strategy answers", pytest.approx(0.7), "geometric", 1.0)]
    assert rel.ledger.spends[0].nodes == (16 + rel.params["rows_y"]) * (16 + rel.params["rows_x"])
    assert rel.tree.path_epsilons().max() == pytest.approx(0.7)        # every point's path costs epsilon once
    assert rel.params["workload"] == rects.tolist() and rel.tree.is_leaf.sum() == 256
    np.testing.assert_allclose(rel.answer_variance(rects), strategy_error(_plan(rel, rects), rects, 0.7), rtol=1e-9)


def _plan(rel, rects):
    leaves = rel.tree.rect[1:]
    ex = np.r_[np.unique(leaves[:, 0]), DOM.xmax]
    ey = np.r_[np.unique(leaves[:, 1]), DOM.ymax]
    return plan_strategy(DOM, ex, ey, rects)


def test_variance_matches_simulation_and_answers_are_unbiased():
    """The build's measurement step run 3,000 times on one plan (the plan reads no data, so every build with
    this workload measures with it): answers' mean within 4 standard errors of the noiseless answer, and the
    sample variance within 4 of its own standard errors of the variance the release states (excess
    kurtosis at most the Laplace's 3)."""
    pts = np.column_stack([RNG.uniform(0, 8, 400), RNG.uniform(0, 4, 400)])
    rects = np.array([[0, 0, 8, 4], [1, 0.5, 5, 3], [2.25, 1.1, 2.8, 1.3], [0, 0, 4, 4]])
    rel = pv.build(pts, DOM, "strategy", 0.5, seed=0, grid_size=8, workload=rects)
    strategy = _plan(rel, rects)
    ex, ey = strategy.ex, strategy.ey
    counts = np.histogram2d(pts[:, 1], pts[:, 0], bins=[ey, ex])[0].astype(np.int64)
    wx, wy = axis_weights(rects[:, 0], rects[:, 2], ex), axis_weights(rects[:, 1], rects[:, 3], ey)
    rng, runs = np.random.default_rng(5), 3000
    answers = np.array([np.einsum("ki,ij,kj->k", wy, measure(strategy, counts, 0.5, Randomness(rng, SEEDED, 5),
                                                             Ledger(0.5)), wx) for _ in range(runs)])
    var = rel.answer_variance(rects)
    exact = np.einsum("ki,ij,kj->k", wy, counts, wx)
    assert (np.abs(answers.mean(0) - exact) <= 4 * np.sqrt(var / runs)).all(), (answers.mean(0), exact)
    sample = answers.var(0, ddof=1)
    assert (np.abs(sample / var - 1) <= 4 * math.sqrt((2 + 3) / runs)).all(), sample / var


def test_a_release_file_answers_the_same_and_refuses_edited_variances(tmp_path):
    pts = np.column_stack([RNG.uniform(0, 8, 3000), RNG.uniform(0, 4, 3000)])
    rects = _rects(10, np.random.default_rng(3))
    rel = pv.build(pts, DOM, "strategy", 1.0, seed=2, grid_size=16, workload=rects)
    path = tmp_path / "s.parquet"
    rel.save(path, allow_seeded=True)
    back = pv.load_release(path)
    np.testing.assert_array_equal(back.answer(rects), rel.answer(rects))
    np.testing.assert_array_equal(back.answer_variance(rects), rel.answer_variance(rects))
    assert back.query_model == rel.query_model
    with pytest.raises(ValueError, match="noise variances are not the ones"):
        rel.evolve(query_model=rel.query_model.__class__(**{**rel.query_model.__dict__,
                                                                 "theta_x": (1.0,) * 16}))


def test_region_answers_use_the_full_covariance():
    """A region's variance from node weights equals the rectangle formula for a rectangle's own weights."""
    pts = np.column_stack([RNG.uniform(0, 8, 2000), RNG.uniform(0, 4, 2000)])
    rel = pv.build(pts, DOM, "strategy", 1.0, seed=4, grid_size=16)
    rects = np.array([[1.0, 0.5, 6.0, 3.5], [0.0, 0.0, 8.0, 4.0]])
    ex, ey = np.linspace(0, 8, 17), np.linspace(0, 4, 17)
    wx, wy = axis_weights(rects[:, 0], rects[:, 2], ex), axis_weights(rects[:, 1], rects[:, 3], ey)
    nodes = np.vstack([np.zeros((1, 2)), np.einsum("ki,kj->ijk", wy, wx).reshape(256, 2)])
    np.testing.assert_allclose(rel.leaf_variance(nodes), rel.answer_variance(rects), rtol=1e-9)
    sparse = np.zeros((257, 1))
    sparse[[5, 6, 40], 0] = [1.0, 0.5, 0.25]            # few cells: the sub-covariance path
    kron = rel.leaf_variance
    full = np.kron(kron.y.inverse_gram(), kron.x.inverse_gram())
    assert kron(sparse)[0] == pytest.approx(kron.factor * sparse[1:, 0] @ full @ sparse[1:, 0])


def test_a_region_layer_plans_by_its_bounding_boxes_and_answers_its_regions():
    """Regions as the workload: the strategy plans for their bounding boxes (public), and answers every
    region with the variance of its cells' covariance; auto sends small regions over full cells there."""
    import geopandas as gpd
    from shapely.geometry import box

    from psdviz.regions import Regions
    dom = pv.Domain(0, 0, 256, 256)
    cells = [box(x, y, x + 4, y + 4) for x in range(100, 140, 4) for y in range(100, 140, 4)]
    layer = Regions.from_frame(gpd.GeoDataFrame({"id": [f"r{i}" for i in range(len(cells))]}, geometry=cells),
                               id="id", crs=None)
    pts = np.random.default_rng(3).normal(120, 12, (100_000, 2)).clip(0, 255.9)
    rel = pv.build(pts, dom, "strategy", 1.0, seed=1, resolution=8, workload=layer)
    table = rel.answer_regions(layer)
    rects = np.array([g.bounds for g in cells])
    # a region's variance sums its cells' covariances (256 x 256 terms of both signs: a strategy for small squares
    # measures single cells poorly and blocks well), a rectangle's multiplies two 1-D forms: they agree to the
    # rounding of that sum, at most n u sum |terms| (n terms, u the unit roundoff)
    kron = rel.leaf_variance
    mx, my = np.abs(kron.x.inverse_gram()), np.abs(kron.y.inverse_gram())
    ix, iy = (rects[:, [0, 2]] // 1).astype(int), (rects[:, [1, 3]] // 1).astype(int)
    size = np.array([mx[a:b, a:b].sum() * my[c:d, c:d].sum() for (a, b), (c, d) in zip(ix, iy)])
    rounding = 256 ** 2 * np.finfo(float).eps / 2 * kron.factor * size
    assert np.all(np.abs(table["standard_error"] ** 2 - rel.answer_variance(rects)) <= rounding)
    assert "workload_regions" in rel.params
    picked = pv.build(pts, dom, "auto", 1.0, seed=1, resolution=8, workload=layer)
    assert picked.params["chosen"] == "strategy" and "workload_regions" in picked.params


def test_the_planner_reads_the_strategy_error_before_any_data():
    """Data-independent throughout: the planned standard error at any epsilon is the empty release's."""
    dom = pv.Domain(0, 0, 256, 256)
    w = np.array([[10.0, 10, 50, 50], [0, 0, 128, 128]])
    plan = pv.plan_epsilon("strategy", dom, w[0], n=100_000, relative=0.05, resolution=8, workload=w)
    empty = pv.build(np.zeros((0, 2)), dom, "strategy", plan.epsilon, seed=0, resolution=8, workload=w)
    assert np.sqrt(empty.answer_variance(w[:1])[0]) == pytest.approx(plan.target, rel=1e-3)


def test_small_squares_on_a_few_rows_get_the_plan_started_from_blocks():
    """Squares of 4 x 4 cells on five rows: the uniform start stays at the identity on the rows' axis, the
    start from blocks of 4 finds a strategy with about half the variance; its columns keep L1 norm 1 (the
    sensitivity the ledger records). Squares spread everywhere and random rectangles keep the first plan."""
    from psdviz.inference.pidentity import optimise_product
    from psdviz.methods.strategy import plan_strategy, strategy_error
    ex, dom = np.linspace(0, 256, 257), pv.Domain(0, 0, 256, 256)
    rng = np.random.default_rng(4)
    cols, rows = rng.integers(2, 254, 1000), rng.choice([40, 41, 120, 121, 200], 1000)
    lined = np.column_stack([cols - 2, rows - 2, cols + 2, rows + 2]).astype(float)
    spread = np.column_stack([cols - 2, cols[::-1] - 2, cols + 2, cols[::-1] + 2]).astype(float)
    corners = np.sort(rng.uniform(0, 256, (200, 2, 2)), axis=1)
    random = np.column_stack([corners[:, 0, 0], corners[:, 0, 1], corners[:, 1, 0], corners[:, 1, 1]])
    for w, gain in ((lined, True), (spread, False), (random, False)):
        plan = plan_strategy(dom, ex, ex, w)
        first = optimise_product(w[:, [0, 2]], w[:, [1, 3]], ex, ex, 16, 16)[2]
        ratio = strategy_error(plan, w, 1.0).sum() / 2 / first         # Laplace variance 2 / eps^2
        assert ratio <= 1 + 1e-4       # the plan as measured: its entries on the 2^-12 lattice
        assert bool(ratio < 0.6) is gain, ratio
        for axis in (plan.x, plan.y):
            np.testing.assert_allclose(np.abs(axis.matrix()).sum(axis=0), 1.0, rtol=1e-12)
    assert pv.build(np.random.default_rng(5).uniform(0, 256, (2000, 2)), dom, "strategy", 1.0, seed=1,
                    resolution=8, workload=lined).params["rows_y"] == 64
