"""DAWA's partition, D vs D': one count raised by one moves the law of the released partition by at most e^eps1.

The partition is drawn by the engine's own code (:func:`psdviz.splits.l1_partition.choose_buckets`, many runs at
once) on small curve-ordered vectors with every level a candidate, so the composition over the levels is what is
audited. Each audit checks the whole law (``ratio_ok``: every partition's frequency, 5 binomial standard errors),
then takes the partition that moved most in a first batch and measures it again on fresh runs: the Clopper-Pearson
lower bound of its log-ratio must stay at or below eps1. With a quarter of the noise (the scale one window's
sensitivity would ask for, the published calibration's) the same fixed-event bound exceeds eps1: the audit has power.
"""
import numpy as np
import pytest
from scipy.stats import beta
from test_grid_audit import ratio_ok

from psdviz.splits.l1_partition import choose_buckets

EPS1, PENALTY, LEVELS = 1.0, 2.0, (1, 2, 3, 4)
FIRST, FRESH, LEAST = 200_000, 200_000, 100
ALPHA = 1e-3          # each one-sided Clopper-Pearson bound


def _pair(cells: int, at: int, atom: int) -> tuple[np.ndarray, np.ndarray]:
    x = np.zeros(cells, np.int64)
    x[at] = atom
    x2 = x.copy()
    x2[at] += 1
    return x, x2


def _codes(x: np.ndarray, eps1: float, runs: int, seed: int) -> np.ndarray:
    """Per run, the partition as the bit set of its buckets' first cells."""
    buckets = choose_buckets(x, LEVELS, eps1, PENALTY, np.random.default_rng(seed), runs)
    code = np.zeros(runs, np.int64)
    for k, b in enumerate(buckets):
        code |= (b * (np.int64(1) << (np.arange(b.shape[1], dtype=np.int64) << k))).sum(axis=1)
    return code


def _laws(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The outcomes seen under either data set and their counts under each."""
    seen = np.union1d(a, b)
    return seen, np.bincount(np.searchsorted(seen, a), minlength=seen.size), \
        np.bincount(np.searchsorted(seen, b), minlength=seen.size)


def _log_ratio_low(ka: int, kb: int, runs: int) -> float:
    """Clopper-Pearson lower bound of |log(p_a / p_b)| from ka and kb successes in ``runs`` each."""
    hi, lo = max(ka, kb), min(ka, kb)
    p_hi = beta.ppf(ALPHA, hi, runs - hi + 1)
    p_lo = beta.ppf(1 - ALPHA, lo + 1, runs - lo)
    return float(np.log(p_hi / p_lo))


def _fixed_event_bound(x, x2, eps1: float, seed: int) -> float:
    """The most moved partition of a first batch (both counts at least LEAST), measured on fresh runs."""
    seen, ca, cb = _laws(_codes(x, eps1, FIRST, seed), _codes(x2, eps1, FIRST, seed + 1))
    ok = (ca >= LEAST) & (cb >= LEAST)
    event = seen[ok][np.argmax(np.abs(np.log(ca[ok] / cb[ok])))]
    fa = int((_codes(x, eps1, FRESH, seed + 2) == event).sum())
    fb = int((_codes(x2, eps1, FRESH, seed + 3) == event).sum())
    return _log_ratio_low(fa, fb, FRESH)


@pytest.mark.parametrize("cells,at,atom", [(16, 15, 8), (16, 0, 3), (32, 16, 4)])
def test_partition_law_within_eps1(cells, at, atom):
    """Noise |K| / eps1 on every candidate window: the whole law within e^eps1, and the most moved partition's
    log-ratio bounded by eps1 on fresh runs."""
    x, x2 = _pair(cells, at, atom)
    _, ca, cb = _laws(_codes(x, EPS1, FIRST, 1), _codes(x2, EPS1, FIRST, 2))
    assert ratio_ok(ca, cb, FIRST, EPS1)
    assert _fixed_event_bound(x, x2, EPS1, 10) <= EPS1


def test_the_audit_has_power():
    """The same selection with a quarter of the noise (scale 1 / eps1 per window, what one window's sensitivity
    asks for) is caught: a partition fixed before fresh runs moves by more than e^eps1."""
    x, x2 = _pair(16, 15, 8)
    assert _fixed_event_bound(x, x2, EPS1 * len(LEVELS), 20) > EPS1
