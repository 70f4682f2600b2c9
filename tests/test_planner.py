"""pv.plan_epsilon: the planned standard error is the one 1,000 seeded releases
show, within its sampling error, and planning touches no data."""
from __future__ import annotations

import math

import numpy as np
import pytest

import psdviz as pv

DOM = pv.Domain(0.0, 0.0, 1.0, 1.0)
RECT = [0.1, 0.15, 0.45, 0.4]
N = 20_000
POINTS = np.random.default_rng(0).random((N, 2)) ** 1.5


UNIFORM = np.random.default_rng(1).random((N, 2))


@pytest.mark.parametrize("method,params", [("quadtree", {"height": 4}), ("ug", {}), ("ag", {})])
def test_planned_standard_error_matches_1000_releases(method, params):
    """AG's plan assumes a uniform density (its sub-grids follow the data), so it is checked on uniform
    points; quadtree and UG plans hold for any data and are checked on skewed points."""
    plan = pv.plan_epsilon(method, DOM, RECT, n=N, relative=0.02, **params)
    assert plan.epsilon is not None and plan.target == pytest.approx(0.02 * N * 0.35 * 0.25)
    extra = {"n_public": N} if method in ("ug", "ag") else {"prune": None}
    data = UNIFORM if method == "ag" else POINTS
    answers = np.array([pv.build(data, DOM, method, plan.epsilon, seed=s, **params, **extra).answer([RECT])[0]
                        for s in range(1000)])
    sd = answers.std(ddof=1)
    # the planned se is at most the target (smallest epsilon meeting it, bisection to ~1 %)
    se = plan.standard_error_at(plan.epsilon)
    assert se <= plan.target * (1 + 1e-9) and se >= 0.95 * plan.target
    # sampling error of a standard deviation from 1,000 draws: about sd * sqrt((kurtosis - 1) / 4000);
    # discrete Laplace sums have kurtosis at most 6, so 5 such errors is 5 * sqrt(5 / 4000) = 18 %
    assert abs(sd - se) <= 5 * se * math.sqrt(5 / 4000)


def test_curve_decreases_and_refusals():
    plan = pv.plan_epsilon("quadtree", DOM, RECT, n=N, target=50.0, height=3)
    eps, err = plan.curve
    assert (np.diff(err) < 0).all() and eps[0] < eps[-1]
    assert pv.plan_epsilon("quadtree", DOM, RECT, n=N, target=1e-6, height=3).epsilon is None
    with pytest.raises(ValueError, match="public structure"):
        pv.plan_epsilon("kdtree", DOM, RECT, n=N, target=10.0)
    with pytest.raises(ValueError, match="alpha"):
        pv.plan_epsilon("ag", DOM, RECT, n=N, target=10.0, alpha=2.0)
    with pytest.raises(ValueError, match="prune"):
        pv.plan_epsilon("quadtree", DOM, RECT, n=N, target=10.0, prune=32)
    with pytest.raises(ValueError, match="exactly one"):
        pv.plan_epsilon("ug", DOM, RECT, n=N)
    with pytest.raises(ValueError, match="n must be"):
        pv.plan_epsilon("ug", DOM, RECT, n=0, target=3.0)
