"""Private medians (ICDE'12 section 6.1, Theorem 7): exact laws, fast vs slow, Lemma 6."""
import math

import numpy as np
import pytest

from psdviz.splits.medians import (amplified_epsilon, bernoulli_sample, cell_medians, em_interval_probabilities,
                            em_medians, noisy_mean_medians, private_medians, smooth_medians)
from psdviz.splits.medians.segments import segment_argmax, stable_partition
from psdviz.splits.medians.smooth import smooth_sensitivity, smooth_sensitivity_slow, smooth_xi


def tiled(x, trials):
    """The same node repeated ``trials`` times: one vectorised call gives ``trials`` draws."""
    return np.tile(np.sort(x), trials), np.arange(trials + 1) * len(x)


def gap_frequencies(out, edges):
    idx = np.clip(np.searchsorted(edges, out, side="right") - 1, 0, len(edges) - 2)
    return np.bincount(idx, minlength=len(edges) - 1) / out.size


def assert_law(freq, p, trials):
    # binomial standard error per gap; 5 sigma keeps a fixed seed far from flaky, and a wrong
    # law (e.g. epsilon off by 2x) moves several gaps by much more
    se = np.sqrt(p * (1 - p) / trials)
    assert np.all(np.abs(freq - p) <= 5 * se + 1e-4), (freq, p)


def test_em_matches_exact_law():
    rng = np.random.default_rng(0)
    x = np.round(rng.uniform(0, 10, 12), 0)          # ties give zero-length gaps
    trials = 40_000
    vals, off = tiled(x, trials)
    out = em_medians(rng, vals, off, -2.0, 14.0, 0.8)
    edges, p = em_interval_probabilities(x, -2.0, 14.0, 0.8)
    assert ((out >= -2) & (out <= 14)).all()
    assert_law(gap_frequencies(out, edges), p, trials)


def test_em_segments_are_independent_nodes():
    """Heterogeneous segments (empty, single, ties) in one call, each against its own law."""
    rng = np.random.default_rng(1)
    nodes = [(np.array([]), 0.0, 1.0), (np.array([0.3]), 0.0, 1.0), (np.array([2.0, 2.0, 2.5, 4.0]), 1.0, 5.0)]
    trials = 20_000
    vals = np.concatenate([x for x, _, _ in nodes] * trials)
    sizes = np.tile([len(x) for x, _, _ in nodes], trials)
    off = np.r_[0, np.cumsum(sizes)]
    lo = np.tile([a for _, a, _ in nodes], trials)
    hi = np.tile([b for _, _, b in nodes], trials)
    out = em_medians(rng, vals, off, lo, hi, 1.5).reshape(trials, len(nodes))
    for j, (x, a, b) in enumerate(nodes):
        edges, p = em_interval_probabilities(x, a, b, 1.5)
        assert_law(gap_frequencies(out[:, j], edges), p, trials)


