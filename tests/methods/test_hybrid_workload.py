"""The hybrid kd-tree's count levels planned for a workload, and auto handing it the workload."""
import numpy as np
import pytest

import psdviz as pv
from psdviz.core.workload import as_workload
from psdviz.lab.synthetic import zero_inflated
from psdviz.methods.auto import HYBRID_PLAN_N_EPS
from psdviz.methods.workload_budget import workload_epsilons

DOM = pv.Domain(0, 0, 256, 256)


def _squares(pts, side, k, rng):
    c = np.floor(pts[rng.integers(0, len(pts), k)])
    lo = np.clip(c - side // 2, 0, 256 - side)
    return np.column_stack([lo, lo + side])


def _count_epsilons(rel):
    return np.array([s.epsilon for s in rel.ledger.spends if s.what == "count"])


def test_the_count_levels_follow_the_workload_plan_and_every_path_spends_epsilon(tmp_path):
    """The counts' share of epsilon (after the N estimate and the medians) is split by the quadtree's plan for
    the workload at the hybrid's height; the medians' share is that of the geometric build; every path spends
    exactly epsilon; the release records the queries and says how it planned."""
    rng = np.random.default_rng(1)
    pts = rng.uniform(0, 256, (40_000, 2))
    w = _squares(pts, 4, 300, rng)
    geo = pv.build(pts, DOM, "hybrid", 1.0, seed=3, resolution=8)
    rel = pv.build(pts, DOM, "hybrid", 1.0, seed=3, resolution=8, workload=w)
    h = rel.params["height"]
    counts = _count_epsilons(rel)
    want = workload_epsilons(_count_epsilons(geo).sum(), h, as_workload(w), DOM)
    np.testing.assert_allclose(counts, want, rtol=1e-12)
    assert not np.allclose(counts, _count_epsilons(geo))          # the plan moved epsilon between levels
    medians = [s.epsilon for s in rel.ledger.spends if s.what == "median"]
    assert medians == [s.epsilon for s in geo.ledger.spends if s.what == "median"]
    assert rel.ledger.total() == pytest.approx(1.0)
    np.testing.assert_allclose(rel.tree.path_epsilons(), 1.0)
    assert rel.params["budget"] == "workload" and np.allclose(rel.params["workload"], w)
    assert any(n.startswith("budget planned for a workload of 300 rectangles") for n in rel.notes)
    back = pv.load_release(rel.save(tmp_path / "h.parquet", allow_seeded=True))
    np.testing.assert_allclose(back.answer(w), rel.answer(w))


def test_the_plan_lowers_the_exact_variance_of_small_squares():
    """Without pruning the medians are drawn before any count, so both builds share one structure; on it the
    plan for 4 x 4 squares gives their answers a lower summed variance than the geometric plan."""
    rng = np.random.default_rng(2)
    pts = rng.uniform(0, 256, (60_000, 2))
    w = _squares(pts, 4, 500, rng)
    kw = {"height": 6, "prune": None, "resolution": 8}
    geo = pv.build(pts, DOM, "hybrid", 1.0, seed=4, **kw)
    rel = pv.build(pts, DOM, "hybrid", 1.0, seed=4, workload=w, **kw)
    np.testing.assert_array_equal(geo.tree.rect, rel.tree.rect)
    assert rel.answer_variance(w).sum() < 0.8 * geo.answer_variance(w).sum()


def test_a_named_plan_and_a_workload_are_refused_together():
    pts = np.random.default_rng(0).uniform(0, 256, (500, 2))
    with pytest.raises(ValueError, match="the workload sets the budget plan"):
        pv.build(pts, DOM, "hybrid", 1.0, seed=0, budget="uniform", workload=[[0, 0, 8, 8]])


@pytest.mark.parametrize("n, eps, planned", [(200_000, 1.0, True), (20_000, 1.0, False)])
def test_auto_plans_the_hybrid_from_n_eps_on_and_says_when_it_did_not(n, eps, planned):
    """Points in a corner atom and large rectangles send auto to the hybrid; it gets the workload from
    N eps = 5 x 10^4 on (the noisy N), and below that the release says the workload was not used and why."""
    rng = np.random.default_rng(5)
    pts = zero_inflated(n, DOM, rng, atom=0.6, lines=0.3, corner=True)
    corners = np.sort(rng.uniform(0, 256, (100, 2, 2)), axis=1)       # large rectangles: not the strategy's row
    w = np.column_stack([corners[:, 0], corners[:, 1]])
    rel = pv.build(pts, DOM, "auto", eps, seed=6, resolution=8, workload=w)
    assert rel.params["chosen"] == "hybrid" and (n * eps >= HYBRID_PLAN_N_EPS) == planned
    assert np.allclose(rel.params["workload"], w)
    unused = [m for m in rel.notes if m.startswith("The workload was not used")]
    if planned:
        assert rel.params["budget"] == "workload" and not unused
        assert sum(s.epsilon for s in rel.ledger.spends) == pytest.approx(eps)
    else:
        assert rel.params["budget"] == "geometric" and "below N x epsilon" in unused[0]
