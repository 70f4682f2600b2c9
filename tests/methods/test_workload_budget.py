"""The quadtree's budget planned for a workload: the count of canonical nodes, the plan, the release."""
import numpy as np
import pytest

import psdviz as pv
from psdviz.methods.quadtree import quad_structure
from psdviz.methods.workload_budget import (
    FLOOR_SHARE,
    GEOMETRIC_FLOOR,
    TOP_LEVELS,
    canonical_counts,
    check_workload,
    deepest_used,
    floor_shares,
    workload_epsilons,
)

DOM = pv.Domain(0, 0, 8, 4)


def _random_rects(k, rng, dom=DOM):
    a = np.sort(rng.uniform(dom.xmin, dom.xmax, (k, 2)), 1)
    b = np.sort(rng.uniform(dom.ymin, dom.ymax, (k, 2)), 1)
    return np.column_stack([a[:, 0], b[:, 0], a[:, 1], b[:, 1]])


def _brute_counts(rects, dom, h):
    """Node by node: canonical nodes (inside, parent not inside) per depth, cut leaves' share squared."""
    s = quad_structure(dom, h)
    r, dep, par = s["rect"], s["depth"], s["parent"]
    want = np.zeros(h + 1)
    for x0, y0, x1, y1 in rects:
        inside = (r[:, 0] >= x0) & (r[:, 2] <= x1) & (r[:, 1] >= y0) & (r[:, 3] <= y1)
        canon = inside & np.r_[True, ~inside[par[1:]]]
        want += np.bincount(dep[canon], minlength=h + 1)
        ox = np.clip(np.minimum(r[:, 2], x1) - np.maximum(r[:, 0], x0), 0, None)
        oy = np.clip(np.minimum(r[:, 3], y1) - np.maximum(r[:, 1], y0), 0, None)
        share = ox * oy / ((r[:, 2] - r[:, 0]) * (r[:, 3] - r[:, 1]))
        cut = (dep == h) & (share > 0) & ~inside
        want[h] += (share[cut] ** 2).sum()
    return want


@pytest.mark.parametrize("h", [1, 3, 4])
def test_canonical_counts_equal_a_node_by_node_count(h):
    rng = np.random.default_rng(h)
    rects = np.vstack([_random_rects(60, rng), [[0, 0, 8, 4], [0, 0, 4, 2], [2, 1, 6, 3], [7.5, 3.5, 8, 4]]])
    np.testing.assert_allclose(canonical_counts(rects, DOM, h), _brute_counts(rects, DOM, h))


def test_plan_is_the_cube_root_rule_with_a_floor_and_sums_to_epsilon():
    rects = _random_rects(200, np.random.default_rng(0))
    eps = workload_epsilons(0.7, 5, rects, DOM)
    assert eps.sum() == pytest.approx(0.7) and (eps > 0).all()
    w = np.cbrt(canonical_counts(rects, DOM, 5))
    w = np.maximum(w, floor_shares(5) * w.max())
    np.testing.assert_allclose(eps, 0.7 * w / w.sum())


def test_floor_is_half_the_geometric_shape_on_the_top_levels_and_the_flat_share_below():
    np.testing.assert_allclose(floor_shares(2), GEOMETRIC_FLOOR * 2.0 ** (np.array([-2, -1, 0]) / 3))
    eight = floor_shares(8)
    np.testing.assert_allclose(eight[:TOP_LEVELS], GEOMETRIC_FLOOR * 2.0 ** ((np.arange(TOP_LEVELS) - 8) / 3))
    assert (eight[TOP_LEVELS:] == FLOOR_SHARE).all()
    assert (floor_shares(20) == FLOOR_SHARE).all()       # deep trees: the geometric shape is below the flat share


def test_one_scale_workload_puts_its_level_first():
    """Queries that are exactly the depth-3 cells: depth 3 gets the largest share, the others the floor."""
    xs, ys = np.meshgrid(np.arange(8) * 1.0, np.arange(8) * 0.5, indexing="ij")
    cells = np.column_stack([xs.ravel(), ys.ravel(), xs.ravel() + 1, ys.ravel() + 0.5])
    eps = workload_epsilons(1.0, 5, cells, DOM)
    assert eps.argmax() == 3
    np.testing.assert_allclose(np.delete(eps, 3), np.delete(floor_shares(5), 3) * eps[3])


