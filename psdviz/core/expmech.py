"""The exponential mechanism (McSherry & Talwar 2007), sampled in log space: the one sampler every
private choice in psdviz uses (medians, slicing quantiles).

Never exponentiates scores: a choice is the Gumbel-max trick, argmax(log-weight + Gumbel(0, 1)),
whose winner has probability proportional to exp(log-weight). Many independent choices (one per
node of a tree level) run in one vectorised pass over a flat array cut into segments. Before the
noise is added, each segment is shifted by its top finite log-weight (which does not change the
law), so Gumbel noise of order 1 is never lost to rounding next to huge scores.

Callers list groups rather than single outputs where many outputs share one weight: the quantile
operator (:mod:`psdviz.splits.quantile`) gives a run of ``size`` half steps of equal mass the
log-weight log(size) + score and then draws a uniform half step inside the chosen run, which is exactly
the mechanism over the half steps themselves, without listing them.
"""
from __future__ import annotations

import numpy as np


def gumbel(rng: np.random.Generator, n: int) -> np.ndarray:
    """n standard Gumbel(0, 1) draws: -log of standard exponentials."""
    return -np.log(rng.standard_exponential(n))


def segment_gumbel_max(rng: np.random.Generator, log_weights: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Per segment ``log_weights[starts[s]:starts[s+1]]`` (the last runs to the end), the global index
    drawn with probability proportional to exp(log_weight); ``-inf`` entries are never chosen.

    Every segment must be non-empty and hold at least one finite entry."""
    return segment_gumbel_argmax(rng, log_weights, starts)[0]


def segment_gumbel_argmax(rng: np.random.Generator, log_weights: np.ndarray, starts: np.ndarray
                          ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`segment_gumbel_max` and, per segment, the winning value max(log_weight + Gumbel): a draw
    from Gumbel(log of the segment's total weight), independent of the winner (which lets a caller
    compare the segment with weight it has not listed yet)."""
    lw = np.asarray(log_weights, dtype=float)
    starts = np.asarray(starts, dtype=np.int64)
    if lw.size == 0 or starts.size == 0:
        raise ValueError("exponential mechanism needs at least one candidate")
    lengths = np.diff(np.r_[starts, lw.size])
    if (lengths <= 0).any():
        raise ValueError("exponential mechanism: every segment needs at least one candidate")
    if np.isnan(lw).any() or (lw == np.inf).any():
        raise ValueError("exponential mechanism: log-weights must be finite or -inf")
    top = np.maximum.reduceat(lw, starts)
    if not np.isfinite(top).all():
        raise ValueError("exponential mechanism needs at least one candidate with a finite score per segment")
    key = lw - np.repeat(top, lengths)              # shift: Gumbel noise keeps its precision
    key += gumbel(rng, lw.size)
    best = np.maximum.reduceat(key, starts)
    hit = np.flatnonzero(key == np.repeat(best, lengths))     # every segment has at least one
    owner = np.searchsorted(starts, hit, side="right")
    return hit[np.r_[True, owner[1:] != owner[:-1]]], best + top          # the first hit of each segment
