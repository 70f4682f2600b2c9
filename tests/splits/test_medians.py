"""Private medians (ICDE'12 section 6.1, Theorem 7): exact laws, fast vs slow, Lemma 6."""
import math
from functools import partial

import numpy as np
import pytest

from psdviz.splits.medians import (
    amplified_epsilon,
    bernoulli_sample,
    cell_medians,
    em_medians,
    em_position_probabilities,
    noisy_mean_medians,
    private_medians,
    smooth_medians,
)
from psdviz.splits.medians.segments import segment_argmax
from psdviz.splits.medians.smooth import smooth_sensitivity, smooth_xi


def tiled(x, trials):
    """The same node repeated ``trials`` times: one vectorised call gives ``trials`` draws."""
    return np.tile(np.sort(x), trials), np.arange(trials + 1) * len(x)


def assert_law(freq, p, trials):
    # binomial standard error per position; 5 sigma keeps a fixed seed far from flaky, and a wrong
    # law (e.g. epsilon off by 2x) moves several positions by much more
    se = np.sqrt(p * (1 - p) / trials)
    assert np.all(np.abs(freq - p) <= 5 * se + 1e-4), (freq, p)


def candidates(lo, hi):
    return np.arange(lo + 1, hi) if hi - lo >= 2 else np.arange(lo, hi + 1)


def position_frequencies(out, lo, hi):
    pos = candidates(lo, hi)
    assert np.isin(out, pos).all()          # only interior grid positions are ever released
    return np.bincount(out - pos[0], minlength=pos.size) / out.size


def test_em_matches_exact_law():
    rng = np.random.default_rng(0)
    x = rng.integers(0, 10, 12)                     # ties give empty runs of positions
    trials = 40_000
    vals, off = tiled(x, trials)
    out = em_medians(rng, vals, off, -2, 14, 0.8)
    assert out.dtype.kind == "i"
    assert_law(position_frequencies(out, -2, 14), em_position_probabilities(x, -2, 14, 0.8), trials)


def test_weighted_em_matches_the_law_of_the_expanded_keys():
    """Distinct keys with multiplicities (a source's grouped counts) give the law of the keys
    themselves, and the returned rank is the number of points below the chosen position."""
    from psdviz.splits.medians import expand
    from psdviz.splits.quantile import private_quantiles
    rng = np.random.default_rng(5)
    x = np.sort(rng.integers(0, 10, 30))                       # heavy ties, as grid keys have
    vals, w = np.unique(x, return_counts=True)
    trials = 40_000
    out, rank = private_quantiles(rng, np.tile(vals, trials), np.arange(trials + 1) * vals.size, -2, 14, 0.5,
                                  0.8, weights=np.tile(w, trials))
    assert_law(position_frequencies(out, -2, 14), em_position_probabilities(x, -2, 14, 0.8), trials)
    np.testing.assert_array_equal(rank, np.searchsorted(x, out, side="left"))
    back, off = expand(vals, np.array([0, vals.size]), w)
    np.testing.assert_array_equal(back, x)
    assert off.tolist() == [0, x.size]


@pytest.mark.parametrize("window", [0.3, 2.0])
def test_far_keys_weighed_only_when_they_may_win_leave_the_law_unchanged(monkeypatch, window):
    """With a window of a fraction of a rank to a few ranks, most draws need the far keys' bound and many
    are won by a far key: the law is still the exponential mechanism's, ranks still count the keys below."""
    from psdviz.splits import quantile
    calls = []
    far_choice = quantile._far_choice
    monkeypatch.setattr(quantile, "WINDOW", window)
    monkeypatch.setattr(quantile, "_far_choice", lambda *args: calls.append(args[2].size) or far_choice(*args))
    rng = np.random.default_rng(11)
    x = np.sort(rng.integers(0, 10, 30))
    vals, w = np.unique(x, return_counts=True)
    trials = 40_000
    out, rank = quantile.private_quantiles(rng, np.tile(vals, trials), np.arange(trials + 1) * vals.size, -2, 14,
                                           0.5, 0.8, weights=np.tile(w, trials))
    assert_law(position_frequencies(out, -2, 14), em_position_probabilities(x, -2, 14, 0.8), trials)
    np.testing.assert_array_equal(rank, np.searchsorted(x, out, side="left"))
    assert sum(calls) > trials // 10              # the far part was weighed in many draws


