"""Exponential-mechanism medians on the public grid (ICDE'12 section 6.1, Definition 5), many nodes at once.

A node owns the grid positions lo..hi (its region: public bounds, never the data's min/max) and
holds sorted integer keys. Definition 5 draws a split with density proportional to
exp(-epsilon/2 |rank(x) - n/2|) over the region; :func:`psdviz.splits.quantile.private_quantiles`
(f = 1/2) reads it continuously, each cell's points spread evenly across the cell, and releases the
nearest interior grid position (the reading and its privacy argument are in that module).

Reading of "rank(x_m)": we use n/2 (the exact middle rank, also for even n). The score
-|rank(x) - n/2| changes by at most 1/2 when one point is added or removed, so the weights are
calibrated for that sensitivity, exp(-epsilon |.|) (:mod:`psdviz.splits.quantile`,
"Calibration", has the argument and the figures). The paper's exp(-epsilon/2 |.|), calibrated for
sensitivity 1, spends half the budget it is charged; ``sensitivity=1.0`` gives it (Figure 4's
reproduction, benchmarks/repro_kd.py).
"""
from __future__ import annotations

import numpy as np

from ..quantile import half_cell_log_mass, private_quantiles, rate


def em_medians(rng: np.random.Generator, values: np.ndarray, offsets: np.ndarray, lo, hi,
               epsilon: float, weights: np.ndarray | None = None,
               sensitivity: float | None = None) -> np.ndarray:
    """One private median position per segment (``values``: sorted integer keys in [lo, hi); with
    ``weights``, distinct keys and their multiplicities); ``sensitivity``: None for the
    median's own 1/2 (:func:`psdviz.splits.quantile.rate`), 1.0 for the paper's constant."""
    return private_quantiles(rng, values, offsets, lo, hi, 0.5, epsilon, weights, sensitivity)[0]


def em_position_probabilities(values: np.ndarray, lo: int, hi: int, epsilon: float,
                              sensitivity: float | None = None) -> np.ndarray:
    """Exact law of the median for one node: the probability of each candidate position (lo + 1 ..
    hi - 1; lo..hi for a region one step wide), listed position by position (for tests and teaching).

    Written half step by half step, independently of the sampler's grouping: half step h (the
    interval [h/2, (h + 1)/2), rounding to position (h + 1) // 2) has mass e^{-epsilon/2 |R - n/2|} / 2
    in an empty cell (R the points below it) and the closed-form integral in an occupied one."""
    x = np.sort(np.asarray(values, np.int64))
    pos = np.arange(lo + 1, hi) if hi - lo >= 2 else np.arange(lo, hi + 1)   # interior positions
    h = np.arange(2 * pos[0] - 1, 2 * pos[-1] + 1)
    cell, upper = h // 2, h % 2
    below = np.searchsorted(x, cell, side="left")
    w = np.searchsorted(x, cell, side="right") - below
    a, target = rate(epsilon, 0.5, sensitivity), x.size / 2.0
    lower_half, upper_half = half_cell_log_mass(a, below, np.maximum(w, 1), target)
    logm = np.where(w > 0, np.where(upper == 1, upper_half, lower_half), np.log(0.5) - a * np.abs(below - target))
    per_pos = np.logaddexp.reduceat(logm, np.arange(0, h.size, 2))
    p = np.exp(per_pos - per_pos.max())
    return p / p.sum()
