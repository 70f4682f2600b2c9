"""Zero-cell law of ICDT'12 (Remark 1, appendix C.1, C.2, C.4): pass probability and value law."""
import numpy as np
import pytest

from psdviz.sparse.zero_law import ZeroLaw, paper_p_theta


def brute_pmf(a, theta, tau, two_sided, vmax=40000):
    """Slow obvious version: P(|nu| = v and kept) for v = 0..vmax, by summing the noise pmf."""
    v = np.arange(vmax + 1)
    pmf = (1 - a) / (1 + a) * a ** v.astype(float)
    w = (v >= max(theta, 1)).astype(float)
    if tau is not None:
        w *= np.minimum(v / tau, 1.0)
    return (2.0 if two_sided else 1.0) * pmf * w


CASES = [(3, None, False), (3, None, True), (0, 7, True), (0, 7.5, True), (4, 12, True),
         (10, 5, True), (1, 1, True), (40, 90.3, True)]


@pytest.mark.parametrize("a", [0.3, 0.905, 0.995])
@pytest.mark.parametrize("theta,tau,two", CASES)
def test_pass_probability_matches_brute_force(a, theta, tau, two):
    law = ZeroLaw(a, theta, tau, two)
    assert law.pass_probability() == pytest.approx(brute_pmf(a, theta, tau, two).sum(), rel=1e-9, abs=1e-300)


@pytest.mark.parametrize("a", [0.3, 0.905, 0.99])
def test_pass_probability_matches_paper_closed_forms(a):
    assert ZeroLaw(a, 5, None, False).pass_probability() == pytest.approx(paper_p_theta(a, 5))
    assert ZeroLaw(a, 5, None, True).pass_probability() == pytest.approx(paper_p_theta(a, 5, True))
    assert ZeroLaw(a, 0, 9, True).pass_probability() == pytest.approx(paper_p_tau(a, 9))
    assert ZeroLaw(a, 4, 20, True).pass_probability() == pytest.approx(paper_p_theta_tau(a, 4, 20))


def max_sigma_deviation(values, pmf, n):
    """Largest |empirical - expected| frequency over magnitudes with p > 1e-3, in binomial sigmas."""
    emp = np.bincount(np.abs(values), minlength=pmf.size)[: pmf.size] / n
    big = pmf > 1e-3
    sig = np.sqrt(pmf[big] * (1 - pmf[big]) / n)
    return float(np.max(np.abs(emp[big] - pmf[big]) / sig))


@pytest.mark.parametrize("theta,tau,two", [(3, None, False), (4, None, True), (0, 15.5, True), (5, 30, True)])
def test_value_law_matches_exact_pmf(theta, tau, two):
    # Each magnitude's frequency is binomial(n, p_v); 5 binomial sigmas per bin (~20 bins):
    # a correct sampler fails with chance < 1e-5, a sampler off by one magnitude fails surely.
    a, n = 0.9, 200_000
    law = ZeroLaw(a, theta, tau, two)
    vals = law.sample_values(np.random.default_rng(11), n)
    pmf = brute_pmf(a, theta, tau, two, vmax=400)
    pmf = pmf / pmf.sum()
    assert max_sigma_deviation(vals, pmf, n) < 5.0
    if two:   # the sign is a fair coin: binomial(n, 1/2), 5 sigma
        assert abs((vals < 0).mean() - 0.5) < 5 * np.sqrt(0.25 / n)
    else:
        assert vals.min() >= theta
    # the same check rejects a wrong law (magnitudes shifted by one)
    assert max_sigma_deviation(vals + np.sign(vals), pmf, n) > 5.0


def test_value_law_small_epsilon_table_limit():
    with pytest.raises(ValueError, match="too small"):
        ZeroLaw(1 - 1e-9, 0, 1e9, True).sample_values(np.random.default_rng(0), 10)

# test oracle (was psdviz/sparse/zero_law.py): a slow, obvious version the fast code is checked against
def paper_p_tau(a: float, tau: int) -> float:
    """Section 2.3 / appendix C.2: p_tau = 2 a (1 - a^tau) / (tau (1 - a^2)), integer tau."""
    return 2.0 * a * (1.0 - a ** tau) / (tau * (1.0 - a * a))


def paper_p_theta_tau(a: float, theta: int, tau: int) -> float:
    """Appendix C.4: 2 (theta a^theta - (theta-1) a^(theta+1) - a^(tau+1)) / (tau (1 - a^2))."""
    return 2.0 * (theta * a ** theta - (theta - 1) * a ** (theta + 1) - a ** (tau + 1)) / (tau * (1.0 - a * a))


def test_sparse_summaries_refuse_a_cell_epsilon_below_the_floor():
    """Below MIN_CELL_EPSILON the zero cells' a = exp(-epsilon) as a double no longer matches the explicit
    cells' exact sampler (1 - a off by 0.8 % at the samplers' own floor of 7.1e-15): refused in words."""
    import math

    from psdviz.sparse import make_table, summarize
    from psdviz.sparse.zero_law import MIN_CELL_EPSILON, alpha_of
    table = make_table(np.array([1, 5]), np.array([3, 4]), 100)
    with pytest.raises(ValueError, match="epsilon / sensitivity of at least 1e-06"):
        summarize(table, "filter-priority", 5e-7)
    with pytest.raises(ValueError, match="at least 1e-06"):
        alpha_of(1.0, sensitivity=2e6)
    a = alpha_of(MIN_CELL_EPSILON)
    # at the floor, 1 - a as the zero law computes it is within 1e-9 (relative) of the exact value
    assert abs((1 - a) / -math.expm1(-MIN_CELL_EPSILON) - 1) < 1e-9
    assert abs((1 - math.exp(-7.2e-15)) / -math.expm1(-7.2e-15) - 1) > 1e-3      # why the floor is not lower


def test_zero_and_one_count_cells_are_indistinguishable_at_the_floor():
    """D vs D' at the floor: one cell with count 0 (the zero law) against count 1 (the exact sampler and
    the filter), 1.5e6 runs a side, two-sided filter at half the noise scale. Over the 21 outcomes (not
    kept, or kept in one of 20 value bins) every |log ratio| stays within 3.5 standard errors
    (Bonferroni over 21 outcomes at about 1 %) of the claim epsilon = 1e-6."""
    import math

    from psdviz.core.noise import two_sided_geometric
    from psdviz.sparse.zero_law import MIN_CELL_EPSILON, alpha_of
    eps, n = MIN_CELL_EPSILON, 1_500_000
    rng = np.random.default_rng(20)
    theta = int(round(0.5 / eps))
    law = ZeroLaw(alpha_of(eps), theta, None, True)
    v0 = law.sample_values(rng, int(rng.binomial(n, law.pass_probability())))
    noisy = 1 + two_sided_geometric(rng, 1 / eps, n)
    v1 = noisy[np.abs(noisy) >= theta]
    edges = np.quantile(np.concatenate([v0, v1]).astype(float), np.linspace(0, 1, 21)[1:-1])
    c0 = np.r_[n - v0.size, np.bincount(np.searchsorted(edges, v0.astype(float)), minlength=20)]
    c1 = np.r_[n - v1.size, np.bincount(np.searchsorted(edges, v1.astype(float)), minlength=20)]
    excess = np.abs(np.log(c0 / c1)) - 3.5 * np.sqrt(1 / c0 + 1 / c1)
    assert excess.max() <= eps, (excess.max(), math.log(c0[0] / c1[0]))
