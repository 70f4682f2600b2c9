"""What a single-node method returns for the nodes of one level (shared by naive, H_g, H_c)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class LevelEstimate:
    """Private estimates for the m nodes of one level; everything here is safe to publish.

    ``hist`` (m, K + 1): non-negative integer histograms, row i summing to G_i.
    ``hg``: the concatenated ascending group sizes of ``hist`` (node by node).
    ``hg_var``: the slides' variance estimate of each entry of ``hg`` (None for the naive method).
    ``noisy``: the noisy measurement before post-processing (shape depends on the method).
    """

    method: str
    hist: np.ndarray
    hg: np.ndarray
    hg_var: np.ndarray | None
    noisy: np.ndarray
    epsilon: float
    sensitivity: float
    passes: int = 0
