"""Every noise draw is exact for its scale or refused: below 7.1e-15 per unit of sensitivity numpy's
geometric draws saturate, both halves cancel and the noise is exactly 0 under a stated epsilon."""
from __future__ import annotations

import numpy as np
import pytest

import psdviz as pv
from psdviz.core.noise import MAX_EXACT_SCALE, geometric_noise, laplace_noise, two_sided_geometric
from psdviz.sparse.zero_law import alpha_of

PTS = np.random.default_rng(1).random((500, 2))
DOM = pv.Domain(0, 0, 1, 1)


def test_numpy_saturates_where_the_limit_refuses():
    """The failure the limit guards against: at scale 1e300 both geometric halves are equal."""
    rng = np.random.default_rng(0)
    p = -np.expm1(-1e-300)
    assert (rng.geometric(p, 50) - rng.geometric(p, 50) == 0).all()


@pytest.mark.parametrize("eps", [1e-300, 1e-19, 1e-15])
def test_tiny_epsilon_build_is_refused_naming_the_limit(eps):
    with pytest.raises(ValueError, match=r"smallest per-measurement epsilon supported is 7.1e-15"):
        pv.build(PTS, DOM, "ug", eps, grid_size=4)


@pytest.mark.parametrize("method", ["quadtree", "kdtree", "privtree", "hybrid", "ag", "htree", "hilbert", "auto"])
def test_every_method_refuses_through_the_sampler(method):
    with pytest.raises(ValueError, match="too small for exact noise"):
        pv.build(PTS, DOM, method, 1e-300, seed=1)


def test_samplers_refuse_above_the_exact_scale():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match=r"7.1e-15"):
        geometric_noise(rng, 3, 1e-15)
    with pytest.raises(ValueError, match=r"7.1e-15"):
        laplace_noise(rng, 3, 1e-15)
    with pytest.raises(ValueError, match=r"7.1e-15"):
        two_sided_geometric(rng, np.array([1.0, MAX_EXACT_SCALE * 2]))
    with pytest.raises(ValueError, match=r"7.1e-15"):
        alpha_of(1e-15)


def test_draws_at_the_limit_are_exact_integers_that_do_not_cancel():
    """At the largest allowed scale draws are integers of the right spread (sd about sqrt 2 * scale)."""
    x = two_sided_geometric(np.random.default_rng(3), np.full(2000, MAX_EXACT_SCALE))
    assert (x != 0).all()
    sd = np.sqrt(2.0) * MAX_EXACT_SCALE
    # relative sd of the sample sd of 2,000 Laplace-like draws (kurtosis 6): sqrt(5 / 2000) / 2 = 0.025;
    # 0.15 is 6 of them
    assert abs(x.std() / sd - 1) < 0.15
    assert np.unique(x % 16).size == 16          # low bits are not lost to rounding