def test_height_rule_tree_stops_at_the_deepest_level_the_workload_uses():
    """Rectangles on the depth-3 lines use no deeper level: a tree whose height came from N and epsilon
    stops at 3 (and says so), every path still costs epsilon; one rectangle off those lines cuts leaves,
    which keeps the full height; a height the user gives is kept."""
    xs, ys = np.meshgrid(np.arange(8) * 1.0, np.arange(8) * 0.5, indexing="ij")
    on_lines = np.column_stack([xs.ravel(), ys.ravel(), xs.ravel() + 2, ys.ravel() + 0.5]).clip(0, [8, 4, 8, 4])
    assert deepest_used(canonical_counts(on_lines, DOM, 6)) == 3
    off = np.vstack([on_lines, [[0.3, 0.3, 1.7, 1.1]]])
    assert deepest_used(canonical_counts(off, DOM, 6)) == 6
    pts = np.random.default_rng(7).uniform([0, 0], [8, 4], (200_000, 2))
    rel = pv.build(pts, DOM, "quadtree", 1.0, seed=3, workload=on_lines)
    assert rel.params["height"] == 3 and any("cut to 3: no query of the workload" in n for n in rel.notes)
    assert rel.ledger.total() == pytest.approx(1.0)
    np.testing.assert_allclose(rel.tree.path_epsilons(), 1.0)
    assert pv.build(pts, DOM, "quadtree", 1.0, seed=3, workload=off).params["height"] > 3
    assert pv.build(pts, DOM, "quadtree", 1.0, seed=3, workload=on_lines, height=5).params["height"] == 5


def test_planned_tree_has_lower_exact_variance_on_its_workload():
    """Complete trees (no pruning: the variance is the same for every dataset): the plan for small
    squares gives their answers a lower exact variance than the geometric plan, and a sum over the
    workload no larger than the uniform plan's either."""
    rng = np.random.default_rng(3)
    pts = rng.uniform([0, 0], [8, 4], (20_000, 2))
    c = rng.uniform([0, 0], [7.75, 3.75], (300, 2))
    w = np.column_stack([c, c + 0.25])
    var = {}
    for plan in ("geometric", "uniform", "workload"):
        kw = {"workload": w} if plan == "workload" else {"budget": plan}
        rel = pv.build(pts, DOM, "quadtree", 0.5, seed=1, height=6, prune=None, **kw)
        var[plan] = rel.answer_variance(w).sum()
    assert var["workload"] < 0.5 * var["geometric"] and var["workload"] < var["uniform"]


def test_release_records_the_workload_and_spends_epsilon_on_every_path(tmp_path):
    rng = np.random.default_rng(4)
    pts = rng.normal([4, 2], [1, 0.5], (30_000, 2)).clip([0, 0], [7.99, 3.99])
    w = _random_rects(25, rng)
    rel = pv.build(pts, DOM, "quadtree", 1.0, seed=5, workload=w)
    assert rel.params["budget"] == "workload" and np.allclose(rel.params["workload"], w)
    assert any(n.startswith("budget planned for a workload of 25 rectangles") for n in rel.notes)
    assert rel.ledger.total() == pytest.approx(1.0)
    paths = rel.tree.path_epsilons()
    np.testing.assert_allclose(paths, 1.0)             # stopped leaves carry the levels below them
    back = pv.load_release(rel.save(tmp_path / "w.parquet", allow_seeded=True))
    assert np.allclose(back.params["workload"], w)
    np.testing.assert_allclose(back.answer(w), rel.answer(w))


