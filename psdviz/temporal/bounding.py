"""Contribution bounding over time: at most m events a user in any one window, and at most L in all.

Which events are kept is chosen uniformly at random with the release's randomness, one user at a time
(as :mod:`psdviz.core.contribution` does for one map): the rows are put in a uniformly random order and sorted
stably by (user, window); the first m of each (user, window) are kept; the kept rows are put in a new random order
and sorted stably by user, and the first L of each user kept. A
user's kept rows depend only on that user's rows and keys, so adding or removing one user adds or removes at
most m kept events in any window and at most L in all, and leaves the law of every other user's kept events
unchanged: the sensitivities the mechanisms are calibrated to (:mod:`psdviz.temporal.mechanisms`).
"""
from __future__ import annotations

import numpy as np


def _first_per_group(group: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """A mask of ``k`` rows of each group chosen uniformly at random (a random order, then a stable sort by group:
    the order within a group stays uniformly random; integer sorts, no floating-point key)."""
    if group.size == 0:
        return np.zeros(0, bool)
    perm = rng.permutation(group.size)
    order = perm[np.argsort(group[perm], kind="stable")]
    g = group[order]
    start = np.r_[0, np.flatnonzero(g[1:] != g[:-1]) + 1]
    rank = np.arange(g.size) - np.repeat(start, np.diff(np.r_[start, g.size]))
    keep = np.zeros(group.size, bool)
    keep[order[rank < k]] = True
    return keep


def bound_over_time(user: np.ndarray, window: np.ndarray, per_window: int, total: int | None,
                    rng: np.random.Generator) -> np.ndarray:
    """A mask of the rows kept: at most ``per_window`` per (user, window) and ``total`` per user (None: no
    bound in all). ``user`` holds integer codes, ``window`` window indices."""
    u = np.asarray(user, np.int64)
    wi = np.asarray(window, np.int64)
    n_w = int(wi.max(initial=0)) + 1
    keep = _first_per_group(u * n_w + wi, per_window, rng)
    if total is not None:
        idx = np.flatnonzero(keep)
        keep[idx] = _first_per_group(u[idx], total, rng)
    return keep
