"""Geometric sampler precision: p = 1 - a must keep every bit for
tiny epsilon, where 1 - exp(-eps) rounds to a multiple of 2^-53 and overstates epsilon (1.42x at
1.6e-16)."""
from __future__ import annotations

import math

import numpy as np

from psdviz.core.noise import geometric_noise, two_sided_geometric


class _Spy:
    """A generator stand-in that records the success probability handed to ``geometric``."""

    def __init__(self):
        self.p = []

    def geometric(self, p, size=None):
        self.p.append(np.asarray(p, float))
        return np.ones(np.shape(p) if size is None else size, dtype=np.int64)


def test_success_probability_is_exact_for_tiny_epsilon():
    for eps in (1e-12, 1e-9, 1e-6, 0.1, 1.0):
        spy = _Spy()
        geometric_noise(spy, 3, eps)
        p = spy.p[0]
        effective = -math.log1p(-float(p.flat[0]))      # the epsilon this p really gives
        assert abs(effective / eps - 1) < 1e-12, (eps, effective)


def test_old_formula_would_fail_this_check():
    eps = 1.6e-16
    old = 1.0 - math.exp(-eps)
    assert abs(-math.log1p(-old) / eps - 1) > 0.3       # the bug this guards against


def test_per_element_scales_and_zero_scale():
    rng = np.random.default_rng(0)
    x = two_sided_geometric(rng, np.array([0.0, 0.0, 2.0, 2.0]))
    assert x[0] == 0 and x[1] == 0 and x.dtype == np.int64
    big = two_sided_geometric(rng, np.full(20_000, 3.0))
    a = math.exp(-1 / 3.0)
    var = 2 * a / (1 - a) ** 2
    assert abs(big.var() - var) < 5 * var * math.sqrt(2 / 20_000) * 2   # 5 sd of the sample variance (kurtosis ~6)
