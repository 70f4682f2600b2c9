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