def test_auto_passes_the_workload_to_the_quadtree_or_says_it_did_not():
    rng = np.random.default_rng(6)
    w = _random_rects(10, rng, pv.Domain(0, 0, 1, 1))
    dense = rng.normal(0.5, 0.15, (200_000, 2)).clip(0, 0.999)
    rel = pv.build(dense, pv.Domain(0, 0, 1, 1), "auto", 1.0, seed=2, workload=w)
    assert rel.params["chosen"] == "quadtree" and rel.params["budget"] == "workload"
    sparse = rng.normal(0.5, 0.05, (3_000, 2)).clip(0, 0.999)
    rel = pv.build(sparse, pv.Domain(0, 0, 1, 1), "auto", 0.5, seed=2, workload=w)
    assert rel.params["chosen"] == "privtree" and np.allclose(rel.params["workload"], w)
    assert rel.notes[2].startswith("The workload was not used: auto chose privtree")   # after the two of auto


@pytest.mark.parametrize("kwargs, match", [
    ({"method": "kdtree"}, "does not plan its measurements"),
    ({"workload": [[20, 20, 30, 30]]}, "no area inside the domain"),
    ({"workload": [[1, 1, 2]]}, "shape"),
    ({"workload": [[2, 1, 1, 2]]}, "xmin <= xmax"),
    ({"budget": "uniform"}, "the workload sets the budget plan"),
])
def test_bad_workloads_are_refused_in_words(kwargs, match):
    pts = np.random.default_rng(0).uniform([0, 0], [8, 4], (500, 2))
    args = {"method": "quadtree", "workload": [[0, 0, 1, 1]], **kwargs}
    method = args.pop("method")
    with pytest.raises(ValueError, match=match):
        pv.build(pts, DOM, method, 1.0, seed=0, **args)


def test_workload_is_clipped_to_the_domain():
    np.testing.assert_allclose(check_workload([[-1, -1, 2, 2]], DOM).rects, [[0, 0, 2, 2]])


def test_random_rectangles_put_more_epsilon_deeper():
    """Rectangles at random, as in ICDE'12's derivation: canonical nodes grow with depth, so the plan
    grows with depth like the paper's geometric plan (leaves largest)."""
    rects = _random_rects(5000, np.random.default_rng(9), pv.Domain(0, 0, 1, 1))
    eps = workload_epsilons(1.0, 6, rects, pv.Domain(0, 0, 1, 1))
    assert (np.diff(eps[1:]) > 0).all() and eps.argmax() == 6


def test_top_levels_keep_enough_noise_budget_not_to_stop_a_quadrant_of_tail():
    """Random rectangles rarely hold a whole quadrant; the plan still gives depth 1 enough that a quadrant
    holding 150 points of a tail stops there rarely: the chance P(150 + noise <= max(m, sd)) under the plan's
    depth-1 noise (two-sided geometric: P(X <= -k) = a^k / (1 + a)) is below 0.1 (0.03; with the flat 5 % floor
    alone it was 0.21), and over 20 seeds the quadrants stopped at depth 1 stay within 5 sd of that chance."""
    from psdviz.core.noise import geometric_variance

    rng = np.random.default_rng(5)
    dom = pv.Domain(0, 0, 256, 256)
    tails = [rng.uniform([x, y], [x + 128, y + 128], (150, 2)) for x, y in ((128, 0), (0, 128), (128, 128))]
    pts = np.vstack([rng.normal(40, 10, (20_000, 2)).clip(0, 127), *tails])
    w = _random_rects(200, np.random.default_rng(8), dom)
    eps1 = workload_epsilons(1.0, 8, w, dom)[1]
    a, sd = np.exp(-eps1), np.sqrt(geometric_variance(eps1))
    k = int(np.ceil(150 - max(32.0, sd)))          # stops iff noise <= max(m, sd) - 150
    p = a ** k / (1 + a)
    assert p < 0.1
    stopped = 0
    for seed in range(20):
        rel = pv.build(pts, dom, "quadtree", 1.0, seed=seed, height=8, workload=w)
        t = rel.tree
        stopped += int((t.is_leaf & (t.depth == 1)).sum())
    n = 3 * 20
    assert stopped <= n * p + 5 * np.sqrt(n * p * (1 - p)) + 1
