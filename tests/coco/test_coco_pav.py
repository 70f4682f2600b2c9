"""PAV (psdviz.coco.pav) against brute-force isotonic solvers on small inputs."""
import numpy as np
import pytest
from scipy.optimize import isotonic_regression, linprog, minimize

from psdviz.coco.pav import isotonic


def minmax_l2(y, w):
    """Slow exact L2 isotonic fit: x_i = max_{j<=i} min_{k>=i} weighted mean(y[j..k])."""
    n = len(y)
    return np.array([max(min(np.dot(w[j:k + 1], y[j:k + 1]) / w[j:k + 1].sum() for k in range(i, n))
                         for j in range(i + 1)) for i in range(n)])


def l1_optimum(y, w, lo=None, hi=None):
    """Optimal weighted L1 isotonic cost by a linear program (x, t) with t >= |x - y|."""
    n = len(y)
    c = np.r_[np.zeros(n), w]
    A, b = [], []
    for i in range(n):
        for s in (1, -1):
            row = np.zeros(2 * n)
            row[i], row[n + i] = s, -1
            A.append(row)
            b.append(s * y[i])
    for i in range(n - 1):
        row = np.zeros(2 * n)
        row[i], row[i + 1] = 1, -1
        A.append(row)
        b.append(0)
    res = linprog(c, A_ub=np.array(A), b_ub=b, bounds=[(lo, hi)] * n + [(None, None)] * n)
    return res.fun


@pytest.mark.parametrize("seed", range(5))
def test_l2_matches_minmax_and_scipy(seed):
    rng = np.random.default_rng(seed)
    for _ in range(60):
        n = int(rng.integers(1, 10))
        y = rng.integers(-4, 5, n).astype(float)       # integers: many ties, as after geometric noise
        w = rng.uniform(0.5, 3, n)
        fit = isotonic(y, weights=w)
        np.testing.assert_allclose(fit.values, minmax_l2(y, w), atol=1e-9)
        np.testing.assert_allclose(fit.values, isotonic_regression(y, weights=w).x, atol=1e-9)


@pytest.mark.parametrize("seed", range(3))
def test_l1_reaches_lp_optimum(seed):
    rng = np.random.default_rng(100 + seed)
    for _ in range(40):
        n = int(rng.integers(1, 9))
        y = rng.integers(-3, 4, n).astype(float)
        w = rng.integers(1, 4, n).astype(float)
        fit = isotonic(y, loss="l1", weights=w)
        assert np.all(np.diff(fit.values) >= 0)
        assert np.dot(w, np.abs(fit.values - y)) == pytest.approx(l1_optimum(y, w), abs=1e-7)


def test_bounds_by_clipping_are_exact():
    rng = np.random.default_rng(7)
    for _ in range(30):
        n = int(rng.integers(2, 8))
        y = rng.normal(0, 3, n)
        lo, hi = -1.0, 2.0
        f1 = isotonic(y, loss="l1", lower=lo, upper=hi).values
        assert np.abs(f1 - y).sum() == pytest.approx(l1_optimum(y, np.ones(n), lo, hi), abs=1e-6)
        f2 = isotonic(y, lower=lo, upper=hi).values
        cons = [{"type": "ineq", "fun": lambda x, i=i: x[i + 1] - x[i]} for i in range(n - 1)]
        ref = minimize(lambda x: ((x - y) ** 2).sum(), np.zeros(n), constraints=cons,
                       bounds=[(lo, hi)] * n, method="SLSQP", options={"ftol": 1e-12, "maxiter": 500})
        assert ((f2 - y) ** 2).sum() <= ref.fun + 1e-6


@pytest.mark.parametrize("loss", ["l1", "l2"])
def test_segments_are_independent(loss):
    rng = np.random.default_rng(3)
    lengths = [5, 1, 7, 3]
    y = rng.integers(-5, 6, sum(lengths)).astype(float)
    seg = np.repeat(np.arange(4), lengths)
    joint = isotonic(y, seg, loss=loss)
    parts = np.concatenate([isotonic(y[seg == s], loss=loss).values for s in range(4)])
    np.testing.assert_allclose(joint.values, parts)
    sizes = np.concatenate([isotonic(y[seg == s], loss=loss).block_size for s in range(4)])
    np.testing.assert_array_equal(joint.block_size, sizes)


def test_block_sizes_and_input_untouched():
    y = np.array([3.0, 1.0, 1.5, 5.0])
    before = y.copy()
    fit = isotonic(y)
    np.testing.assert_allclose(fit.values, [5.5 / 3] * 3 + [5])
    np.testing.assert_array_equal(fit.block_size, [3, 3, 3, 1])
    np.testing.assert_array_equal(y, before)


def test_bad_input():
    with pytest.raises(ValueError, match="loss"):
        isotonic([1.0], loss="l3")
    with pytest.raises(ValueError, match="segment"):
        isotonic([1.0, 2.0], [1, 0])
    with pytest.raises(ValueError, match="finite"):
        isotonic([np.nan])
    with pytest.raises(ValueError, match="weights"):
        isotonic([1.0, 2.0], weights=[1.0, 0.0])
