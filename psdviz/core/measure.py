"""The "measure" step: noisy counts for a set of disjoint regions, recorded in the ledger."""
from __future__ import annotations

import numpy as np

from .ledger import Ledger
from .noise import geometric_noise, geometric_variance
from .rng import Randomness


def measure_counts(rnd: Randomness, ledger: Ledger, counts: np.ndarray, epsilon: float, *,
                   level: int | None = None, what: str = "count", note: str = "") -> tuple[np.ndarray, np.ndarray]:
    """Add two-sided geometric noise (sensitivity 1: one point changes one of these disjoint
    counts by 1) and record the spend. Epsilon 0 releases nothing: NaN values, infinite variance.
    Returns (noisy counts as float, per-region noise variance)."""
    counts = np.asarray(counts)
    if epsilon <= 0:
        return np.full(counts.shape, np.nan), np.full(counts.shape, np.inf)
    ledger.spend(what, epsilon, "geometric", level=level, nodes=int(counts.size), note=note)
    noisy = counts + geometric_noise(rnd.rng, counts.shape, epsilon)
    return noisy.astype(float), np.full(counts.shape, float(geometric_variance(epsilon)))
