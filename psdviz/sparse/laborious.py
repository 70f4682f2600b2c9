"""The laborious approach (ICDT'12 Figure 1, steps 1-3): noise on all m cells, then summarise.

Materialises M' = M + geometric noise for every cell, which is exactly what the shortcut avoids;
allowed only up to :data:`LABORIOUS_MAX` cells (ValueError above). The summaries here are written
the obvious way on dense arrays, independently of :mod:`.shortcut`, so that the tests can compare
the two distributions. ``geometric_table`` alone is the full geometric mechanism, the baseline of
the paper's experiments.
"""
from __future__ import annotations

import numpy as np

from ..core.noise import geometric_noise
from .shortcut import Summary, top_priorities
from .table import SparseTable

LABORIOUS_MAX = 20_000_000


def check_laborious(m: int) -> None:
    if m > LABORIOUS_MAX:
        raise ValueError(f"the laborious approach materialises all m={m} cells; it is allowed only for "
                         f"m <= {LABORIOUS_MAX}. Use a shortcut summary (filter, threshold, priority, "
                         "filter-priority) instead")


def geometric_table(rng, table: SparseTable, epsilon: float, sensitivity: float = 1.0) -> np.ndarray:
    """M' for all m cells (dense int64 array)."""
    check_laborious(table.m)
    return table.dense() + geometric_noise(rng, table.m, epsilon, sensitivity)


def _summary(keep: np.ndarray, noisy: np.ndarray, weights: np.ndarray, params: dict) -> Summary:
    idx = np.flatnonzero(keep).astype(np.int64)
    return Summary(idx, noisy[idx].astype(np.int64), weights[idx].astype(float), params)


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
