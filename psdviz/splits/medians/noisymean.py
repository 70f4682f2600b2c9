"""Noisy-mean "medians" (ICDE'12 section 6.1, after Inan et al. [12]), many nodes at once.

Mean = noisy sum / noisy count. Reading: half the budget each (the paper does not say). On the
public grid the keys are integer positions, so the sum of (x - lo) over the node is an integer whose
sensitivity is the node's range M = hi - lo in grid steps: it gets two-sided geometric noise with
that sensitivity (exact, an integer: no float Laplace on a data-derived value); the count has
sensitivity 1 (two-sided geometric). The ratio is rounded to the nearest position, shifted back by
lo and clipped to [lo, hi]; a noisy count below 1 gives the middle position. All of that is
post-processing of the two noisy integers.
"""
from __future__ import annotations

import numpy as np

from ...core.noise import geometric_noise, two_sided_geometric


def noisy_mean_medians(rng: np.random.Generator, values: np.ndarray, offsets: np.ndarray, lo, hi,
                       epsilon: float, weights: np.ndarray | None = None) -> np.ndarray:
    """``weights``: the values are distinct with these multiplicities (the same sums and counts as the
    expanded values, so the same medians; memory: distinct values)."""
    offsets = np.asarray(offsets, dtype=np.int64)
    n_seg = offsets.size - 1
    lo = np.broadcast_to(np.asarray(lo, np.int64), (n_seg,))
    hi = np.broadcast_to(np.asarray(hi, np.int64), (n_seg,))
    seg = np.repeat(np.arange(n_seg), np.diff(offsets))
    rel = np.clip(np.asarray(values, np.int64), lo[seg], hi[seg]) - lo[seg]
    w = None if weights is None else np.asarray(weights, np.int64)
    sums = np.bincount(seg, weights=rel if w is None else rel * w, minlength=n_seg).astype(np.int64)
    counts = np.diff(offsets) if w is None else np.bincount(seg, weights=w, minlength=n_seg).astype(np.int64)
    span = hi - lo
    noisy_sum = sums + two_sided_geometric(rng, span / (epsilon / 2.0))
    noisy_n = counts + geometric_noise(rng, n_seg, epsilon / 2.0)
    mean = lo + np.rint(noisy_sum / np.maximum(noisy_n, 1)).astype(np.int64)
    return np.where(noisy_n >= 1, np.clip(mean, lo, hi), (lo + hi) // 2)
