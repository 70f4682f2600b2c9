"""Shortcut vs laborious (ICDT'12 Theorems 1-4): same output distribution on a small table.

For each method we run the shortcut (never touching zero cells one by one) and the laborious
approach (geometric noise on all m cells, then the summary written the obvious way) R times with
fixed seeds, and compare the means of per-run statistics of the output: zero cells kept, the sum
and absolute sum of their values, the mean position of kept zero cells, non-zero cells kept and
their value sum, and tau_s for priority samples. Each statistic is an average of R independent
runs, so the difference of the two means has variance var_a / R + var_b / R; we estimate the
per-run variances from the runs (R = 300, so they are accurate to ~10%) and require every
difference within 5 standard deviations (false alarm < 1e-5 for ~7 statistics). The number of
zero cells kept is also checked against its exact binomial law Bin(m - n, p). The same checker
is run on deliberately wrong samplers and must reject them.
"""
import numpy as np
import pytest

from psdviz.core.noise import geometric_noise
from psdviz.sparse import shortcut as sc
from psdviz.sparse.dyadic import dyadic_transform
from psdviz.sparse.shortcut import Summary, top_priorities
from psdviz.sparse.table import make_table
from psdviz.sparse.zero_law import ZeroLaw, alpha_of

R = 300
EPS = 0.5
Z_MAX = 5.0


def small_table(seed=0, m=4000, n=150):
    rng = np.random.default_rng(seed)
    idx = np.sort(rng.choice(m, n, replace=False))
    cnt = np.maximum(1, np.rint(rng.normal(12, 4, n))).astype(np.int64)
    return make_table(idx, cnt, m)


def run_stats(summ, truth: np.ndarray, m: int) -> np.ndarray:
    is_zero = truth[summ.indices] == 0
    zv, nv = summ.values[is_zero], summ.values[~is_zero]
    zpos = summ.indices[is_zero]
    return np.array([is_zero.sum(), zv.sum(), np.abs(zv).sum(), zpos.mean() / m if zpos.size else 0.5,
                     (~is_zero).sum(), nv.sum(), summ.params.get("tau_s", 0.0)], dtype=float)


def collect(make, table, seed) -> np.ndarray:
    rng = np.random.default_rng(seed)
    truth = table.dense()
    return np.array([run_stats(make(rng), truth, table.m) for _ in range(R)])


def max_z(a: np.ndarray, b: np.ndarray) -> float:
    diff = a.mean(0) - b.mean(0)
    se = np.sqrt(a.var(0, ddof=1) / len(a) + b.var(0, ddof=1) / len(b))
    z = np.where(se > 0, np.abs(diff) / np.where(se > 0, se, 1.0), np.where(diff == 0, 0.0, np.inf))
    return float(z.max())


def shortcut_maker(table, method, alpha, **kw):
    def make(rng):
        noisy = table.counts + geometric_noise(rng, table.n, EPS)
        return getattr(sc, method)(rng, table.indices, noisy, table.m, alpha, **kw)
    return make


def laborious_maker(table, method, **kw):
    def make(rng):
        noisy = table.dense() + geometric_noise(rng, table.m, EPS)
        return globals()[method](rng, noisy, **kw)
    return make


CASES = [
    ("filter_summary", "laborious_filter", dict(theta=3, two_sided=False), dict(theta=3, two_sided=False)),
    ("filter_summary", "laborious_filter", dict(theta=3, two_sided=True), dict(theta=3, two_sided=True)),
    ("threshold_summary", "laborious_threshold", dict(tau=6.5), dict(tau=6.5)),
    ("threshold_summary", "laborious_threshold", dict(tau=9.0, theta=3), dict(tau=9.0, theta=3)),
    ("priority_summary", "laborious_priority", dict(s=300), dict(s=300)),
    ("priority_summary", "laborious_priority", dict(s=200, theta=3), dict(s=200, theta=3)),
]


@pytest.mark.parametrize("short,slow,kw_short,kw_slow", CASES)
def test_shortcut_matches_laborious(short, slow, kw_short, kw_slow):
    table = small_table()
    alpha = alpha_of(EPS)
    a = collect(shortcut_maker(table, short, alpha, **kw_short), table, 1)
    b = collect(laborious_maker(table, slow, **kw_slow), table, 2)
    assert max_z(a, b) < Z_MAX
    if short != "priority_summary":   # kept zero cells ~ Bin(m - n, p): exact mean and variance
        law = ZeroLaw(alpha, kw_short.get("theta", 0), kw_short.get("tau"), kw_short.get("two_sided", True))
        mu = (table.m - table.n) * law.pass_probability()
        sd = np.sqrt(mu * (1 - law.pass_probability()) / R)
        assert abs(a[:, 0].mean() - mu) < Z_MAX * sd
        assert abs(b[:, 0].mean() - mu) < Z_MAX * sd


