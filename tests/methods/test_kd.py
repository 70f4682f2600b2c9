"""kd-tree family and Hilbert R-tree (ICDE'12 sections 3.2, 6, 7, 8): structure, ledger and
per-path epsilons, regions, references, parameter errors."""
import numpy as np
import pytest

import psdviz as pv
from psdviz.core.budget import level_epsilons
from psdviz.core.domain import prepare_points
from psdviz.splits.kdsplit import descend, exact_median_splits, kd_partition
from psdviz.splits.medians import expand

DOM = pv.Domain(-10, 0, 30, 20)
PRIVATE = ("kdtree", "hybrid", "hilbert", "kd-cell", "kd-noisymean")


def points(n=4000, seed=0):
    rng = np.random.default_rng(seed)
    xy = rng.normal([0, 8], [3, 2], (n, 2))
    return np.clip(xy, [-10, 0], [30, 20])


def test_methods_registered():
    for m in PRIVATE:
        assert m in pv.METHODS
    assert set(pv.REFERENCES) >= {"kd-pure", "kd-true"}


@pytest.mark.parametrize("method", PRIVATE)
def test_ledger_and_path_epsilons(method):
    eps = 0.8
    rel = pv.build(points(), DOM, method, eps, seed=1, height=4, prune=None)
    assert rel.private
    assert rel.ledger.total() == pytest.approx(eps)
    # unpruned complete tree: every root-to-leaf path composes to exactly epsilon
    np.testing.assert_allclose(rel.tree.path_epsilons(), eps)
    counts = rel.ledger.by_level("count")
    np.testing.assert_allclose([counts[d] for d in range(5)], level_epsilons(0.7 * eps, 4, "geometric"))
    assert rel.tree.n_nodes == (4 ** 5 - 1) // 3


def test_median_budget_uniform_and_hybrid_switch():
    eps = 1.0
    kd = pv.build(points(), DOM, "kdtree", eps, seed=2, height=4, prune=None)
    med = [s for s in kd.ledger.spends if s.what == "median"]
    assert len(med) == 8 and all(s.epsilon == pytest.approx(0.3 / 8) for s in med)
    hy = pv.build(points(), DOM, "hybrid", eps, seed=2, height=4, switch=1, prune=None)
    med = [s for s in hy.ledger.spends if s.what == "median"]
    assert len(med) == 2 and all(s.epsilon == pytest.approx(0.3 / 2) for s in med)
    t = hy.tree
    np.testing.assert_allclose(t.split_eps[t.depth == 0], 0.3)
    assert (t.split_eps[t.depth > 0] == 0).all()
    # below the switch the splits are midpoints: every child is a quarter of its parent (to one grid
    # step: a parent an odd number of steps wide splits at the position just below its middle)
    step = hy.grid.step[0]
    lo = t.level_bounds()
    for d in range(1, 4):
        kids = t.rect[lo[d + 1]:lo[d + 2]].reshape(-1, 4, 4)
        par = t.rect[lo[d]:lo[d + 1]]
        w = (par[:, 2] - par[:, 0]) / 2
        np.testing.assert_allclose(kids[:, :, 2] - kids[:, :, 0], np.repeat(w[:, None], 4, 1), rtol=0,
                                   atol=step * 1.01)
    # default switch is a quarter of the height (hybrid.py: DPBench sweeps)
    assert pv.build(points(), DOM, "hybrid", eps, seed=2, height=6).params["switch"] == 1
    assert pv.build(points(), DOM, "hybrid", eps, seed=2, height=8).params["switch"] == 2


