"""A private choice of L, the bound on one user's events over the whole span, from the users' own totals.

A public L is a guess: too low and the events of active users are dropped (a bias no noise estimate shows, and
it does not shrink with longer ranges of windows), too high and every count carries L times the noise. Given
``max_points_per_user="auto"``, the release buys L instead, with a slice of its epsilon, near the ``QUANTILE``
of the users' totals (each user's events after the bound of m a window): most users then keep all their
events, and the few most active keep L.

The mechanism (the exponential mechanism, McSherry and Talwar, FOCS 2007, for a quantile): the candidates are a
public ladder from m to m T (T windows) in quarter octaves (every distinct ceil(m 2^(k/4)), and m T itself);
the score of a candidate L is -|#{users whose total <= L} - q n|, n the number of users holding at least one
event in the span and the domain. Adding or removing one user (all their events) moves the count by at most 1
and q n by q, so the score by at most max(q, 1 - q); drawing L with weights exp(epsilon score / (2 max(q,
1 - q))) is epsilon-differentially private for one user. The totals after the per-window bound are the sum over
windows of min(events, m), which no random choice touches. The rest of the release then runs at the remaining
epsilon for the chosen L (sequential composition; its bounding and noise are private for any fixed L, and L is
a released value). A ladder rather than every integer keeps the mass of far candidates small when users are
few. The constants, chosen on a tuning family of streams and checked on others: docs/decisions/user-bound.md.

The tree over time takes one L a level instead (:func:`choose_level_bounds`): a level of long intervals counts
many events a node, where dropping the most active users' events costs more than their noise, and a level of
single windows the reverse, so the quantile runs from ``ROOT_QUANTILE`` at the root to ``LEAF_QUANTILE`` at the
leaves. Each level's L is drawn as above at ``FRACTION`` epsilon / (h + 1); the h + 1 draws compose sequentially
(``FRACTION`` epsilon in all), each user's kept events are put in one random order and level d counts the first
L_d of them (:func:`psdviz.temporal.bounding.user_rank`), so one user changes level d's nodes by at most L_d in
L1: its counts are calibrated to sensitivity L_d. The least squares then reads each level at the share of the
root's events it keeps (:class:`psdviz.temporal.mechanisms.TreeTimeModel`, post-processing).
"""
from __future__ import annotations

import numpy as np

from ..core.expmech import segment_gumbel_max

QUANTILE = 0.9      # the users' share kept whole (the rule; its tuning: docs/decisions/user-bound.md)
LEAF_QUANTILE = 0.5     # one L a level of the tree over time: the quantile at the leaves ...
ROOT_QUANTILE = 0.99    # ... and at the root, linear in depth between (docs/decisions/user-bound.md)
FRACTION = 0.05     # of the release's epsilon spent on the choice of L
STEPS_PER_OCTAVE = 4
MAX_BOUND = 1_000_000
SPEND = "contribution bound L"   # its ledger line


def ladder(per_window: int, windows: int) -> np.ndarray:
    """The public candidates for L: m, the distinct ceil(m 2^(k/4)) below m T, and m T (at most MAX_BOUND)."""
    top = min(int(per_window) * int(windows), MAX_BOUND)
    k = np.arange(int(np.ceil(STEPS_PER_OCTAVE * np.log2(max(top / per_window, 1.0)))) + 1)
    steps = np.ceil(per_window * 2.0 ** (k / STEPS_PER_OCTAVE) - 1e-9).astype(np.int64)
    return np.unique(np.r_[steps[steps < top], top]).astype(np.int64)


def score_sensitivity(quantile: float) -> float:
    """How far one user moves a candidate's score: max(q, 1 - q)."""
    return max(float(quantile), 1.0 - float(quantile))


def log_weights(totals: np.ndarray, candidates: np.ndarray, epsilon: float, quantile: float = QUANTILE
                ) -> np.ndarray:
    """The exponential mechanism's log-weights of the candidates (unnormalised): epsilon score / (2 sens)."""
    t = np.sort(np.asarray(totals, np.int64))
    below = np.searchsorted(t, np.asarray(candidates, np.int64), side="right")
    score = -np.abs(below - quantile * t.size)
    return epsilon * score / (2.0 * score_sensitivity(quantile))


def choose_bound(totals: np.ndarray, per_window: int, windows: int, epsilon: float, rng: np.random.Generator,
                 quantile: float = QUANTILE) -> int:
    """L drawn by the exponential mechanism at ``epsilon`` from :func:`ladder`, near the ``quantile`` of the
    users' ``totals`` (:func:`psdviz.temporal.bounding.kept_totals` after the bound a window)."""
    cands = ladder(per_window, windows)
    lw = log_weights(totals, cands, epsilon, quantile)
    return int(cands[segment_gumbel_max(rng, lw, np.zeros(1, np.int64))[0]])


def level_quantiles(levels: int) -> np.ndarray:
    """The quantile each level of a tree over time reads, root first: linear in depth from ``ROOT_QUANTILE`` to
    ``LEAF_QUANTILE``."""
    return np.linspace(ROOT_QUANTILE, LEAF_QUANTILE, int(levels))


def choose_level_bounds(totals: np.ndarray, per_window: int, windows: int, levels: int, epsilon: float,
                        rng: np.random.Generator) -> np.ndarray:
    """One L a level (root first), each drawn by :func:`choose_bound` at ``epsilon / levels`` near its level's
    quantile (:func:`level_quantiles`), then made non-increasing from the root down (each L at most its
    ancestors': post-processing of the draws, so that a lower level never carries more noise than the root nor
    raises the partition's group factor)."""
    eps = epsilon / levels
    drawn = [choose_bound(totals, per_window, windows, eps, rng, float(q)) for q in level_quantiles(levels)]
    return np.minimum.accumulate(np.asarray(drawn, dtype=np.int64))