class ShiftedLaw(ZeroLaw):
    """A deliberately wrong sampler: conditional values one magnitude too large."""

    def sample_values(self, rng, k):
        v = super().sample_values(rng, k)
        return v + np.sign(v)


class HalfSidedLaw(ZeroLaw):
    """A deliberately wrong sampler: the one-sided pass probability used for a two-sided filter."""

    def pass_probability(self):
        return ZeroLaw(self.alpha, self.theta, self.tau, False).pass_probability()


@pytest.mark.parametrize("wrong", [ShiftedLaw, HalfSidedLaw])
def test_checker_rejects_a_wrong_sampler(monkeypatch, wrong):
    table = small_table()
    alpha = alpha_of(EPS)
    good = collect(laborious_maker(table, "laborious_filter", theta=3, two_sided=True), table, 2)
    monkeypatch.setattr(sc, "ZeroLaw", wrong)
    bad = collect(shortcut_maker(table, "filter_summary", alpha, theta=3, two_sided=True), table, 1)
    assert max_z(bad, good) > Z_MAX


def test_checker_rejects_priority_without_conditional_priorities(monkeypatch):
    """Wrong sampler: pilot-sample items get r uniform on (0, 1] instead of (0, |v| / tau']."""
    table = small_table()
    alpha = alpha_of(EPS)
    good = collect(laborious_maker(table, "laborious_priority", s=300), table, 2)
    real = sc.top_priorities
    monkeypatch.setattr(sc, "top_priorities", lambda rng, idx, val, s, cap=1.0: real(rng, idx, val, s))
    bad = collect(shortcut_maker(table, "priority_summary", alpha, s=300), table, 1)
    assert max_z(bad, good) > Z_MAX


def test_dyadic_filter_matches_laborious():
    """Theorem 4: the shortcut on the dyadic transform equals noise on every node, then filter."""
    table = small_table(m=1000, n=60)
    dt, dx = dyadic_transform(table)
    eps_node = EPS  # per-node epsilon with sensitivity = levels, as summarize() does
    sens = float(dx.sensitivity)
    alpha = alpha_of(eps_node, sens)

    def short(rng):
        noisy = dt.counts + geometric_noise(rng, dt.n, eps_node, sens)
        return sc.filter_summary(rng, dt.indices, noisy, dt.m, alpha, 20, True)

    def slow(rng):
        noisy = dt.dense() + geometric_noise(rng, dt.m, eps_node, sens)
        return laborious_filter(rng, noisy, 20, True)

    assert max_z(collect(short, dt, 1), collect(slow, dt, 2)) < Z_MAX

def _summary(keep: np.ndarray, noisy: np.ndarray, weights: np.ndarray, params: dict) -> Summary:
    idx = np.flatnonzero(keep).astype(np.int64)
    return Summary(idx, noisy[idx].astype(np.int64), weights[idx].astype(float), params)

# test oracle (was psdviz/sparse/laborious.py): a slow, obvious version the fast code is checked against
def laborious_filter(rng, noisy: np.ndarray, theta: int, two_sided: bool) -> Summary:
    keep = (np.abs(noisy) >= theta) if two_sided else (noisy >= theta)
    return _summary(keep, noisy, noisy.astype(float), {"theta": theta, "two_sided": two_sided})


def laborious_threshold(rng, noisy: np.ndarray, tau: float, theta: int = 0) -> Summary:
    w = np.abs(noisy).astype(float)
    w[w < max(theta, 1)] = 0.0
    keep = rng.random(noisy.size) < np.minimum(w / tau, 1.0)
    wts = np.sign(noisy) * np.maximum(np.abs(noisy), tau)
    return _summary(keep, noisy, wts, {"tau": tau, "theta": theta})


def laborious_priority(rng, noisy: np.ndarray, s: int, theta: int = 0) -> Summary:
    filtered = np.where(np.abs(noisy) >= max(theta, 1), noisy, 0)
    idx, val, tau_s = top_priorities(rng, np.arange(noisy.size, dtype=np.int64), filtered, s)
    wts = np.sign(val) * np.maximum(np.abs(val), tau_s)
    return Summary(idx, val.astype(np.int64), wts.astype(float), {"size": s, "theta": theta, "tau_s": tau_s})
