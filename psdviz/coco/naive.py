"""Naive method: noise on the count-of-counts histogram H itself (slides of Kuo et al., VLDB 2018,
"Naive Strategy").

Sensitivity of H is 2 (L1): adding or removing one record moves one group from size s to s +/- 1,
so one bin loses a group and a neighbouring bin gains one (with sizes truncated at K, a change at
the cap moves nothing). Hence double-geometric noise with scale 2/epsilon on every bin 0..K.
Post-processing: least-squares projection onto {H >= 0, sum H = G} (closed form, see
:mod:`psdviz.coco.rounding`), then largest-remainder rounding.
"""
from __future__ import annotations

import numpy as np

from ..core.noise import geometric_noise
from .estimate import LevelEstimate
from .representations import to_unattributed
from .rounding import largest_remainders, project_simplex

SENSITIVITY = 2.0


def query(H: np.ndarray) -> np.ndarray:
    """The measured vector of each node: H itself."""
    return np.asarray(H, np.int64)


def estimate(H: np.ndarray, epsilon: float, rng: np.random.Generator, *, loss: str = "l2") -> LevelEstimate:
    """Naive estimates for the rows (nodes) of the true histograms ``H`` (m, K + 1)."""
    H = np.asarray(H, np.int64)
    G = H.sum(axis=1)
    noisy = query(H) + geometric_noise(rng, H.shape, epsilon, SENSITIVITY)
    hist = largest_remainders(project_simplex(noisy, G), G)
    return LevelEstimate("naive", hist, to_unattributed(hist), None, noisy, epsilon, SENSITIVITY)
