"""The workload strategy's measurement, D vs D': one point more in a cell moves the law of what is released
by at most e^epsilon (and the audit fails a third of epsilon, so it has power)."""
import numpy as np
import pytest
from test_grid_audit import ratio_ok

import psdviz as pv
from psdviz.core.ledger import Ledger
from psdviz.core.rng import SEEDED, Randomness
from psdviz.methods.strategy import measure, plan_strategy

DOM = pv.Domain(0, 0, 8, 4)


def _law(counts: np.ndarray, strategy, eps: float, runs: int, seed: int) -> np.ndarray:
    """The released estimate of cell (0, 0) over ``runs`` independent measurements."""
    rng = np.random.default_rng(seed)
    out = np.empty(runs)
    for r in range(runs):
        out[r] = measure(strategy, counts, eps, Randomness(rng, SEEDED, seed), Ledger(eps))[0, 0]
    return out


@pytest.mark.parametrize("rows", [0, 2])
def test_neighbouring_counts_audit(rows):
    """D vs D': one point more in cell (0, 0). The released estimate of that cell (the most exposed value:
    its mean moves by 1), binned, may not differ in law by more than e^epsilon per bin beyond 5 binomial
    standard errors; the same draws fail the bound for a third of epsilon (the audit has power)."""
    ex, ey = np.linspace(0, 8, 5), np.linspace(0, 4, 5)
    strategy = plan_strategy(DOM, ex, ey, np.array([[0, 0, 8, 4], [0, 0, 4, 2], [0, 0, 2, 1]]), rows=rows)
    eps, runs = 2.0, 5_000
    d = np.array([[3, 1, 0, 2], [0, 4, 1, 0], [2, 0, 0, 1], [1, 1, 5, 0]], np.int64)
    d2 = d.copy()
    d2[0, 0] += 1
    a, b = _law(d, strategy, eps, runs, 11), _law(d2, strategy, eps, runs, 12)
    edges = np.quantile(np.r_[a, b], np.linspace(0, 1, 41))
    ca, cb = np.histogram(a, edges)[0], np.histogram(b, edges)[0]
    assert ratio_ok(ca, cb, runs, eps)
    assert not ratio_ok(ca, cb, runs, eps / 3)
