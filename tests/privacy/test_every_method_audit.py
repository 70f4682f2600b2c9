"""The bounded D vs D' audit (``promises.audit``) over every registered method, at its defaults and with a workload
where it plans for one: on small data D (48 points in distinct columns of the grid, resolution 6) and D' = D + one
point, the event of a release's features (structure, answers near the point and for the whole domain, auto's facts
and choice) that differs most on 40 tuning runs a side is counted on 160 fresh runs a side, and its Clopper-Pearson
lower bound (confidence 0.999) on the log-ratio may not exceed epsilon. The exact-median toy, installed as a plug-in,
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
    result = audit(_run(method, kw))
    assert result.lower_bound <= EPSILON, f"{method}: {result}"


def test_the_audit_catches_the_exact_median_toy(leaky_toys):  # noqa: F811
    assert "leaky-median" in registry.methods()
    result = audit(_run("leaky-median", {}))
    assert result.lower_bound > EPSILON, str(result)
