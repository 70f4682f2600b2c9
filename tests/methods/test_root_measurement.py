"""The noisy N a builder buys is a released count of the root: AG and the h-tree enter it in their
least squares (psdviz.core.population.root_measurement) instead of using it only for their sizes."""
import math

import numpy as np
import pytest

import psdviz as pv
from psdviz.core.noise import geometric_variance

DOM = pv.Domain(0, 0, 1, 1)
WHOLE = [[0.0, 0.0, 1.0, 1.0]]


def pts(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.clip(rng.normal(0.5, 0.15, (n, 2)), 0.0, 0.999)


@pytest.mark.parametrize("method", ["ag", "htree"])
def test_noisy_n_is_the_root_measurement(method):
    eps = 0.8
    rel = pv.build(pts(3000), DOM, method=method, epsilon=eps, seed=4)
    t, n_eps = rel.tree, 0.05 * eps
    assert np.isfinite(t.noisy[0]) and abs(t.noisy[0] - 3000) < 40 / n_eps   # P(|noise| > 40/eps) ~ e^-40
    assert t.noise_var[0] == pytest.approx(float(geometric_variance(n_eps)))
    assert t.count_eps[0] == pytest.approx(n_eps)       # a count now (the h-tree's root also slices)
    assert rel.ledger.total() <= eps * (1 + 1e-12)      # the h-tree may leave slicing rounds unspent
    assert "root" in next(s.note for s in rel.ledger.spends if s.what == "N estimate")   # the ledger says so
    # declared public: nothing was measured; without least squares: the leaves' sums are the release
    for kw in ({"n_public": 3000}, {"postprocess": False}):
        t2 = pv.build(pts(3000), DOM, method=method, epsilon=eps, seed=4, **kw).tree
        assert np.isnan(t2.noisy[0]) and t2.noise_var[0] == np.inf and t2.count_eps[0] == 0.0


def test_root_measurement_sharpens_the_total():
    """AG's whole-domain answer: its empirical variance over 300 seeds matches the release's own GLS
    variance (5 standard errors of a sample variance, sqrt(2 / (runs - 1))), and that variance is below
    the one of the same build with N declared public (root unmeasured, 5 % more budget for the cells)."""
    p, eps, runs = pts(2000), 1.0, 300
    est = np.array([pv.build(p, DOM, method="ag", epsilon=eps, seed=s).answer(WHOLE)[0] for s in range(runs)])
    var = pv.build(p, DOM, method="ag", epsilon=eps, seed=0).answer_variance(WHOLE)[0]
    assert abs(est.var(ddof=1) / var - 1) <= 5 * math.sqrt(2 / (runs - 1))
    assert abs(est.mean() - 2000) <= 4 * math.sqrt(var / runs)
    public = pv.build(p, DOM, method="ag", epsilon=eps, seed=0, n_public=2000).answer_variance(WHOLE)[0]
    assert var < 0.8 * public
