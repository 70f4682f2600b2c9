"""The "measure" step: noisy counts for a set of disjoint regions, recorded in the ledger."""
from __future__ import annotations

import numpy as np

from .ledger import Ledger
from .noise import geometric_noise, geometric_variance
from .progress import report
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


def measure_levels(rnd: Randomness, ledger: Ledger, level_counts, eps: np.ndarray,
                   progress: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """:func:`measure_counts` for every depth of a tree (exact counts per depth, root first; the nodes of
    a depth are disjoint), epsilon ``eps[d]`` at depth d, one ledger line per depth. Returns the noisy
    counts and their variances concatenated root first; ``progress`` labels each depth's report."""
    noisy, var = [], []
    for d, counts in enumerate(level_counts):
        y, v = measure_counts(rnd, ledger, counts, eps[d], level=d)
        noisy.append(y)
        var.append(v)
        if progress:
            report(d + 1, len(eps), progress)
    return np.concatenate(noisy), np.concatenate(var)