@pytest.mark.parametrize("n_public", [None, 4000])
def test_hybrid_default_height_follows_the_quadtree_rule_from_n(n_public):
    """Unset height: min(8, ceil(log4(N eps / 10))) with N public or a noisy count whose epsilon is
    in the ledger and at the root; every path still composes to epsilon."""
    from psdviz.methods.quadtree import quad_height
    eps = 0.5
    kw = {} if n_public is None else {"n_public": n_public}
    rel = pv.build(points(), DOM, "hybrid", eps, seed=3, prune=None, **kw)
    spent = [s for s in rel.ledger.spends if s.what == "N estimate"]
    eps_n = 0.05 * eps if n_public is None else 0.0
    assert len(spent) == (n_public is None) and sum(s.epsilon for s in spent) == pytest.approx(eps_n)
    # 4000 points: N eps / 10 = 200 -> h = 4, whatever the noise of N (geometric, scale 1 / 0.025)
    assert rel.params["height"] == quad_height(4000, eps - eps_n) == 4
    assert rel.params["switch"] == 1 and rel.params["N"].startswith("estimated" if n_public is None else "declared")
    assert rel.tree.split_eps[0] == pytest.approx(eps_n + 2 * 0.3 * (eps - eps_n) / 2)
    assert rel.ledger.total() == pytest.approx(eps)
    np.testing.assert_allclose(rel.tree.path_epsilons(), eps)
    big = pv.build(np.repeat(points(), 100, axis=0), DOM, "hybrid", eps, seed=3, n_public=400_000)
    assert big.params["height"] == 8          # the rule asks for 9: capped at the paper's h = 8


