"""Exponential-mechanism medians (ICDE'12 section 6.1, Definition 5), many nodes at once.

For a node with sorted values x_1 <= ... <= x_n in its *region* [lo, hi] (public bounds, never the
data's min/max), the gaps I_0 = [lo, x_1), I_k = [x_k, x_{k+1}), I_n = [x_n, hi] hold every
output; I_k is chosen with probability proportional to |I_k| exp(-epsilon/2 |k - n/2|), then a
uniform point inside it is returned. Sampling is done in log space with the Gumbel-max trick,
segment-wise for all nodes of a level in one pass.

Reading of "rank(x_m)": we use n/2 (the exact middle rank, also for even n). The score
-|rank(x) - n/2| changes by at most 1/2 when one point is added or removed (rank(x) moves by 0
or 1 and n/2 by 1/2 in the same direction or not at all), so the paper's weights
exp(-epsilon/2 |.|), calibrated for sensitivity 1, are epsilon-DP with room to spare. We keep the
paper's constant so Figure 4 is reproduced as published.
"""
from __future__ import annotations

import numpy as np

from .segments import segment_argmax


def em_medians(rng: np.random.Generator, values: np.ndarray, offsets: np.ndarray, lo: np.ndarray,
               hi: np.ndarray, epsilon: float) -> np.ndarray:
    """One private median per segment (``values`` sorted inside each segment, within [lo, hi])."""
    offsets = np.asarray(offsets, dtype=np.int64)
    n_seg = offsets.size - 1
    counts = np.diff(offsets)
    lo = np.broadcast_to(np.asarray(lo, float), (n_seg,))
    hi = np.broadcast_to(np.asarray(hi, float), (n_seg,))
    shift = 2 * np.arange(n_seg)
    first = offsets[:-1] + shift            # position of lo in the edge array
    last = offsets[1:] + shift + 1          # position of hi
    edges = np.empty(values.size + 2 * n_seg)
    edges[first], edges[last] = lo, hi
    seg_of_val = np.repeat(np.arange(n_seg), counts)
    edges[np.arange(values.size) + 2 * seg_of_val + 1] = np.clip(values, lo[seg_of_val], hi[seg_of_val])
    # gap i lies between edges[i] and edges[i + 1]; segment s owns gaps first[s] .. last[s] - 1
    seg = np.repeat(np.arange(n_seg), counts + 2)[:-1]
    rank = np.arange(edges.size - 1) - first[seg]
    with np.errstate(divide="ignore"):
        logw = np.log(np.maximum(np.diff(edges), 0.0)) - 0.5 * epsilon * np.abs(rank - counts[seg] / 2.0)
    logw[last[:-1]] = -np.inf               # the step from one segment's hi to the next's lo
    key = logw + rng.gumbel(size=logw.size)
    j = segment_argmax(key, first)
    out = rng.uniform(edges[j], edges[j + 1])
    return np.where(hi > lo, out, lo)


def em_interval_probabilities(values: np.ndarray, lo: float, hi: float, epsilon: float) -> tuple[np.ndarray, np.ndarray]:
    """Exact law of Definition 5 for one node: (edges, probability of each gap). For tests and
    teaching; uses a log-sum-exp normalisation."""
    x = np.sort(np.asarray(values, float))
    edges = np.r_[lo, x, hi]
    rank = np.arange(x.size + 1)
    with np.errstate(divide="ignore"):
        logw = np.log(np.diff(edges)) - 0.5 * epsilon * np.abs(rank - x.size / 2.0)
    logw -= logw[np.isfinite(logw)].max()
    w = np.exp(logw)
    return edges, w / w.sum()
