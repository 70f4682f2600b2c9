"""Exponential-mechanism medians on the public grid (ICDE'12 section 6.1, Definition 5), many nodes at once.

A node owns the grid positions lo..hi (its region: public bounds, never the data's min/max) and
holds sorted integer keys. Definition 5 chooses an output with density proportional to
exp(-epsilon/2 |rank(x) - n/2|) over the region; on the grid the outputs are the region's integer
positions, so the gap I_k between consecutive data values becomes the run of positions whose rank is
k, chosen with probability proportional to its number of positions times that weight, then a
uniform position inside it (:func:`psdviz.splits.quantile.private_quantiles`, f = 1/2).

Reading of "rank(x_m)": we use n/2 (the exact middle rank, also for even n). The score
-|rank(x) - n/2| changes by at most 1/2 when one point is added or removed (rank(x) moves by 0
or 1 and n/2 by 1/2 in the same direction or not at all), so the paper's weights
exp(-epsilon/2 |.|), calibrated for sensitivity 1, are epsilon-DP with room to spare. We keep the
paper's constant so Figure 4 is reproduced as published.
"""
from __future__ import annotations

import numpy as np

from ..quantile import private_quantiles


def em_medians(rng: np.random.Generator, values: np.ndarray, offsets: np.ndarray, lo, hi,
               epsilon: float, weights: np.ndarray | None = None) -> np.ndarray:
    """One private median position per segment (``values``: sorted integer keys in [lo, hi); with
    ``weights``, distinct keys and their multiplicities)."""
    return private_quantiles(rng, values, offsets, lo, hi, 0.5, epsilon, weights)[0]


def em_position_probabilities(values: np.ndarray, lo: int, hi: int, epsilon: float) -> np.ndarray:
    """Exact law of Definition 5 on the grid for one node: the probability of each candidate position
    (lo + 1 .. hi - 1; lo..hi for a region one step wide), listed position by position (for tests and teaching; log-sum-exp normalised)."""
    x = np.sort(np.asarray(values, np.int64))
    pos = np.arange(lo + 1, hi) if hi - lo >= 2 else np.arange(lo, hi + 1)   # interior positions
    rank = np.searchsorted(x, pos, side="left")
    logw = -0.5 * epsilon * np.abs(rank - x.size / 2.0)
    w = np.exp(logw - logw.max())
    return w / w.sum()
