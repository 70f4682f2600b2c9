"""Noise mechanisms (psdviz.core.noise, psdviz.core.expmech) against their exact laws.

Tolerances: a sample mean of n i.i.d. draws has standard error sqrt(var / n); a sample variance
has standard error sqrt((mu4 - var^2) / n) (mu4 = fourth central moment, exact for both laws).
We allow 5 standard errors (two-sided false-alarm rate < 1e-6); the seed is fixed, so the tests
are deterministic, and a wrong scale (e.g. 2/epsilon instead of 1/epsilon) moves the variance by
a factor of about 4, hundreds of standard errors away. Distribution tests use a chi-square
statistic with the threshold chi2.ppf(1 - 1e-6, df).
"""
import numpy as np
import pytest
from scipy import stats

from psdviz.core.expmech import segment_gumbel_max
from psdviz.core.noise import geometric_noise, geometric_variance, laplace_noise, laplace_variance

N = 200_000
Z = 5.0


def geometric_pmf(k: np.ndarray, epsilon: float) -> np.ndarray:
    a = np.exp(-epsilon)
    return (1 - a) / (1 + a) * a ** np.abs(k)


def chi_square_ok(observed: np.ndarray, expected: np.ndarray) -> tuple[float, float]:
    stat = float(((observed - expected) ** 2 / expected).sum())
    return stat, float(stats.chi2.ppf(1 - 1e-6, observed.size - 1))


@pytest.mark.parametrize("epsilon", [0.1, 0.5, 2.0])
def test_geometric_mean_and_variance(epsilon):
    x = geometric_noise(np.random.default_rng(1), N, epsilon)
    assert x.dtype.kind == "i"
    ks = np.arange(-4000, 4001)
    p = geometric_pmf(ks, epsilon)
    var = float((ks ** 2 * p).sum())
    mu4 = float((ks.astype(float) ** 4 * p).sum())
    assert geometric_variance(epsilon) == pytest.approx(var, rel=1e-9)   # closed form 2a/(1-a)^2
    assert abs(x.mean()) <= Z * np.sqrt(var / N)
    assert abs(x.var() - var) <= Z * np.sqrt((mu4 - var ** 2) / N)


@pytest.mark.parametrize("epsilon", [0.3, 1.0])
def test_geometric_pmf_chi_square(epsilon):
    x = geometric_noise(np.random.default_rng(2), N, epsilon)
    ks = np.arange(-60, 61)
    p = geometric_pmf(ks, epsilon)
    keep = p * N >= 5                     # bins with expected count >= 5, tails pooled
    ks, p = ks[keep], p[keep]
    obs = np.array([(x == k).sum() for k in ks] + [(x < ks[0]).sum() + (x > ks[-1]).sum()])
    exp = np.r_[p, 1 - p.sum()] * N
    stat, limit = chi_square_ok(obs, exp)
    assert stat < limit, (stat, limit)


def test_geometric_sensitivity_scales_noise():
    x = geometric_noise(np.random.default_rng(3), N, 1.0, sensitivity=2.0)
    var = geometric_variance(0.5)        # epsilon / sensitivity = 0.5
    assert abs(x.var() - var) <= Z * np.sqrt(20 * var ** 2 / N)   # mu4 <= 6 var^2 for these laws


@pytest.mark.parametrize("epsilon", [0.2, 1.0])
def test_laplace_mean_variance_and_law(epsilon):
    b = 1.0 / epsilon
    x = laplace_noise(np.random.default_rng(4), N, epsilon)
    var, mu4 = 2 * b ** 2, 24 * b ** 4
    assert laplace_variance(epsilon) == pytest.approx(var)
    assert abs(x.mean()) <= Z * np.sqrt(var / N)
    assert abs(x.var() - var) <= Z * np.sqrt((mu4 - var ** 2) / N)
    edges = np.r_[-np.inf, np.linspace(-6 * b, 6 * b, 49), np.inf]
    obs = np.histogram(x, edges)[0]
    exp = np.diff(stats.laplace.cdf(edges, scale=b)) * N
    stat, limit = chi_square_ok(obs, exp)
    assert stat < limit


def test_variances_of_unmeasured_levels_are_infinite():
    assert np.isinf(geometric_variance(np.array([0.0, 1.0]))[0])
    assert np.isinf(laplace_variance(0.0))


@pytest.mark.parametrize("bad", [0.0, -1.0, np.inf, np.nan])
def test_noise_rejects_bad_epsilon(bad):
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="epsilon"):
        geometric_noise(rng, 3, bad)
    with pytest.raises(ValueError, match="epsilon"):
        laplace_noise(rng, 3, bad)


def test_geometric_noise_rejects_bad_sensitivity():
    with pytest.raises(ValueError, match="sensitivity"):
        geometric_noise(np.random.default_rng(0), 3, 1.0, sensitivity=0)


# --- exponential mechanism ------------------------------------------------------------------

def softmax(lw: np.ndarray) -> np.ndarray:
    w = np.exp(lw - lw[np.isfinite(lw)].max())
    return w / w.sum()


@pytest.mark.parametrize("offset", [0.0, 1e6, -1e6, 1e300])
def test_segment_gumbel_max_frequencies_and_no_overflow(offset):
    lw = np.array([0.0, 1.0, 2.0, 0.5, -np.inf]) + offset if offset != 1e300 else \
        np.array([1e300, 1e300, -np.inf])
    with np.errstate(all="raise"):   # any overflow in the sampler would raise here
        idx = segment_gumbel_max(np.random.default_rng(5), np.tile(lw, N), np.arange(N) * lw.size)
    obs = np.bincount(idx - np.arange(N) * lw.size, minlength=lw.size)
    p = softmax(lw - (offset if offset != 1e300 else 1e300))
    assert obs[~np.isfinite(lw)].sum() == 0           # -inf candidates are never chosen
    fin = np.isfinite(lw)
    stat, limit = chi_square_ok(obs[fin], p[fin] * N)
    assert stat < limit


def test_segment_gumbel_max_segments_are_independent_and_local():
    """Segments of different lengths: each draw stays inside its segment with its own law."""
    rng = np.random.default_rng(6)
    lw = np.log(np.array([1.0, 2.0, 3.0, 4.0, 1.0, 1.0])) + 5e5
    starts = np.array([0, 4, 5])
    n = 20_000
    picks = np.array([segment_gumbel_max(rng, lw, starts) for _ in range(n)])
    assert (picks[:, 1] == 4).all() and (picks[:, 2] == 5).all()
    stat, limit = chi_square_ok(np.bincount(picks[:, 0], minlength=4), np.array([0.1, 0.2, 0.3, 0.4]) * n)
    assert stat < limit


def test_segment_gumbel_max_needs_a_finite_candidate():
    with pytest.raises(ValueError, match="finite score"):
        segment_gumbel_max(np.random.default_rng(0), np.array([-np.inf, -np.inf]), np.array([0]))
    with pytest.raises(ValueError, match="finite score"):
        segment_gumbel_max(np.random.default_rng(0), np.array([0.0, -np.inf]), np.array([0, 1]))
    with pytest.raises(ValueError, match="at least one candidate"):
        segment_gumbel_max(np.random.default_rng(0), np.array([0.0, 1.0]), np.array([0, 0]))
