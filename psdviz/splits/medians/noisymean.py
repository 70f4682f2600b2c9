"""Noisy-mean "medians" (ICDE'12 section 6.1, after Inan et al. [12]), many nodes at once.

Mean = noisy sum / noisy count. Reading: half the budget each (the paper does not say); the sum
is of (x - lo) over the node, whose sensitivity is the node's range M = hi - lo (Laplace noise, a
real quantity); the count has sensitivity 1 (two-sided geometric noise, an integer). The ratio
is shifted back by lo and clipped to [lo, hi]; a noisy count below 1 gives the midpoint. All of
that is post-processing of the two noisy values.
"""
from __future__ import annotations

import numpy as np

from ...core.noise import geometric_noise


def noisy_mean_medians(rng: np.random.Generator, values: np.ndarray, offsets: np.ndarray, lo, hi,
                       epsilon: float) -> np.ndarray:
    offsets = np.asarray(offsets, dtype=np.int64)
    n_seg = offsets.size - 1
    lo = np.broadcast_to(np.asarray(lo, float), (n_seg,))
    hi = np.broadcast_to(np.asarray(hi, float), (n_seg,))
    seg = np.repeat(np.arange(n_seg), np.diff(offsets))
    rel = np.clip(values, lo[seg], hi[seg]) - lo[seg]
    sums = np.bincount(seg, weights=rel, minlength=n_seg)
    span = hi - lo
    noisy_sum = sums + rng.laplace(size=n_seg) * np.where(span > 0, span, 0.0) / (epsilon / 2.0)
    noisy_n = np.diff(offsets) + geometric_noise(rng, n_seg, epsilon / 2.0)
    mean = lo + noisy_sum / np.maximum(noisy_n, 1)
    return np.where(noisy_n >= 1, np.clip(mean, lo, hi), (lo + hi) / 2.0)
