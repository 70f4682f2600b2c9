"""Pruning during the build (methods/early_stop.py): ledger, paths, structure, unbiased second count."""
from functools import partial

import numpy as np
import pytest

import psdviz as pv
from psdviz.core.budget import level_epsilons
from psdviz.core.domain import Domain
from psdviz.core.ledger import Ledger
from psdviz.core.noise import geometric_variance
from psdviz.core.rng import make_randomness
from psdviz.methods.early_stop import measure_with_stops
from psdviz.methods.kdtree import level_counts_from_leaves
from psdviz.methods.quadtree import quad_rects

DOM = Domain(0, 0, 256, 256)


def _clustered(n=20_000, seed=0):
    rng = np.random.default_rng(seed)
    return np.clip(rng.normal([40, 50], 5, (n, 2)), 0, 255.9)


@pytest.mark.parametrize("eps", [0.1, 1.0])
@pytest.mark.parametrize("stop_sds", [1.0, 2.0])
def test_every_path_costs_epsilon_and_the_ledger_matches(eps, stop_sds):
    rel = pv.build(_clustered(), DOM, "kdtree", eps, seed=1, resolution=8, stop_sds=stop_sds)
    assert rel.params["pruning"] == "build" and rel.params.get("stop_sds", 1.0) == stop_sds
    np.testing.assert_allclose(rel.tree.path_epsilons(), eps)
    assert rel.ledger.total() == pytest.approx(eps)
    t = rel.tree
    early = t.is_leaf & (t.depth < t.height)
    assert early.any()                              # the empty space stopped above the last level
    assert (t.noisy[early] > -np.inf).all()


RECTS = partial(quad_rects, DOM)    # the complete quadtree's rectangles, made for the measured nodes only


def test_nothing_stops_below_minus_infinity_and_stopped_nodes_get_the_rest():
    height, eps = 3, level_epsilons(0.6, 3)
    leaves = np.zeros(4 ** height, np.int64)
    leaves[:16] = 500                               # the first depth-1 quadrant holds every point
    counts = level_counts_from_leaves(leaves, height)
    full = measure_with_stops(make_randomness(0), Ledger(1.0), counts, eps, -1e18,
                              np.zeros(height + 1), RECTS, sds=0.0)
    assert full.n_nodes == sum(4 ** d for d in range(height + 1))
    stop = measure_with_stops(make_randomness(0), Ledger(1.0), counts, eps, 32.0,
                              np.zeros(height + 1), RECTS)
    early = stop.is_leaf & (stop.depth < height)
    assert early.sum() >= 1 and stop.n_nodes < full.n_nodes
    # an early leaf's count carries the whole count budget from its depth down: one measurement
    np.testing.assert_allclose(stop.count_eps[early], [eps[d:].sum() for d in stop.depth[early]])
    np.testing.assert_allclose(stop.path_epsilons(), 0.6)
    np.testing.assert_allclose(stop.noise_var[early], [geometric_variance(eps[d + 1:].sum())
                                                       for d in stop.depth[early]])


def test_ledger_lines_name_the_stopped_nodes_and_sum_to_the_count_budget():
    height, eps = 3, level_epsilons(0.6, 3)
    leaves = np.zeros(4 ** height, np.int64)
    leaves[:16] = 500
    ledger = Ledger(1.0)
    measure_with_stops(make_randomness(3), ledger, level_counts_from_leaves(leaves, height), eps, 32.0,
                       np.zeros(height + 1), RECTS)
    assert ledger.total() == pytest.approx(0.6)
    assert [s.level for s in ledger.spends] == list(range(height + 1))


