"""The structure test (methods/fine_structure.py), D vs D': one level's released fact.

D holds one point, in the upper-right quarter of a level-3 cell; D' adds a second there, which moves the
cell's and its block's imbalance on both axes by one (S from 4 to 8) while the coins' imbalance goes from 4
to 0, 4 or 8: the fact moves by 8, the sensitivity, with probability 1/4. The released fact of the deepest
tested level is an integer: under D and D' no value, and no tail {X >= v} or {X <= v}, may be more likely
than e^eps times under the other, eps the level's own epsilon (5 binomial standard errors). Drawing the
fact with a third of the noise fails it."""
from __future__ import annotations

import math

import numpy as np
import pytest

from psdviz.core.ledger import Ledger
from psdviz.core.rng import make_randomness
from psdviz.methods import fine_structure as fs

RUNS = 4000
Z = 5.0
EPS_LEVEL = 1.0
EPSILON = EPS_LEVEL * fs.TESTED_LEVELS / fs.STRUCTURE_FRACTION    # the build epsilon giving that per level


def _levels(extra: int) -> list[np.ndarray]:
    leaves = np.zeros(4 ** 4, np.int64)           # height 4, Morton order: leaves 4k .. 4k + 3 share a parent
    leaves[3] = 1 + extra                         # the upper-right quarter of the first level-3 cell
    levels = [leaves]
    for _ in range(4):
        levels.append(levels[-1].reshape(-1, 4).sum(1))
    return levels[::-1]


def _facts(extra: int, seed0: int) -> np.ndarray:
    levels = _levels(extra)
    out = np.empty(RUNS, np.int64)
    for r in range(RUNS):
        _, tests = fs.test_levels(levels, 4, 1000.0, EPSILON, make_randomness(seed0 + r), Ledger(EPSILON))
        out[r] = tests[0].noisy
    return out


def _ratio_ok(a: np.ndarray, b: np.ndarray, eps: float) -> bool:
    values = np.union1d(a, b)
    events = [np.equal, np.greater_equal, np.less_equal]
    pa = np.array([(f(a, v)).mean() for f in events for v in values])
    pb = np.array([(f(b, v)).mean() for f in events for v in values])
    se = lambda p: np.sqrt(np.maximum(p * (1 - p), 1.0 / RUNS) / RUNS)
    bound = math.exp(eps)
    return bool(((pa <= bound * pb + Z * (se(pa) + bound * se(pb)))
                 & (pb <= bound * pa + Z * (se(pb) + bound * se(pa)))).all())


@pytest.fixture(scope="module")
def laws():
    return _facts(0, 0), _facts(1, 10 * RUNS)


def test_the_level_fact_law_within_e_eps(laws):
    d, d2 = laws
    assert np.unique(d).size > 20                  # many values: the audit can see a shift
    assert abs(d2.mean() - d.mean() - 4) < 1       # the added point moves the fact by 8 x 1/4 + 4 x 1/2
    assert _ratio_ok(d, d2, EPS_LEVEL)


def test_the_audit_sees_a_fact_drawn_with_a_third_of_the_noise(monkeypatch):
    monkeypatch.setattr(fs, "SENSITIVITY", fs.SENSITIVITY / 3)
    assert not _ratio_ok(_facts(0, 0), _facts(1, 10 * RUNS), EPS_LEVEL)
