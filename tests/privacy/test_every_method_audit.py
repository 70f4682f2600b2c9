"""The bounded D vs D' audit (``promises.audit``) over every registered method, at its defaults and with a workload
where it plans for one: on small data D (48 points in distinct columns of the grid, resolution 6) and D' = D + one
point, the event of a release's features (structure, answers near the point and for the whole domain, auto's facts
and choice) that differs most on 40 tuning runs a side is counted on 160 fresh runs a side, and its Clopper-Pearson
lower bound (confidence 0.999) on the log-ratio may not exceed epsilon (counting stops once the runs left cannot
change that verdict: the full count's, checked below on coins). The exact-median toy, installed as a plug-in,
fails it."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from promises import audit, randomness, spatial_features
from test_every_method import configurations, leaky_toys  # noqa: F401  (the toys' fixture)

import psdviz as pv
from psdviz.methods import registry

DOM = pv.Domain(0, 0, 1, 1)
EPSILON = 1.0
D = np.column_stack([(np.arange(48) + 0.5) / 48, np.random.default_rng(21).random(48)])   # 48 distinct columns
POINT = np.array([[0.41, 0.43]])
NEAR = np.array([[0.375, 0.375, 0.4375, 0.4375]])
WORKLOAD = np.array([[0.25, 0.25, 0.5, 0.5], [0.375, 0.375, 0.4375, 0.4375], [0.0, 0.0, 1.0, 0.5],
                     [0.1, 0.3, 0.9, 0.35]])


def _run(method: str, kw: dict):
    def run(neighbour: bool, seed: int):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rel = pv.build(np.vstack([D, POINT]) if neighbour else D, DOM, method, EPSILON, seed=randomness(seed),
                           resolution=6, **kw)
        return spatial_features(rel, NEAR)
    return run


CONFIGS = configurations(pv.METHODS)


@pytest.mark.parametrize(("method", "kw"), [(m, {"workload": WORKLOAD} if kw else {}) for m, kw in CONFIGS],
                         ids=[f"{m}{' +workload' if kw else ''}" for m, kw in CONFIGS])
def test_no_event_tells_d_from_d_prime_beyond_epsilon(method, kw):
    result = audit(_run(method, kw), epsilon=EPSILON)
    assert result.lower_bound <= EPSILON, f"{method}: {result}"


def test_the_audit_catches_the_exact_median_toy(leaky_toys):  # noqa: F811
    assert "leaky-median" in registry.methods()
    result = audit(_run("leaky-median", {}), epsilon=EPSILON)
    assert result.lower_bound > EPSILON, str(result)


@pytest.mark.parametrize(("p", "q"), [(0.5, 0.5), (0.2, 0.1), (0.6, 0.15), (0.75, 0.1), (0.9, 0.02), (0.97, 0.0)])
def test_stopping_early_gives_the_full_counts_verdict(p, q):
    """Features of a coin per side (probability p on D, q on D'), drawn from the run's seed: stopping once the
    verdict is settled agrees with counting every run, on both sides of epsilon."""
    def run(neighbour: bool, seed: int):
        return {"coin": bool(np.random.default_rng(seed).random() < (q if neighbour else p))}
    full, early = audit(run), audit(run, epsilon=EPSILON)
    assert (full.lower_bound <= EPSILON) == (early.lower_bound <= EPSILON), (full, early)
    assert full.runs == 160 and early.runs <= 160
    if p == q:
        assert early.runs < 80                      # a method that keeps its promise is settled early