def test_the_second_count_is_unbiased_given_the_stop():
    """Empty depth-1 nodes stop when their first count is <= 32 (a selection that biases the first
    count low); the estimate kept is the second count, whose mean over 400 builds is 0 within 5 sd."""
    height, eps = 2, np.array([0.05, 0.05, 0.5])
    leaves = np.zeros(16, np.int64)
    leaves[:4] = 2000
    counts = level_counts_from_leaves(leaves, height)
    vals = []
    for seed in range(400):
        t = measure_with_stops(make_randomness(seed), Ledger(1.0), counts, eps, 32.0,
                               np.zeros(height + 1), RECTS)
        early = t.is_leaf & (t.depth == 1)
        vals.append(t.noisy[early])
    vals = np.concatenate(vals)
    sd = np.sqrt(geometric_variance(0.5) / vals.size)
    assert vals.size > 300 and abs(vals.mean()) < 5 * sd


def test_the_threshold_is_at_least_one_noise_sd():
    """With sd >> m at depth 1, an empty node whose noisy count lies between m and its sd stops (the
    floor), one above its sd is split; with sds=0 the plain threshold m splits both. One depth-1
    node holds 5,000 points (the root and it always split); the other three are empty."""
    height, eps = 2, np.array([1.0, 0.01, 1.0])
    sd = np.sqrt(geometric_variance(0.01))
    leaves = np.zeros(16, np.int64)
    leaves[0] = 5000
    counts = level_counts_from_leaves(leaves, height)
    between = 0
    for seed in range(40):
        first = measure_with_stops(make_randomness(seed), Ledger(3.0), counts[:2], eps[:2],
                                   -1e18, np.zeros(2), RECTS, sds=0.0).noisy[1:]   # the same depth-1 draws
        between += int(((first > 32) & (first <= sd)).sum())
        for sds in (2.0, 1.0, 0.0):
            t = measure_with_stops(make_randomness(seed), Ledger(3.0), counts, eps, 32.0,
                                   np.zeros(height + 1), RECTS, sds=sds)
            split = np.bincount(t.parent[t.depth == 2], minlength=t.n_nodes)[t.depth == 1] > 0
            np.testing.assert_array_equal(split, first > (max(32.0, sds * sd)))
    assert between >= 5          # the floor decided some nodes the plain rule would have split


@pytest.mark.parametrize("method", ["kdtree", "hybrid", "quadtree"])
def test_the_build_hands_its_stop_floor_to_the_stop(method, monkeypatch):
    """``stop_sds`` reaches the stop (whose floor test is above), is recorded when it is not the default, and
    is refused outside [0, 5] naming the parameter."""
    from psdviz.methods import kdtree, quadtree
    seen = []

    def spy(*a, sds=1.0, **kw):
        seen.append(sds)
        return measure_with_stops(*a, sds=sds, **kw)
    for module in (kdtree, quadtree):
        monkeypatch.setattr(module, "measure_with_stops", spy)
    rel = pv.build(_clustered(2_000), DOM, method, 0.5, seed=0, resolution=8, stop_sds=2.0)
    assert seen == [2.0] and rel.params["stop_sds"] == 2.0
    assert "stop_sds" not in pv.build(_clustered(2_000), DOM, method, 0.5, seed=0, resolution=8).params
    assert seen == [2.0, 1.0]
    with pytest.raises(ValueError, match="stop_sds"):
        pv.build(_clustered(500), DOM, method, 1.0, seed=0, resolution=8, stop_sds=6)


@pytest.mark.parametrize("method", ["kdtree", "quadtree"])
def test_a_floor_the_build_cannot_use_is_said_not_recorded(method):
    """Pruned after least squares the tree has no build stop: a non-default ``stop_sds`` is not put in the
    release's parameters as if it applied, and a note says it was not used."""
    rel = pv.build(_clustered(2_000), DOM, method, 0.5, seed=0, resolution=8, pruning="after_ols", stop_sds=2.0)
    assert "stop_sds" not in rel.params
    assert any("stop_sds=2 was not used" in n for n in rel.notes)
    assert not any("stop_sds" in n for n in pv.build(_clustered(2_000), DOM, method, 0.5, seed=0, resolution=8,
                                                     stop_sds=2.0).notes)


def test_pruning_choice_is_checked():
    with pytest.raises(ValueError, match="pruning must be one of"):
        pv.build(_clustered(500), DOM, "kdtree", 1.0, seed=0, resolution=8, pruning="later")
