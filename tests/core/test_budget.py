"""Budget plans (ICDE'12 section 4.2, Lemma 3), the ledger, and path sums on built trees."""
import numpy as np
import pytest

import psdviz as pv
from psdviz.core.budget import PLANS, level_epsilons
from psdviz.core.ledger import Ledger


@pytest.mark.parametrize("plan", PLANS)
@pytest.mark.parametrize("height", [0, 1, 2, 5, 10, 11])
def test_plans_sum_to_epsilon(plan, height):
    eps = level_epsilons(0.7, height, plan)
    assert eps.shape == (height + 1,)
    assert eps.sum() == pytest.approx(0.7, rel=1e-12)
    assert (eps >= 0).all()


@pytest.mark.parametrize("height", [1, 3, 10])
def test_geometric_is_lemma_3(height):
    eps = level_epsilons(1.3, height, "geometric")
    # Lemma 3 written independently: eps_i = 2^((h-i)/3) eps (2^(1/3)-1) / (2^((h+1)/3)-1),
    # i = height of the level (leaves i = 0), stored here by depth d = h - i.
    h = height
    lemma = np.array([2 ** ((h - i) / 3) * 1.3 * (2 ** (1 / 3) - 1) / (2 ** ((h + 1) / 3) - 1)
                      for i in range(h, -1, -1)])
    np.testing.assert_allclose(eps, lemma, rtol=1e-12)
    np.testing.assert_allclose(geometric_closed_form(1.3, height), lemma, rtol=1e-12)
    np.testing.assert_allclose(eps[1:] / eps[:-1], 2 ** (1 / 3))   # leaves largest
    assert eps.argmax() == height


def test_uniform_and_leaf_plans():
    np.testing.assert_allclose(level_epsilons(1.0, 3, "uniform"), [0.25] * 4)
    np.testing.assert_array_equal(level_epsilons(1.0, 3, "leaf"), [0, 0, 0, 1.0])


def test_bad_plan_and_height():
    with pytest.raises(ValueError, match="budget must be one of"):
        level_epsilons(1.0, 3, "optimal")
    with pytest.raises(ValueError, match="height must be >= 0"):
        level_epsilons(1.0, -1)


def test_ledger_refuses_to_overspend_and_negative_spends():
    led = Ledger(1.0)
    led.spend("count", 0.6, "geometric", level=0)
    led.spend("count", 0.4, "geometric", level=1)
    assert led.total() == pytest.approx(1.0) and led.remaining() == 0.0
    with pytest.raises(ValueError, match="exceed the budget 1"):
        led.spend("count", 1e-6, "geometric")
    with pytest.raises(ValueError, match="negative"):
        Ledger(1.0).spend("count", -0.1, "geometric")
    assert led.by_level() == {0: 0.6, 1: 0.4}


POINTS = np.random.default_rng(0).uniform(0, 1, (3000, 2))
DOM = pv.Domain(0, 0, 1, 1)


@pytest.mark.parametrize("budget", PLANS)
@pytest.mark.parametrize("postprocess", [True, False])
@pytest.mark.parametrize("prune", [None, 5.0, 60.0])
def test_quadtree_path_sums_equal_epsilon(budget, postprocess, prune):
    rel = pv.build(POINTS, DOM, method="quadtree", epsilon=0.8, seed=1, height=4, budget=budget,
                   postprocess=postprocess, prune=prune)
    if prune == 60.0:
        assert rel.tree.n_nodes < 341                           # pruning really cut something
    if budget == "leaf" and prune is not None:                  # nothing measured above the leaves to stop on
        assert rel.params["pruning"] == "after_ols" and any("no node can stop" in n for n in rel.notes)
    paths = rel.tree.path_epsilons()
    assert paths.size == rel.tree.is_leaf.sum()
    np.testing.assert_allclose(paths, 0.8, rtol=1e-12)         # every root-to-leaf path, exactly
    assert rel.ledger.total() <= 0.8 * (1 + 1e-12)
    assert rel.ledger.total() == pytest.approx(0.8)
    # the ledger's per-level record matches the nodes' epsilons level by level
    # the ledger's per-level record matches the nodes' epsilons level by level; a node stopped during
    # the build (pruning="build", the default) was measured once more with the levels below it
    by_level = rel.ledger.by_level("count")
    t = rel.tree
    stopped = t.is_leaf & (t.depth < t.height) & (rel.params["pruning"] == "build")
    for d in range(t.height + 1):
        below = sum(by_level.get(k, 0.0) for k in range(d, t.height + 1))
        assert np.allclose(t.count_eps[(t.depth == d) & ~stopped], by_level.get(d, 0.0))
        assert np.allclose(t.count_eps[(t.depth == d) & stopped], below)


def test_ug_path_sums_and_ledger():
    rel = pv.build(POINTS, DOM, method="ug", epsilon=0.8, seed=1)
    n_spend = [s for s in rel.ledger.spends if s.what == "N estimate"]
    assert len(n_spend) == 1
    assert rel.tree.split_eps[0] == n_spend[0].epsilon > 0   # the noisy N sized the grid
    np.testing.assert_allclose(rel.tree.path_epsilons(), 0.8)
    assert rel.ledger.total() == pytest.approx(0.8)
    public = pv.build(POINTS, DOM, method="ug", epsilon=0.8, seed=1, n_public=3000)
    np.testing.assert_allclose(public.tree.path_epsilons(), 0.8)
    assert [s.what for s in public.ledger.spends] == ["count"]

# test oracle (was psdviz/core/budget.py): a slow, obvious version the fast code is checked against
def geometric_closed_form(epsilon: float, height: int) -> np.ndarray:
    """Lemma 3's closed form by depth, used by tests to check :func:`level_epsilons`."""
    h = height
    i = h - np.arange(h + 1)  # paper level (height) of each depth
    c = (2 ** (1 / 3) - 1) / (2 ** ((h + 1) / 3) - 1)
    return 2.0 ** ((h - i) / 3.0) * epsilon * c
