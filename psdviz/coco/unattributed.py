"""H_g method: noise on the sorted group sizes (slides of Kuo et al., VLDB 2018, "Unattributed
Histogram", after Hay et al. PVLDB 2010).

Sensitivity of H_g is 1 (L1): adding a record to a group of size s turns one entry s of the sorted
vector into s + 1 (take the last entry equal to s, so the vector stays sorted); removing one turns
one entry s into s - 1 (the first entry equal to s). Every other entry is unchanged, and G (the
vector's length) is public. Hence double-geometric noise with scale 1/epsilon on each of the G
entries.

Post-processing: non-decreasing isotonic fit in L2 or L1 (PAV, :mod:`psdviz.coco.pav`), bounded to
[0, K] (the slides state only ``0 <= H_g[i]``; K is public, so clipping at K is also post-processing
and can only reduce the error), rounding to the nearest integer (keeps the order), back to H.

Variance estimate for consistency (slides, "Initial Variance Estimation"): ``2 / (|S_i| eps^2)``
with S_i the PAV block holding entry i. We use the exact variance of the noise actually added,
:func:`psdviz.core.noise.geometric_variance` (``2a/(1-a)^2``, which tends to the slides' ``2/eps^2`` for
small epsilon), divided by |S_i|.
"""
from __future__ import annotations

import numpy as np

from ..core.noise import geometric_noise, geometric_variance
from .estimate import LevelEstimate
from .pav import isotonic
from .representations import from_unattributed, segment_ids, to_unattributed

SENSITIVITY = 1.0


def query(H: np.ndarray) -> np.ndarray:
    """The measured vector: every node's sizes in ascending order, concatenated."""
    return to_unattributed(H)


def estimate(H: np.ndarray, epsilon: float, rng: np.random.Generator, *, loss: str = "l2") -> LevelEstimate:
    """H_g estimates for the rows (nodes) of the true histograms ``H`` (m, K + 1)."""
    H = np.asarray(H, np.int64)
    m, K = H.shape[0], H.shape[1] - 1
    G = H.sum(axis=1)
    seg = segment_ids(G)
    noisy = query(H) + geometric_noise(rng, int(G.sum()), epsilon, SENSITIVITY)
    fit = isotonic(noisy, seg, loss=loss, lower=0.0, upper=float(K))
    hg = np.rint(fit.values).astype(np.int64)
    hist = from_unattributed(hg, seg, m, K)
    var = geometric_variance(epsilon, SENSITIVITY) / fit.block_size
    return LevelEstimate("hg", hist, hg, var, noisy, epsilon, SENSITIVITY, fit.passes)
