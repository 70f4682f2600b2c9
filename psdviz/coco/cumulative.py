"""H_c method: noise on the cumulative histogram (slides of Kuo et al., VLDB 2018, "Cumulative Sum
Histograms").

``H_c[s]`` = number of groups of size <= s, s = 0..K. ``H_c[K] = G`` is public, so only the K entries
0..K-1 are measured. Sensitivity 1 (L1): a group moving from size s to s + 1 leaves H_c[s] one lower
and every other entry unchanged (and a move from s to s - 1 raises H_c[s - 1] by one); at the cap K
nothing moves. Hence double-geometric noise with scale 1/epsilon on each measured entry.

Post-processing: non-decreasing isotonic fit in L2 or L1 bounded to [0, G] (the fixed end
``H_c[K] = G`` is the upper bound), rounding to the nearest integer (keeps the order), then
``H = diff(H_c)``, which is non-negative and sums to G.

Variance estimate for consistency (slides, "Initial Variance Estimation"): a group of estimated size
s has variance ``4 / (eps^2 * Hhat[s])``, Hhat[s] being the number of estimated groups of that size.
As for H_g we write ``2 * v / Hhat[s]`` with v the exact variance of the geometric noise added
(``-> 4/eps^2 / Hhat[s]`` for small epsilon).
"""
from __future__ import annotations

import numpy as np

from ..core.noise import geometric_noise, geometric_variance
from .estimate import LevelEstimate
from .pav import isotonic
from .representations import from_cumulative, segment_ids, to_cumulative, to_unattributed

SENSITIVITY = 1.0


def query(H: np.ndarray) -> np.ndarray:
    """The measured vector of each node: H_c[0..K-1] (m, K)."""
    return to_cumulative(np.asarray(H, np.int64))[:, :-1]


def estimate(H: np.ndarray, epsilon: float, rng: np.random.Generator, *, loss: str = "l2") -> LevelEstimate:
    """H_c estimates for the rows (nodes) of the true histograms ``H`` (m, K + 1)."""
    H = np.asarray(H, np.int64)
    m, K = H.shape[0], H.shape[1] - 1
    G = H.sum(axis=1)
    noisy = query(H) + geometric_noise(rng, (m, K), epsilon, SENSITIVITY)
    upper = np.repeat(G, K).astype(float)
    fit = isotonic(noisy.ravel(), segment_ids(np.full(m, K)), loss=loss, lower=0.0, upper=upper)
    hc = np.rint(fit.values).astype(np.int64).reshape(m, K)
    hist = from_cumulative(np.concatenate([hc, G[:, None]], axis=1))
    hg = to_unattributed(hist)
    node = segment_ids(G)
    var = 2.0 * geometric_variance(epsilon, SENSITIVITY) / hist[node, hg]
    return LevelEstimate("hc", hist, hg, var, noisy, epsilon, SENSITIVITY, fit.passes)
