"""Teaching views: the spread of fresh releases matches the standard error they state, and a release's
cell errors in their own standard errors have mean square one. Tolerances come from the noise's
variance and kurtosis (two-sided geometric, computed from its law); seeds are fixed."""
from __future__ import annotations

import numpy as np
import pytest

import psdviz as pv
from psdviz.lab.teaching import cell_errors, redraw
from psdviz.query.truth import PointIndex

UNIT = pv.Domain(0, 0, 1, 1)
PTS = np.random.default_rng(21).random((20_000, 2)) ** 1.5


def geometric_kurtosis(epsilon: float) -> float:
    """Excess kurtosis of two-sided geometric noise, from its probability mass function."""
    a = np.exp(-epsilon)
    v = np.arange(-4000, 4001)
    p = (1 - a) / (1 + a) * a ** np.abs(v)
    m2, m4 = (p * v ** 2).sum(), (p * v ** 4).sum()
    return float(m4 / m2 ** 2 - 3)


def test_the_spread_of_fresh_releases_is_the_stated_standard_error():
    k, eps = 300, 0.5
    rect = [0.0, 0.0, 0.5, 0.5]          # four whole cells of the 8 x 8 grid: the answer is unbiased
    r = redraw(PTS, UNIT, rect, method="ug", epsilon=eps, k=k, seed=3, grid_size=8)
    sigma2 = float(np.mean(r.stated_se ** 2))
    assert np.allclose(r.stated_se, r.stated_se[0])      # a fixed grid: every release states the same error
    kappa = geometric_kurtosis(eps)     # a sum of iid noises has at most the kurtosis of one
    tol = 4 * np.sqrt(2 / (k - 1) + kappa / k)
    assert abs(r.spread ** 2 / sigma2 - 1) <= tol
    truth = int(pv.true_answer(PTS, [rect])[0])
    assert abs(r.answers.mean() - truth) <= 4 * np.sqrt(sigma2 / k)
    band = r.within_noise_band(truth)   # 1.96 standard errors of the noise hold the truth about 95 % of the time
    assert abs(band - 0.95) <= 4 * np.sqrt(0.95 * 0.05 / k) + 0.02    # + the noise's departure from normal
    share = r.within(truth)              # the 95 % interval (whole cells: the noise's, with the Laplace quantile)
    assert share >= 0.95 - 4 * np.sqrt(0.95 * 0.05 / k) and share >= band


def test_redraws_use_fresh_noise_and_refuse_a_bad_k():
    r = redraw(PTS, UNIT, [0.1, 0.1, 0.6, 0.4], method="quadtree", epsilon=1.0, k=5, height=4)
    assert np.unique(r.answers).size > 1
    same = redraw(PTS, UNIT, [0.1, 0.1, 0.6, 0.4], method="quadtree", epsilon=1.0, k=5, seed=9, height=4)
    again = redraw(PTS, UNIT, [0.1, 0.1, 0.6, 0.4], method="quadtree", epsilon=1.0, k=5, seed=9, height=4)
    np.testing.assert_array_equal(same.answers, again.answers)
    for bad in (1, 1001, 2.5):
        with pytest.raises(ValueError, match=r"k .*must be a whole number"):
            redraw(PTS, UNIT, [0, 0, 1, 1], method="ug", epsilon=1.0, k=bad)


def test_cell_errors_have_mean_square_one_in_their_own_standard_errors():
    eps = 1.0
    rel = pv.build(PTS, UNIT, method="ug", epsilon=eps, seed=4, grid_size=40)
    leaves = rel.tree.leaf_index()
    err = cell_errors(rel, PointIndex(PTS), leaves)
    n = leaves.size
    assert np.isfinite(err.z).all() and n == 1600
    z2 = float(np.mean(err.z ** 2))    # independent cells, E z^2 = 1, Var z^2 = 2 + kurtosis
    assert abs(z2 - 1) <= 4 * np.sqrt((2 + geometric_kurtosis(eps)) / n)
    assert 0.9 <= err.within(1.96) <= 1.0
    # a release whose cells are off by more than they state is caught: shift the estimates by 3 se
    assert err.within(1.96) > cell_errors(rel.evolve(tree=_shifted(rel, 3 * err.se[0])), PointIndex(PTS),
                                          leaves).within(1.96) + 0.5


def _shifted(rel, by):
    import dataclasses
    t = rel.tree
    return dataclasses.replace(t, est=np.asarray(t.est) + by, noisy=np.asarray(t.noisy) + by,
                               rect=np.array(t.rect))
