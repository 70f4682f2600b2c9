"""Runs on flat arrays: the indices of many consecutive runs at once, without a loop per run.

Used wherever a step expands "for each item, its block of consecutive positions" (a parent's children, a
region's rings, a query's sorted points, a merged block of a fit)."""
from __future__ import annotations

import numpy as np


def runs(start, size) -> np.ndarray:
    """``start[0], start[0] + 1, .., start[0] + size[0] - 1, start[1], ..``: the positions of consecutive runs
    given each run's first position and length (int64)."""
    size = np.asarray(size, dtype=np.int64)
    return (np.arange(int(size.sum()), dtype=np.int64) - np.repeat(np.cumsum(size) - size, size)
            + np.repeat(np.asarray(start, dtype=np.int64), size))


def run_starts(*keys: np.ndarray) -> np.ndarray:
    """Whether each position starts a run of equal consecutive values (over all ``keys`` together): True at 0
    and wherever any key changes; an empty mask for empty keys (never the one-element mask of ``np.r_[True, ..]``)."""
    out = np.zeros(len(keys[0]), bool)
    out[:1] = True
    for k in keys:                     # one comparison a key, never a pass per element
        out[1:] |= k[1:] != k[:-1]
    return out
