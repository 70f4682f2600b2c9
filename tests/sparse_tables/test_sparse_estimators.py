"""Estimators from the summaries (ICDT'12 appendix C.2, C.3; section 3 dyadic ranges)."""
import numpy as np
import pytest

from psdviz.sparse import make_table, summarize
from psdviz.sparse.dyadic import DyadicIndex, consistent, decompose_ranges, dyadic_transform

R = 300


def table(seed=0, m=3000, n=200):
    rng = np.random.default_rng(seed)
    idx = np.sort(rng.choice(m, n, replace=False))
    return make_table(idx, np.maximum(1, np.rint(rng.normal(20, 6, n))).astype(int), m)


@pytest.mark.parametrize("method,kw", [("threshold", dict(tau=15.0)), ("priority", dict(size=250)),
                                       ("geometric", {})])
def test_subset_and_range_estimators_are_unbiased(method, kw):
    # The estimators are unbiased for M' and E[M'] = M, so the mean of R independent estimates is
    # within 5 standard errors of the truth (std error from the R runs; false alarm < 1e-6 each).
    t = table()
    rng = np.random.default_rng(9)
    subset = np.sort(rng.choice(t.m, 600, replace=False))
    lo, hi = np.array([0, 500, 1000]), np.array([3000, 900, 2600])
    est = np.array([np.concatenate([[summarize(t, method, 0.5, seed=s, stats="public", **kw).subset_sum(subset)],
                                    summarize(t, method, 0.5, seed=s, stats="public", **kw).range_sums(lo, hi)])
                    for s in range(R)])
    truth = np.concatenate([[t.subset_sum(subset)], t.range_sums(lo, hi)])
    se = est.std(0, ddof=1) / np.sqrt(R)
    assert np.all(np.abs(est.mean(0) - truth) < 5 * se)


def test_raw_filter_values_are_biased_as_the_paper_says():
    # Appendix C.1: a one-sided filter drops small values and keeps upgraded zeros -> biased.
    t = table()
    est = np.array([summarize(t, "filter", 0.5, seed=s, theta=3, two_sided=False).range_sums([0], [t.m])[0]
                    for s in range(50)])
    assert est.mean() - t.l1 > 10 * est.std(ddof=1) / np.sqrt(50)


def test_dyadic_decomposition_matches_slow_sums():
    rng = np.random.default_rng(4)
    for m in (1, 2, 7, 64, 1000):
        t = make_table(np.arange(m), rng.integers(1, 5, m), m)
        dt, dx = dyadic_transform(t)
        assert dt.m == dx.size and dx.sensitivity == dx.height + 1
        lo = rng.integers(0, m + 1, 200)
        hi = np.maximum(lo, rng.integers(0, m + 1, 200))
        q, nodes = decompose_ranges(dx, lo, hi)
        node_val = dt.dense()
        got = np.bincount(q, weights=node_val[nodes], minlength=lo.size)
        slow = np.array([t.counts[a:b].sum() for a, b in zip(lo, hi)])
        assert np.array_equal(got, slow)
        assert np.bincount(q, minlength=lo.size).max(initial=0) <= 2 * (dx.height + 1)


def test_consistency_check_matches_slow_version():
    rng = np.random.default_rng(2)
    dx = DyadicIndex(100)
    off, h = dx.offsets(), dx.height
    ids = np.sort(rng.choice(dx.size, 120, replace=False))
    kept = set(ids.tolist())

    def alive(g):   # slow obvious version: walk up to the root
        lv = int(np.searchsorted(off, g, side="right") - 1)
        j = g - off[lv]
        while lv > 0:
            lv, j = lv - 1, j >> 1
            if off[lv] + j not in kept:
                return False
        return True

    assert np.array_equal(consistent(dx, ids), np.array([alive(g) for g in ids]))
    assert h == 7


def test_dyadic_release_answers_ranges_and_subsets():
    t = table()
    rel = summarize(t, "geometric", 1.0, seed=1, dyadic=True)
    lo, hi = np.array([0, 10]), np.array([3000, 11])
    assert rel.range_sums(lo, hi).shape == (2,)
    cells, vals, _ = rel.leaves()
    assert np.array_equal(cells, np.arange(t.m))
    assert rel.subset_sum([5, 6]) == pytest.approx(vals[5] + vals[6])