@pytest.mark.parametrize("weighted", [False, True])
def test_nodes_sampled_by_rejection_and_by_weighing_in_one_call_both_follow_the_law(weighted):
    """At epsilon 0.15 a node of 12 points (a n / 2 = 0.9) is sampled by rejection and one of 120 points by
    weighing its keys, in the same call: each follows the exponential mechanism's law, every rank counts
    the points below the position and every index the keys below it."""
    from psdviz.splits import quantile
    rng = np.random.default_rng(21)
    small, big = np.sort(rng.integers(0, 10, 12)), np.sort(rng.integers(0, 10, 120))
    assert 0.15 * small.size / 2 <= quantile.REJECT_SCALE < 0.15 * big.size / 2     # a = epsilon for the median
    trials = 40_000
    nodes = [small, big] * trials
    if weighted:
        parts = [np.unique(x, return_counts=True) for x in nodes]
        keys, w = np.concatenate([k for k, _ in parts]), np.concatenate([c for _, c in parts])
        off = np.r_[0, np.cumsum([k.size for k, _ in parts])]
    else:
        keys, w, off = np.concatenate(nodes), None, np.r_[0, np.cumsum([x.size for x in nodes])]
    pos, rank, index = quantile.private_quantiles(rng, keys, off, -2, 14, 0.5, 0.15, weights=w, with_index=True)
    for i, x in enumerate((small, big)):
        assert_law(position_frequencies(pos[i::2], -2, 14), em_position_probabilities(x, -2, 14, 0.15), trials)
        np.testing.assert_array_equal(rank[i::2], np.searchsorted(x, pos[i::2], side="left"))
    if weighted:
        below = [np.searchsorted(k, p_, side="left") for (k, _), p_ in zip(parts, pos)]
        np.testing.assert_array_equal(index - off[:-1], below)


def test_rejection_on_a_node_whose_points_share_one_cell_of_a_wide_region_follows_the_law():
    """The hardest case for rejection: 40 points in one cell of a region 1,000 positions wide, at the
    largest a n max(f, 1 - f) it takes (the density is e^-REJECT_SCALE almost everywhere)."""
    from psdviz.splits import quantile
    x = np.full(40, 500)
    eps = 2 * quantile.REJECT_SCALE / x.size                   # a = eps for the median: a n / 2 = REJECT_SCALE
    trials = 40_000
    vals, off = tiled(x, trials)
    out, rank = quantile.private_quantiles(np.random.default_rng(8), vals, off, 0, 1000, 0.5, eps)
    assert_law(position_frequencies(out, 0, 1000), em_position_probabilities(x, 0, 1000, eps), trials)
    np.testing.assert_array_equal(rank, np.where(out > 500, 40, 0))


def _density_law(x, lo, hi, eps, f=0.5, steps=400_000):
    """Definition 5 written out: the density exp(-a |r(t) - f n|) on [p0 - 1/2, p1 + 1/2), r the
    rank with each cell's points spread evenly over the cell, integrated by the midpoint rule and
    binned by the nearest grid position; a = eps / (2 max(f, 1 - f)), the exponential mechanism for the
    score's sensitivity max(f, 1 - f) (eps for the median)."""
    x = np.sort(np.asarray(x))
    pos = np.arange(lo + 1, hi) if hi - lo >= 2 else np.arange(lo, hi + 1)
    t = pos[0] - 0.5 + (np.arange(steps) + 0.5) * (pos.size / steps)
    cell = np.floor(t).astype(np.int64)
    below = np.searchsorted(x, cell, side="left")
    w = np.searchsorted(x, cell, side="right") - below
    r = below + w * (t - cell)
    d = np.exp(-eps / (2 * max(f, 1 - f)) * np.abs(r - f * x.size))
    p = np.bincount(np.floor(t + 0.5).astype(np.int64) - pos[0], weights=d, minlength=pos.size)
    return p / p.sum()


@pytest.mark.parametrize("x,lo,hi,eps", [([3, 3, 5, 9], 0, 12, 1.3), ([0] * 40 + [1, 7], 0, 10, 0.2),
                                         ([2, 2, 2], 2, 3, 1.0), ([], 0, 6, 0.7)])
def test_em_law_is_definition5_integrated(x, lo, hi, eps):
    """The closed-form law equals the continuous mechanism integrated numerically."""
    np.testing.assert_allclose(em_position_probabilities(x, lo, hi, eps), _density_law(x, lo, hi, eps),
                               rtol=1e-4, atol=1e-9)


