"""Exponential-mechanism medians (ICDE'12 section 6.1, Definition 5), many nodes at once.

For a node with sorted values x_1 <= ... <= x_n in its *region* [lo, hi] (public bounds, never the
data's min/max), the gaps I_0 = [lo, x_1), I_k = [x_k, x_{k+1}), I_n = [x_n, hi] hold every
output; I_k is chosen with probability proportional to |I_k| exp(-epsilon/2 |k - n/2|), then a
uniform point inside it is returned. Sampling is done in log space with the Gumbel-max trick
(a Gumbel variable is -log of a standard exponential, the cheaper draw), segment-wise for all
nodes of a level in one pass.

Reading of "rank(x_m)": we use n/2 (the exact middle rank, also for even n). The score
-|rank(x) - n/2| changes by at most 1/2 when one point is added or removed (rank(x) moves by 0
or 1 and n/2 by 1/2 in the same direction or not at all), so the paper's weights
exp(-epsilon/2 |.|), calibrated for sensitivity 1, are epsilon-DP with room to spare. We keep the
paper's constant so Figure 4 is reproduced as published.
"""
from __future__ import annotations

import numpy as np


def em_medians(rng: np.random.Generator, values: np.ndarray, offsets: np.ndarray, lo: np.ndarray,
               hi: np.ndarray, epsilon: float) -> np.ndarray:
    """One private median per segment (``values`` sorted inside each segment, within [lo, hi]).

    Layout: the gap *before* value i (from the previous value of its node, or from lo) sits at
    position i of a values-aligned array, whose rank is the number of the node's values before
    it; each node's last gap (to hi; the whole region for an empty node) is kept apart. Values
    outside [lo, hi] would give negative gaps, which get weight 0.
    """
    values = np.asarray(values, dtype=float)
    offsets = np.asarray(offsets, dtype=np.int64)
    n_seg = offsets.size - 1
    counts = np.diff(offsets)
    lo = np.broadcast_to(np.asarray(lo, float), (n_seg,))
    hi = np.broadcast_to(np.asarray(hi, float), (n_seg,))
    c = 0.5 * epsilon
    full = counts > 0
    starts = offsets[:-1][full]
    gap = np.empty(values.size)
    gap[1:] = values[1:] - values[:-1]
    gap[starts] = values[starts] - lo[full]
    seg = np.repeat(np.arange(n_seg), counts)
    centre = (offsets[:-1] + counts / 2.0)[seg]            # rank - n/2 = i - (offset + n/2)
    with np.errstate(divide="ignore"):
        key = np.log(np.maximum(gap, 0.0)) - c * np.abs(np.arange(values.size) - centre)
        key -= np.log(rng.standard_exponential(values.size))   # + Gumbel(0, 1): Gumbel-max
        x_last = np.where(full, values[np.maximum(offsets[1:] - 1, 0)] if values.size else lo, lo)
        last_key = (np.log(np.maximum(hi - x_last, 0.0)) - c * counts / 2.0
                    - np.log(rng.standard_exponential(n_seg)))
    best = np.full(n_seg, -np.inf)
    pick = np.full(n_seg, -1, dtype=np.int64)
    if starts.size:
        best[full] = np.maximum.reduceat(key, starts)
        pos = np.where(key == best[seg], np.arange(values.size), values.size)
        pick[full] = np.minimum.reduceat(pos, starts)
    inner = (best >= last_key) & np.isfinite(best)
    i = np.where(inner, pick, 0)
    left = np.where(inner, np.where(i == offsets[:-1], lo, values[np.maximum(i - 1, 0)] if values.size else lo), x_last)
    right = np.where(inner, values[i] if values.size else hi, hi)
    out = rng.uniform(left, np.maximum(left, right))
    return np.where(hi > lo, np.clip(out, lo, hi), lo)


def em_interval_probabilities(values: np.ndarray, lo: float, hi: float,
                              epsilon: float) -> tuple[np.ndarray, np.ndarray]:
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