def test_kd_partition_against_recursive_exact_medians():
    """The level-vectorised partition equals a plain recursive kd-tree with exact medians (on grid keys)."""
    ps = prepare_points(points(500, seed=3), DOM, resolution=10)
    xy = ps.keys
    def exact(t, a, v, o, r, w):
        v, o = expand(v, o, w)
        return exact_median_splits(v, o, r[:, a], r[:, a + 2])
    rects, counts, splits = kd_partition(ps, np.array([0, 0, 1024, 1024]), 6, exact)
    node = descend(xy[:, 0], xy[:, 1], splits)
    np.testing.assert_array_equal(counts, np.bincount(node, minlength=64))

    def recurse(idx, rect, t, out):
        if t == 6:
            out.append((tuple(rect), np.sort(idx)))
            return
        a = t % 2
        v = np.sort(xy[idx, a])
        s = v[len(v) // 2] if len(v) else (rect[a] + rect[a + 2]) // 2
        left, right = list(rect), list(rect)
        left[a + 2] = right[a] = s
        recurse(idx[xy[idx, a] < s], left, t + 1, out)
        recurse(idx[xy[idx, a] >= s], right, t + 1, out)
    slow = []
    recurse(np.arange(len(xy)), [0, 0, 1024, 1024], 0, slow)
    for j, (rect, idx) in enumerate(slow):
        np.testing.assert_allclose(rects[-1][j], rect)
        np.testing.assert_array_equal(np.flatnonzero(node == j), idx)


@pytest.mark.parametrize("method", PRIVATE)
def test_leaf_rectangles_hold_their_points(method):
    """With a huge budget counts are exact: every leaf's rectangle contains its points, so the
    true count inside the rectangle is at least the leaf count (Hilbert boxes may overlap)."""
    xy = points(3000, seed=4)
    rel = pv.build(xy, DOM, method, 1e5, seed=5, height=3, prune=None, postprocess=False)
    leaves = rel.leaves()
    rects = leaves[["x0", "y0", "x1", "y1"]].to_numpy()
    inside = pv.true_answer(xy, rects)
    assert leaves["noisy"].sum() == pytest.approx(len(xy))
    assert (inside >= leaves["noisy"].to_numpy() - 1e-9).all()
    # the whole domain is answered exactly, partial queries approximately
    assert rel.answer([DOM.as_rect()])[0] == pytest.approx(len(xy))
    assert (rects[:, 0] >= DOM.xmin).all() and (rects[:, 2] <= DOM.xmax).all()


def test_regions_come_from_domain_not_data():
    xy = points(2000, seed=6)
    for m in PRIVATE:
        rel = pv.build(xy, DOM, m, 0.5, seed=7, height=3)
        np.testing.assert_allclose(rel.tree.rect[0], DOM.as_rect())


def test_references_are_labelled_not_private():
    xy = points(2000, seed=8)
    pure = pv.build(xy, DOM, "kd-pure", 0.5, height=3, prune=None)
    true = pv.build(xy, DOM, "kd-true", 0.5, seed=1, height=3)
    for rel in (pure, true):
        assert rel.private is False and rel.report()["private"] is False
        assert any("not private" in n for n in rel.notes)
    assert pure.ledger.total() == 0
    # kd-pure answers a union of its leaves exactly
    leaves = pure.leaves()
    r = leaves[["x0", "y0", "x1", "y1"]].to_numpy()
    q = np.array([[r[:, 0].min(), r[:, 1].min(), r[:, 2].max(), r[:, 3].max()]])
    assert pure.answer(q)[0] == pytest.approx(pv.true_answer(xy, q)[0])


def test_sampling_and_smooth_medians_in_ledger():
    xy = points(3000, seed=9)
    rel = pv.build(xy, DOM, "kdtree", 1.0, seed=3, height=3, median="smooth", sample_rate=0.5, delta=1e-5)
    med = [s for s in rel.ledger.spends if s.what == "median"]
    assert all(s.mechanism == "smooth sensitivity" and s.delta == 1e-5 for s in med)
    assert "Theorem 7" in med[0].note and rel.ledger.total() == pytest.approx(1.0)


def test_pruning_default_threshold():
    xy = points(3000, seed=10)
    rel = pv.build(xy, DOM, "kdtree", 1.0, seed=4)
    assert rel.params["prune"] == 32 and rel.params["height"] == 8
    assert rel.tree.n_nodes < (4 ** 9 - 1) // 3
    internal = ~rel.tree.is_leaf
    assert rel.params["pruning"] == "build" and (rel.tree.noisy[internal] > 32).all()   # split only above m
    after = pv.build(xy, DOM, "kdtree", 1.0, seed=4, pruning="after_ols")
    assert (after.tree.est[~after.tree.is_leaf] >= 32).all()       # the paper's text: cut after OLS
    # the cut descendants' medians and counts were spent: every path still costs epsilon
    for m in PRIVATE:
        pruned = pv.build(xy, DOM, m, 1.0, seed=4, height=5)
        assert pruned.tree.n_nodes < (4 ** 6 - 1) // 3
        np.testing.assert_allclose(pruned.tree.path_epsilons(), 1.0)


@pytest.mark.parametrize("method,params,match", [
    ("kdtree", {"height": 0}, "height"), ("kdtree", {"height": 11}, "height"),
    ("kdtree", {"count_fraction": 1.0}, "count_fraction"), ("hybrid", {"height": 4, "switch": 5}, "switch"),
    ("kdtree", {"median": "mean"}, "median"), ("hilbert", {"sample_rate": 0}, "sample_rate"),
    ("hilbert", {"order": 40}, "order"), ("kd-cell", {"grid": 1}, "grid"),
    ("kdtree", {"budget": "log"}, "budget"), ("kd-noisymean", {"prune": float("nan")}, "prune"),
])
def test_parameter_errors(method, params, match):
    with pytest.raises(ValueError, match=match):
        pv.build(points(200), DOM, method, 0.5, seed=1, **params)


def test_input_not_modified():
    xy = points(1000, seed=11)
    before = xy.copy()
    for m in PRIVATE:
        pv.build(xy, DOM, m, 0.5, seed=1, height=3)
    np.testing.assert_array_equal(xy, before)


def test_seeded_runs_reproducible_and_fresh_runs_differ():
    xy = points(2000, seed=12)
    for m in PRIVATE:
        a = pv.build(xy, DOM, m, 0.5, seed=5, height=3)
        b = pv.build(xy, DOM, m, 0.5, seed=5, height=3)
        np.testing.assert_array_equal(a.tree.rect, b.tree.rect)
        np.testing.assert_array_equal(a.tree.est, b.tree.est)
        c = pv.build(xy, DOM, m, 0.5, height=3)          # OS entropy
        assert c.audit()["seed"] is None
        assert not (np.array_equal(a.tree.rect, c.tree.rect) and np.array_equal(a.tree.noisy, c.tree.noisy))