def test_em_law_ratio_on_neighbours():
    """epsilon-DP read off the exact law: adding one point (in the heavy cell, in an empty cell, at the
    edge) changes no position's probability by more than e^epsilon; the calibration for the median's
    sensitivity 1/2 uses that room (some ratio is above e^{epsilon/2}), the paper's constant
    (sensitivity=1.0) stays within e^{epsilon/2}."""
    eps = 0.9
    x = np.array([0] * 30 + [1, 4, 4, 8])
    worst = {}
    for sens in (0.5, 1.0):
        p = em_position_probabilities(x, 0, 12, eps, sensitivity=sens)
        ratios = [np.abs(np.log(p / em_position_probabilities(np.r_[x, extra], 0, 12, eps, sensitivity=sens)))
                  for extra in (0, 3, 4, 11)]
        worst[sens] = float(np.max(ratios))
    assert worst[0.5] <= eps + 1e-9 and worst[0.5] > eps / 2
    assert worst[1.0] <= eps / 2 + 1e-9


def test_em_sensitivity_below_the_scores_is_refused():
    with pytest.raises(ValueError, match="sensitivity must be at least"):
        em_position_probabilities(np.array([1, 2]), 0, 8, 1.0, sensitivity=0.4)


def test_em_splits_inside_a_heavy_cell():
    """A cell holding most of the points: the median lies inside it, so the position just past it wins
    (the reading that lets the kd-tree isolate ADULT-2D's cell (0, 0)), even with a small budget."""
    x = np.r_[np.zeros(900, np.int64), np.arange(1, 201)]
    p = em_position_probabilities(x, 0, 256, 0.05)
    assert p[0] > 0.9                      # position 1 (candidate 0): the cell [0, 1) split off
    rng = np.random.default_rng(9)
    vals, off = tiled(x, 5000)
    out = em_medians(rng, vals, off, 0, 256, 0.05)
    assert abs(np.mean(out == 1) - p[0]) <= 5 * math.sqrt(p[0] * (1 - p[0]) / 5000)


def test_em_segments_are_independent_nodes():
    """Heterogeneous segments (empty, single, ties, one step wide) in one call, each against its own law."""
    rng = np.random.default_rng(1)
    nodes = [(np.array([], np.int64), 0, 10), (np.array([3]), 0, 10), (np.array([2, 2, 3, 4]), 1, 6),
             (np.array([7, 7]), 7, 8)]
    trials = 20_000
    vals = np.concatenate([x for x, _, _ in nodes] * trials).astype(np.int64)
    sizes = np.tile([len(x) for x, _, _ in nodes], trials)
    off = np.r_[0, np.cumsum(sizes)]
    lo = np.tile([a for _, a, _ in nodes], trials)
    hi = np.tile([b for _, _, b in nodes], trials)
    out = em_medians(rng, vals, off, lo, hi, 1.5).reshape(trials, len(nodes))
    for j, (x, a, b) in enumerate(nodes):
        assert_law(position_frequencies(out[:, j], a, b), em_position_probabilities(x, a, b, 1.5), trials)


