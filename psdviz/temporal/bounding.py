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


def _rank_in_group(group: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Each row's place (0, 1, ...) within its group in a uniformly random order (a random permutation, then a
    stable sort by group: the order within a group stays uniformly random; integer sorts, no floating-point key)."""
    rank = np.zeros(group.size, np.int64)
    if group.size == 0:
        return rank
    perm = rng.permutation(group.size)
    order = perm[np.argsort(group[perm], kind="stable")]
    g = group[order]
    start = np.r_[0, np.flatnonzero(g[1:] != g[:-1]) + 1]
    rank[order] = np.arange(g.size) - np.repeat(start, np.diff(np.r_[start, g.size]))
    return rank


def _first_per_group(group: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """A mask of ``k`` rows of each group chosen uniformly at random (the first k of :func:`_rank_in_group`)."""
    return _rank_in_group(group, rng) < k


def bound_per_window(user: np.ndarray, window: np.ndarray, per_window: int, rng: np.random.Generator) -> np.ndarray:
    """A mask of the rows kept by the bound of ``per_window`` (m) a (user, window): ``user`` holds integer codes,
    ``window`` window indices."""
    u = np.asarray(user, np.int64)
    wi = np.asarray(window, np.int64)
    n_w = int(wi.max(initial=0)) + 1
    return _first_per_group(u * n_w + wi, per_window, rng)


def bound_in_all(user: np.ndarray, keep: np.ndarray, total: int, rng: np.random.Generator) -> np.ndarray:
    """``keep`` (the rows the bound a window kept) narrowed to at most ``total`` (L) rows a user in all: the kept
    rows of :func:`user_rank` below L."""
    return keep & (user_rank(user, keep, rng) < total)


def user_rank(user: np.ndarray, keep: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Each kept row's place within its user's kept rows in one uniformly random order (-1 for rows not kept).
    Keeping the rows of rank < L is :func:`bound_in_all` at L; ranks below L_d for several L_d give nested sets
    drawn from one order (one L a level of the tree over time). A user's ranks depend only on that user's rows."""
    rank = np.full(keep.size, -1, np.int64)
    idx = np.flatnonzero(keep)
    rank[idx] = _rank_in_group(np.asarray(user, np.int64)[idx], rng)
    return rank


def kept_totals(user: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """Each user's number of kept rows (users with none are absent). After :func:`bound_per_window` it is the sum
    over windows of min(events in the window, m), whichever events the random order kept."""
    counts = np.bincount(np.asarray(user, np.int64)[keep])
    return counts[counts > 0]


def bound_over_time(user: np.ndarray, window: np.ndarray, per_window: int, total: int | None,
                    rng: np.random.Generator) -> np.ndarray:
    """A mask of the rows kept: at most ``per_window`` per (user, window) and ``total`` per user (None: no
    bound in all). ``user`` holds integer codes, ``window`` window indices."""
    keep = bound_per_window(user, window, per_window, rng)
    return keep if total is None else bound_in_all(user, keep, total, rng)
