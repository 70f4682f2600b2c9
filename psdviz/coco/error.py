"""Error of count-of-counts histograms (slides of Kuo et al., VLDB 2018, "Error Measure").

Earthmover's distance: the minimum number of people to add to or remove from groups to turn H into
Hhat; by the slides' lemma [Li, Li, Venkatasubramanian 2007] it equals ``||H_c - Hhat_c||_1`` (and
``||H_g - Hhat_g||_1`` when both have the same G).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..core.errors import InputDataError


def emd(H, H_hat) -> np.ndarray:
    """Row-wise earthmover's distance between histograms of equal shape (a float per row)."""
    H = np.asarray(H, dtype=float)
    H_hat = np.asarray(H_hat, dtype=float)
    if H.shape != H_hat.shape:
        raise InputDataError(f"histograms must have one shape (got {H.shape} and {H_hat.shape})")
    return np.abs(np.cumsum(H - H_hat, axis=-1)).sum(axis=-1)


def emd_by_level(H, H_hat, level) -> pd.Series:
    """Average earthmover's distance over the nodes of each level."""
    return pd.Series(emd(H, H_hat)).groupby(np.asarray(level)).mean().rename("emd")