def test_em_lemma6_central_ranks():
    """Lemma 6(ii): under the 80/20 rule, P[EM in [x_{n/5}, x_{4n/5}]] >= 1/6 (on the grid)."""
    rng = np.random.default_rng(2)
    n, size = 50, 1000
    # 60% of the points squeezed into [0.4, 0.6] of the region: x_{4n/5} - x_{n/5} is just over M/5
    x = np.sort(np.r_[rng.integers(0, 400, 10), np.linspace(395, 605, 30).astype(np.int64),
                      rng.integers(600, 1000, 10)])
    assert x[4 * n // 5 - 1] - x[n // 5 - 1] >= 0.2 * size
    lo_v, hi_v = x[n // 5 - 1], x[4 * n // 5 - 1]
    pos = candidates(0, size)
    for eps in (0.01, 0.1, 1.0):
        p = em_position_probabilities(x, 0, size, eps)
        exact = p[(pos >= lo_v) & (pos <= hi_v)].sum()
        assert exact >= 1 / 6
        trials = 20_000
        vals, off = tiled(x, trials)
        out = em_medians(rng, vals, off, 0, size, eps)
        freq = np.mean((out >= lo_v) & (out <= hi_v))
        assert abs(freq - exact) <= 5 * math.sqrt(exact * (1 - exact) / trials)


def test_em_uses_region_not_data_range():
    """With almost no budget the output is spread over the node's region, not the data's extent."""
    rng = np.random.default_rng(3)
    vals, off = tiled(rng.integers(450, 550, 20), 10_000)
    out = em_medians(rng, vals, off, 0, 1000, 1e-6)
    # nearly uniform on 1..999: 90% of the region lies outside the data's extent
    assert abs(np.mean((out < 450) | (out > 550)) - 0.9) < 0.02
    assert out.min() >= 1 and out.max() <= 999


def test_em_accurate_with_large_budget():
    rng = np.random.default_rng(4)
    x = np.sort(rng.integers(0, 2 ** 26, 2 ** 14))
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
    """SS = clip(x_m + discrete Laplace(2 sigma / eps), lo, hi) on grid positions: the empirical CDF at
    a few positions against the two-sided geometric CDF (binomial standard error, 5 sigma)."""
    rng = np.random.default_rng(6)
    x = np.sort(rng.integers(400, 600, 41))
    eps, delta = 0.5, 1e-4
    sigma = smooth_sensitivity(x.astype(float), np.array([0, 41]), 0.0, 1000.0, smooth_xi(eps, delta))[0]
    assert sigma == pytest.approx(smooth_sensitivity_slow(x, 0.0, 1000.0, smooth_xi(eps, delta)))
    trials = 20_000
    vals, off = tiled(x, trials)
    out = smooth_medians(rng, vals, off, 0, 1000, eps, delta)
    assert out.dtype.kind == "i" and out.min() >= 0 and out.max() <= 1000
    a, xm = math.exp(-eps / (2 * sigma)), int(x[20])

    def cdf(k):   # P(Z <= k) for the two-sided geometric law with parameter a
        return a ** (-k) / (1 + a) if k < 0 else 1 - a ** (k + 1) / (1 + a)
    for t in (100, 450, xm, 550, 900):
        c = cdf(t - xm)
        assert abs(np.mean(out <= t) - c) <= 5 * math.sqrt(c * (1 - c) / trials) + 1e-9
    with pytest.raises(ValueError, match="delta"):
        smooth_medians(rng, vals, off, 0, 1000, eps, delta=0.0)


def test_noisy_mean_centre_and_clipping():
    rng = np.random.default_rng(7)
    x = np.sort((rng.uniform(0.0, 1.0, 5000) ** 2 * 2 ** 20).astype(np.int64))   # mean 2^20 / 3
    vals, off = tiled(x, 2000)
    out = noisy_mean_medians(rng, vals, off, 0, 2 ** 20, 1.0)
    assert out.dtype.kind == "i"
    # geometric noise of scale 2^21 on the sum and 2 on n = 5000: std about 2.9 * 2^20 / 5000 per draw,
    # so the mean of 2000 draws is within 1e-3 of the range
    assert abs(out.mean() - x.mean()) < 1e-3 * 2 ** 20
    tiny = noisy_mean_medians(rng, np.array([500]), np.array([0, 1]), 0, 1000, 1e-4)
    assert 0 <= tiny[0] <= 1000


def test_cell_median_noise_free_limit():
    rng = np.random.default_rng(8)
    x = np.sort(rng.integers(0, 2 ** 20, 4001))
    out = cell_medians(rng, x, np.array([0, x.size]), 0, 2 ** 20, 1e4, origin=0, cell=2 ** 8)
    assert out.dtype.kind == "i"
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
    vals = np.arange(10_000, dtype=np.int64)
    off = np.array([0, 3000, 3000, 10_000])
    v, o = bernoulli_sample(rng, vals, off, 0.1)
    assert o[0] == 0 and o[1] == o[2] and o[-1] == v.size
    assert (v[:o[1]] < 3000).all() and (v[o[2]:] >= 3000).all()
    assert abs(v.size - 1000) < 5 * math.sqrt(10_000 * 0.1 * 0.9)
    out = private_medians(rng, vals, off, np.zeros(3, np.int64), np.full(3, 10_000), 0.5, "em", sample_rate=0.1)
    assert out.shape == (3,)


def test_segment_helpers_against_slow():
    rng = np.random.default_rng(10)
    sizes = rng.integers(0, 6, 40)
    off = np.r_[0, np.cumsum(sizes)]
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
    x = np.sort(rng.integers(0, 1000, 1000))
    off = np.array([0, x.size])
    with pytest.raises(ValueError, match="per-median epsilon"):
        smooth_medians(rng, x, off, 0, 1000, 1.5)
    # sampling would allow ln(0.5 / 0.02) = 3.2 > 1: capped below 1 instead of failing
    out = private_medians(rng, x, off, 0, 1000, 0.5, "smooth", sample_rate=0.01)
    assert 0 <= out[0] <= 1000


def test_quantiles_stay_on_candidates_at_extreme_budgets_and_weights():
    """Regions of width 0-10^6, empty nodes, cells of 10^9 points, epsilon from 1e-12 to 1e9: every
    split is an interior candidate, every rank counts the keys below it, and no float warning is raised."""
    import warnings

    from psdviz.splits.quantile import private_quantiles
    r = np.random.default_rng(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(60):
            segs = int(r.integers(1, 20))
            lo = r.integers(-50, 50, segs)
            hi = lo + r.choice([0, 1, 2, 3, 50, 10 ** 6], segs)
            ks = [np.unique(r.integers(a, b, r.integers(0, 6))) if b > a else np.zeros(0, np.int64)
                  for a, b in zip(lo, hi)]
            keys = np.concatenate(ks).astype(np.int64)
            w = r.choice([1, 3, 10 ** 9], keys.size)
            off = np.r_[0, np.cumsum([k.size for k in ks])]
            p0, p1 = np.where(hi - lo >= 2, lo + 1, lo), np.where(hi - lo >= 2, hi - 1, hi)
            for eps in (1e-12, 1e-3, 1.0, 1e3, 1e9):
                pos, rank = private_quantiles(r, keys, off, lo, hi, r.random(), eps, w)
                assert ((pos >= p0) & (pos <= p1)).all()
                for s in range(segs):
                    assert rank[s] == w[off[s]:off[s + 1]][ks[s] < pos[s]].sum()

# test oracle (was psdviz/splits/medians/smooth.py): a slow, obvious version the fast code is checked against
def smooth_sensitivity_slow(values: np.ndarray, lo: float, hi: float, xi: float) -> float:
    """Definition 4 literally (O(n^2)); for tests."""
    x = np.r_[lo, np.sort(values), hi]
    n = len(values)
    m = (n + 1) // 2

    def at(i):
        return x[min(max(i, 0), n + 1)]
    return max(math.exp(-k * xi) * max(at(m + t) - at(m + t - k - 1) for t in range(k + 2))
               for k in range(n + 1))


@pytest.mark.parametrize("method", ["em", "noisymean"])
def test_distinct_keys_with_weights_give_the_medians_of_the_expanded_keys(method):
    from psdviz.splits.medians import expand, private_medians
    rng = np.random.default_rng(12)
    segs = [np.unique(rng.integers(lo, lo + 500, 80)) for lo in (0, 1000, 5000)]
    values = np.concatenate(segs)
    offsets = np.r_[0, np.cumsum([s.size for s in segs])]
    weights = rng.integers(1, 40, values.size)
    lo, hi = np.array([0, 1000, 5000]), np.array([600, 1600, 5600])
    flat, flat_offsets = expand(values, offsets, weights)
    for seed in range(5):
        a = private_medians(np.random.default_rng(seed), values, offsets, lo, hi, 0.7, method, weights=weights)
        b = private_medians(np.random.default_rng(seed), flat, flat_offsets, lo, hi, 0.7, method)
        np.testing.assert_array_equal(a, b)


def test_items_of_every_key_without_the_spread_regions_equal_the_general_ones():
    """Where every segment's keys are distinct and inside its region, the items of all keys are computed
    clamping only each segment's first and last key; they equal the general computation (which also covers
    keys outside the region or repeated, where the plain path is not taken)."""
    from psdviz.splits import quantile as q
    rng = np.random.default_rng(0)
    plain = 0
    for _ in range(1500):
        lo = rng.integers(0, 20, int(rng.integers(1, 6)))
        hi = lo + rng.integers(0, 12, lo.size)
        segs = [np.sort(rng.integers(a - 2, b + 2, int(rng.integers(0, 4)))) if rng.random() < 0.1 else
                np.sort(rng.choice(np.arange(a, b), size=int(rng.integers(0, b - a + 1)), replace=False))
                for a, b in zip(lo, hi)]
        keys = np.concatenate(segs).astype(np.int64)
        if keys.size == 0:
            continue
        offsets = np.r_[0, np.cumsum([s.size for s in segs])].astype(np.int64)
        interior = hi - lo >= 2
        h0, h1 = 2 * np.where(interior, lo + 1, lo) - 1, 2 * np.where(interior, hi - 1, hi) + 1
        w = np.ones(keys.size, np.int64)
        cw = np.r_[0, np.cumsum(w)]
        k = q._Segments(keys, w, cw, offsets, cw[offsets[:-1]], np.zeros(lo.size), h0, h1, 0.1)
        per = partial(np.repeat, repeats=np.diff(offsets))
        plain += k._plain()
        got = k.items(None, per)
        k._plain = lambda: False
        want = k.items(None, per)
        assert np.array_equal(got[0], want[0])
        assert all(np.array_equal(a, b) and a.dtype == b.dtype for a, b in zip(got[1], want[1]))
    assert plain > 500
