"""Exponential mechanism sampled in log space (McSherry & Talwar 2007).

Never exponentiates large numbers: discrete choices use the Gumbel-max trick
(argmax of log-weight + Gumbel noise), and the interval form (ICDE'12 Definition 5) samples an
interval by Gumbel-max over log(length) + score, then a uniform point inside it.
"""
from __future__ import annotations

import numpy as np


def gumbel_max(rng: np.random.Generator, log_weights: np.ndarray) -> int:
    """Index i drawn with probability proportional to exp(log_weights[i]).

    ``-inf`` entries are never chosen; at least one entry must be finite.
    """
    lw = np.asarray(log_weights, dtype=float)
    if lw.ndim != 1 or lw.size == 0 or not np.isfinite(lw).any():
        raise ValueError("exponential mechanism needs at least one candidate with a finite score")
    # shift by the largest finite score (does not change the law) so that Gumbel noise of order 1
    # is not lost to rounding when scores are huge (e.g. 1e17 + g == 1e17 in float64)
    return int(np.argmax((lw - lw[np.isfinite(lw)].max()) + rng.gumbel(size=lw.shape)))


def gumbel_max_rows(rng: np.random.Generator, log_weights: np.ndarray) -> np.ndarray:
    """Row-wise Gumbel-max: one independent draw per row of a 2-D array of log-weights."""
    lw = np.asarray(log_weights, dtype=float)
    if lw.ndim != 2 or lw.shape[1] == 0:
        raise ValueError("gumbel_max_rows needs a non-empty 2-D array")
    if not np.isfinite(lw).any(axis=1).all():
        raise ValueError("every row needs at least one candidate with a finite score")
    top = np.max(np.where(np.isfinite(lw), lw, -np.inf), axis=1, keepdims=True)
    return np.argmax((lw - top) + rng.gumbel(size=lw.shape), axis=1)


def exponential_interval(rng: np.random.Generator, edges: np.ndarray, scores: np.ndarray,
                         epsilon: float, sensitivity: float = 1.0) -> float:
    """Sample a point from the interval form of the exponential mechanism.

    ``edges`` (sorted, length k+1) cut [edges[0], edges[-1]] into k intervals; interval j has
    ``scores[j]``. The output density is proportional to exp(epsilon * score / (2 sensitivity)),
    so interval j is chosen with probability proportional to its length times that weight
    (sampled in log space), and the point is uniform within it.
    """
    edges = np.asarray(edges, dtype=float)
    scores = np.asarray(scores, dtype=float)
    if edges.ndim != 1 or edges.size != scores.size + 1:
        raise ValueError("edges must have one more entry than scores")
    lengths = np.diff(edges)
    with np.errstate(divide="ignore"):
        logw = np.log(lengths) + epsilon * scores / (2.0 * sensitivity)
    j = gumbel_max(rng, logw)
    return float(rng.uniform(edges[j], edges[j + 1])) if lengths[j] > 0 else float(edges[j])
