"""Uniform grid UG (Qardaji et al. ICDE 2013): grid size, N handling, counts, ledger."""
import math

import numpy as np
import pytest

import psdviz as pv
from psdviz.methods.ug import ug_size

DOM = pv.Domain(0, 0, 4, 2)


def points(n=20_000, seed=0):
    rng = np.random.default_rng(seed)
    return np.column_stack([rng.uniform(0, 4, n), rng.uniform(0, 2, n)])


def test_ug_size_formula():
    assert ug_size(100_000, 1.0) == 100            # sqrt(1e5 * 1 / 10)
    assert ug_size(1_000_000, 0.1) == 100
    assert ug_size(10, 0.1) == 1                   # at least one cell
    assert ug_size(50_000, 0.5, c=5) == 71         # round(sqrt(5000))


def test_declared_public_n_is_used_and_costs_nothing():
    rel = pv.build(points(), DOM, method="ug", epsilon=1.0, seed=0, n_public=20_000)
    m = round(math.sqrt(20_000 * 1.0 / 10))
    assert rel.params["grid_size"] == m and rel.tree.is_leaf.sum() == m * m
    assert rel.params["N"] == "declared public by the user"
    assert [s.what for s in rel.ledger.spends] == ["count"]


def test_estimated_n_spends_a_stated_slice():
    rel = pv.build(points(), DOM, method="ug", epsilon=1.0, seed=0, n_fraction=0.1)
    spends = {s.what: s.epsilon for s in rel.ledger.spends}
    assert spends == pytest.approx({"N estimate": 0.1, "count": 0.9})
    assert "estimated with epsilon 0.1" in rel.params["N"]
    # the grid is sized with the noisy N and the cells' epsilon (within noise of the true size)
    assert abs(rel.params["grid_size"] - ug_size(20_000, 0.9)) <= 1


def test_grid_size_override_and_exact_counts():
    p = points()
    rel = pv.build(p, DOM, method="ug", epsilon=1e6, seed=0, grid_size=5)
    lv = rel.leaves()
    ix = np.minimum((p[:, 0] / 4 * 5).astype(int), 4)
    iy = np.minimum((p[:, 1] / 2 * 5).astype(int), 4)
    np.testing.assert_array_equal(lv["noisy"].to_numpy(), np.bincount(iy * 5 + ix, minlength=25))
    assert rel.params["N"] == "not needed (grid size given)"
    assert rel.ledger.total() == pytest.approx(1e6)


@pytest.mark.parametrize("bad,match", [(dict(grid_size=0), "grid_size must be an integer >= 1"),
                                       (dict(grid_size=2.5), "grid_size must be a whole number"),
                                       (dict(n_public=-3), "n_public must be an integer >= 1"),
                                       (dict(n_fraction=1.0), r"n_fraction must be a finite number in \(0, 1\)")])
def test_bad_parameters(bad, match):
    with pytest.raises(ValueError, match=match):
        pv.build(points(100), DOM, method="ug", epsilon=1.0, **bad)


def test_ug_noise_mean_and_variance_over_cells():
    """Cell noise = noisy - true count over 10,000 cells: mean within 5 sqrt(var/n), variance
    within 5 sqrt((mu4 - var^2)/n) with mu4 <= 6 var^2 for two-sided geometric noise."""
    p = points()
    rel = pv.build(p, DOM, method="ug", epsilon=0.7, seed=9, grid_size=100)
    exact = pv.build(p, DOM, method="ug", epsilon=1e6, seed=0, grid_size=100)
    noise = rel.leaves()["noisy"].to_numpy() - exact.leaves()["noisy"].to_numpy()
    a = math.exp(-0.7)
    var = 2 * a / (1 - a) ** 2
    n = noise.size
    assert abs(noise.mean()) <= 5 * math.sqrt(var / n)
    assert abs(noise.var() - var) <= 5 * math.sqrt(5 * var ** 2 / n)
