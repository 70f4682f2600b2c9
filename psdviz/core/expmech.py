"""The exponential mechanism (McSherry & Talwar 2007), sampled in log space: the one sampler every
private choice in psdviz uses (medians, slicing quantiles).

Never exponentiates scores: a choice is the Gumbel-max trick, argmax(log-weight + Gumbel(0, 1)),
whose winner has probability proportional to exp(log-weight). Many independent choices (one per
node of a tree level) run in one vectorised pass over a flat array cut into segments. Before the
noise is added, each segment is shifted by its top finite log-weight (which does not change the
law), so Gumbel noise of order 1 is never lost to rounding next to huge scores.

Grouped form (issue "public grid"; ICDE'12 Definition 5 on a discrete output set): the candidates are
integer grid positions, and runs of consecutive positions share one score (the positions between
two consecutive data values have the same rank). A group of ``size`` positions with score s gets
log-weight log(size) + s; the chosen group's position is then uniform over its integers. This is
exactly the exponential mechanism over the positions themselves, without listing them.
"""
from __future__ import annotations

import numpy as np


def segment_gumbel_max(rng: np.random.Generator, log_weights: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Per segment ``log_weights[starts[s]:starts[s+1]]`` (the last runs to the end), the global index
    drawn with probability proportional to exp(log_weight); ``-inf`` entries are never chosen.

    Every segment must be non-empty and hold at least one finite entry."""
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
    key -= np.log(rng.standard_exponential(lw.size))   # + Gumbel(0, 1)
    best = np.maximum.reduceat(key, starts)
    hit = np.flatnonzero(key == np.repeat(best, lengths))     # every segment has at least one
    owner = np.searchsorted(starts, hit, side="right")
    return hit[np.r_[True, owner[1:] != owner[:-1]]]          # the first hit of each segment


def grouped_choice(rng: np.random.Generator, scores: np.ndarray, sizes: np.ndarray,
                   starts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Exponential mechanism over integer positions given as groups.

    Group g holds ``sizes[g]`` positions, each with log-weight ``scores[g]`` (epsilon * score /
    (2 * sensitivity), computed by the caller). Returns, per segment, the chosen group (global index)
    and a uniform offset in [0, sizes[g]) inside it. Groups of size 0 are never chosen."""
    sizes = np.asarray(sizes, dtype=np.int64)
    with np.errstate(divide="ignore"):
        lw = np.log(sizes.astype(float)) + np.asarray(scores, dtype=float)
    g = segment_gumbel_max(rng, lw, starts)
    return g, rng.integers(0, sizes[g])