def test_em_lemma6_central_ranks():
    """Lemma 6(ii): under the 80/20 rule, P[EM in [x_{n/5}, x_{4n/5}]] >= 1/6."""
    rng = np.random.default_rng(2)
    n = 50
    # 60% of the points squeezed into [0.4, 0.6] of [0, 1]: x_{4n/5} - x_{n/5} is just over M/5
    x = np.sort(np.r_[rng.uniform(0.0, 0.4, 10), np.linspace(0.395, 0.605, 30), rng.uniform(0.6, 1.0, 10)])
    assert x[4 * n // 5 - 1] - x[n // 5 - 1] >= 0.2
    for eps in (0.01, 0.1, 1.0):
        edges, p = em_interval_probabilities(x, 0.0, 1.0, eps)
        lo_v, hi_v = x[n // 5 - 1], x[4 * n // 5 - 1]
        exact = sum(pk * max(0.0, min(edges[k + 1], hi_v) - max(edges[k], lo_v)) / (edges[k + 1] - edges[k])
                    for k, pk in enumerate(p) if edges[k + 1] > edges[k])
        assert exact >= 1 / 6
        trials = 20_000
        vals, off = tiled(x, trials)
        out = em_medians(rng, vals, off, 0.0, 1.0, eps)
        freq = np.mean((out >= lo_v) & (out <= hi_v))
        assert abs(freq - exact) <= 5 * math.sqrt(exact * (1 - exact) / trials)


def test_em_uses_region_not_data_range():
    """With almost no budget the output is spread over the node's region, not the data's extent."""
    rng = np.random.default_rng(3)
    vals, off = tiled(rng.uniform(0.45, 0.55, 20), 10_000)
    out = em_medians(rng, vals, off, 0.0, 1.0, 1e-6)
    # nearly uniform on [0, 1]: 90% of the region lies outside the data's extent
    assert abs(np.mean((out < 0.45) | (out > 0.55)) - 0.9) < 0.02
    assert out.min() >= 0 and out.max() <= 1


def test_em_accurate_with_large_budget():
    rng = np.random.default_rng(4)
    x = np.sort(rng.uniform(0, 2 ** 26, 2 ** 14))
    out = em_medians(rng, x, np.array([0, x.size]), 0, 2 ** 26, 1.0)
    assert abs(np.searchsorted(x, out[0]) - x.size / 2) < 20   # P(rank error > 20) < e^-10 * 2


def test_smooth_sensitivity_fast_equals_definition():
    rng = np.random.default_rng(5)
    for _ in range(150):
        k = int(rng.integers(1, 5))
        ns = rng.integers(0, 14, k)
        off = np.r_[0, np.cumsum(ns)]
        lo, hi = rng.uniform(-1, 0, k), rng.uniform(1, 2, k)
        vals = np.concatenate([np.sort(np.clip(np.round(rng.uniform(a, b, n), 1), a, b))
                               for a, b, n in zip(lo, hi, ns)])
        xi = float(rng.uniform(0.01, 1.5))
        fast = smooth_sensitivity(vals, off, lo, hi, xi)
        slow = [smooth_sensitivity_slow(vals[off[s]:off[s + 1]], lo[s], hi[s], xi) for s in range(k)]
        np.testing.assert_allclose(fast, slow, rtol=1e-12)


def test_smooth_noise_law():
    """SS = clip(x_m + 2 sigma / eps * Laplace(1), lo, hi): compare the empirical CDF at a few
    points with the Laplace CDF (binomial standard error, 5 sigma)."""
    rng = np.random.default_rng(6)
    x = np.sort(rng.uniform(0.4, 0.6, 41))
    eps, delta = 0.5, 1e-4
    sigma = smooth_sensitivity(x, np.array([0, 41]), 0.0, 1.0, smooth_xi(eps, delta))[0]
    assert sigma == pytest.approx(smooth_sensitivity_slow(x, 0.0, 1.0, smooth_xi(eps, delta)))
    trials = 20_000
    vals, off = tiled(x, trials)
    out = smooth_medians(rng, vals, off, 0.0, 1.0, eps, delta)
    b, xm = 2 * sigma / eps, x[20]
    assert out.min() >= 0 and out.max() <= 1
    for t in (0.1, 0.45, xm, 0.55, 0.9):
        z = (t - xm) / b
        cdf = 0.5 * math.exp(z) if z < 0 else 1 - 0.5 * math.exp(-z)
        assert abs(np.mean(out <= t) - cdf) <= 5 * math.sqrt(cdf * (1 - cdf) / trials) + 1e-9
    with pytest.raises(ValueError, match="delta"):
        smooth_medians(rng, vals, off, 0, 1, eps, delta=0.0)


def test_noisy_mean_centre_and_clipping():
    rng = np.random.default_rng(7)
    x = np.sort(rng.uniform(0.0, 1.0, 5000) ** 2)        # mean 1/3, median 1/4
    vals, off = tiled(x, 2000)
    out = noisy_mean_medians(rng, vals, off, 0.0, 1.0, 1.0)
    # noisy sum / noisy count with Laplace(2/eps) on the sum and geometric(eps/2) on n=5000:
    # std about 2.9 / 5000 ~ 6e-4 per draw, so the mean of 2000 draws is within 1e-3
    assert abs(out.mean() - x.mean()) < 1e-3
    tiny = noisy_mean_medians(rng, np.array([0.5]), np.array([0, 1]), 0.0, 1.0, 1e-4)
    assert 0.0 <= tiny[0] <= 1.0


def test_cell_median_noise_free_limit():
    rng = np.random.default_rng(8)
    x = np.sort(rng.uniform(0, 2 ** 20, 4001))
    out = cell_medians(rng, x, np.array([0, x.size]), 0.0, 2.0 ** 20, 1e4, origin=0.0, cell=2.0 ** 8)
    assert abs(out[0] - np.median(x)) <= 2 ** 8


def test_amplified_epsilon_theorem7():
    assert amplified_epsilon(0.1, 0.01) == pytest.approx(math.log(5.0))
    assert 2 * 0.01 * math.exp(amplified_epsilon(0.1, 0.01)) == pytest.approx(0.1)
    assert amplified_epsilon(0.01, 0.01) == 0.01          # Theorem 7 gives no gain here
    assert amplified_epsilon(0.3, 1.0) == 0.3
    with pytest.raises(ValueError, match="sample_rate"):
        amplified_epsilon(0.1, 0.0)


def test_sampling_keeps_segments():
    rng = np.random.default_rng(9)
    vals = np.arange(10_000, dtype=float)
    off = np.array([0, 3000, 3000, 10_000])
    v, o = bernoulli_sample(rng, vals, off, 0.1)
    assert o[0] == 0 and o[1] == o[2] and o[-1] == v.size
    assert (v[:o[1]] < 3000).all() and (v[o[2]:] >= 3000).all()
    assert abs(v.size - 1000) < 5 * math.sqrt(10_000 * 0.1 * 0.9)
    out = private_medians(rng, vals, off, np.zeros(3), np.full(3, 1e4), 0.5, "em", sample_rate=0.1)
    assert out.shape == (3,)


def test_segment_helpers_against_slow():
    rng = np.random.default_rng(10)
    sizes = rng.integers(0, 6, 40)
    off = np.r_[0, np.cumsum(sizes)]
    order = rng.permutation(off[-1])
    bit = rng.integers(0, 2, off[-1])
    fast = stable_partition(order, off, bit)
    slow = np.concatenate([np.r_[order[a:b][bit[a:b] == 0], order[a:b][bit[a:b] == 1]]
                           for a, b in zip(off[:-1], off[1:])])
    np.testing.assert_array_equal(fast, slow)
    ne = sizes > 0
    starts = off[:-1][ne]
    key = rng.integers(0, 3, off[-1]).astype(float)
    first = segment_argmax(key, starts)
    last = segment_argmax(key, starts, last=True)
    for s, a, b in zip(range(starts.size), off[:-1][ne], off[1:][ne]):
        seg = key[a:b]
        assert first[s] == a + np.argmax(seg)
        assert last[s] == a + len(seg) - 1 - np.argmax(seg[::-1])


def test_smooth_epsilon_limit_and_sampled_cap():
    rng = np.random.default_rng(11)
    x = np.sort(rng.uniform(0, 1, 1000))
    off = np.array([0, x.size])
    with pytest.raises(ValueError, match="per-median epsilon"):
        smooth_medians(rng, x, off, 0.0, 1.0, 1.5)
    # sampling would allow ln(0.5 / 0.02) = 3.2 > 1: capped below 1 instead of failing
    out = private_medians(rng, x, off, 0.0, 1.0, 0.5, "smooth", sample_rate=0.01)
    assert 0.0 <= out[0] <= 1.0
