"""Private quantiles on the public grid, for many nodes at once: the one split operator behind the
exponential-mechanism medians (ICDE'12 section 6.1, Definition 5) and the h-tree's recursive slicing
(private h-tree paper, Algorithm 1).

A node owns the integer positions lo..hi of the public grid (its region, never the data's extent)
and holds sorted integer keys x_1 <= ... <= x_n in [lo, hi) (points quantised to grid cells). A
split at position j sends keys < j left, so its rank is #{x_i < j}. The candidates are the interior
positions lo + 1 .. hi - 1, so that neither part is narrower than one grid step (the data's
precision); a region one step wide (or empty) has no interior and keeps lo..hi. The positions with
rank g form one run: [lo', x_1] (g = 0), [x_g + 1, x_{g+1}] (0 < g < n, empty where x_g = x_{g+1})
and [x_n + 1, hi'] (g = n), where lo'..hi' are the candidates. Position j is chosen with probability proportional to
exp(-epsilon |rank(j) - f n| / 2) by the grouped exponential mechanism of :mod:`psdviz.core.expmech`:
a run by Gumbel-max over log(run length) - epsilon |g - f n| / 2, then a uniform integer in it.

Sensitivity: adding or removing one point moves rank(j) by 0 or 1 and the target f n by f <= 1 in the
same direction, so |rank - f n| moves by at most max(f, 1 - f) <= 1 (1/2 for the median); the
weights exp(-epsilon |.| / 2) are epsilon-DP. The output is an integer position: its set of possible
values is the region's grid positions, whatever the data.
"""
from __future__ import annotations

import numpy as np

from ..core.expmech import grouped_choice


def private_quantiles(rng: np.random.Generator, keys: np.ndarray, offsets: np.ndarray, lo, hi, frac,
                      epsilon: float, weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Per segment ``keys[offsets[s]:offsets[s+1]]`` (sorted ints in [lo_s, hi_s)), a private split
    position in [lo_s, hi_s] near rank ``frac_s * n_s``. Returns (positions, ranks): the rank is the
    number of the segment's keys below the position (the left part's size).

    ``weights``: the keys are *distinct* within each segment and key i stands for ``weights[i]`` equal
    keys (the grouped counts a pass over a data source returns). The law is the same: the runs
    between equal keys, which have no positions, are simply not listed, and a run's rank is the
    cumulative weight below it. Memory is then the number of distinct keys, not of points."""
    keys = np.asarray(keys, dtype=np.int64)
    offsets = np.asarray(offsets, dtype=np.int64)
    n_seg = offsets.size - 1
    lo = np.broadcast_to(np.asarray(lo, np.int64), (n_seg,))
    hi = np.broadcast_to(np.asarray(hi, np.int64), (n_seg,))
    frac = np.broadcast_to(np.asarray(frac, float), (n_seg,))
    n = np.diff(offsets)
    if weights is not None:
        w = np.asarray(weights, dtype=np.int64)
        cw = np.zeros(w.size + 1, np.int64)
        np.cumsum(w, out=cw[1:])
        total_w = cw[offsets[1:]] - cw[offsets[:-1]]
    interior = hi - lo >= 2
    lo, hi = np.where(interior, lo + 1, lo), np.where(interior, hi - 1, hi)
    runs = n + 1
    first = np.cumsum(runs) - runs                   # global index of run 0 of each segment
    last = first + n                                 # global index of run n
    total = int(runs.sum())
    # run g of a segment is [x_g + 1, x_{g+1}]: the keys, in segment order, start the non-first runs
    # (plus one) and end the non-last runs; the region's bounds close each segment
    start = np.empty(total, np.int64)
    end = np.empty(total, np.int64)
    not_first = np.ones(total, bool)
    not_first[first] = False
    not_last = np.ones(total, bool)
    not_last[last] = False
    start[not_first] = keys + 1
    start[first] = lo
    end[not_last] = keys
    end[last] = hi
    sizes = np.maximum(end - start + 1, 0)
    if weights is None:
        rank = np.arange(total) - np.repeat(first, runs)     # run g has rank g
        target = frac * n
    else:   # run g of a segment has rank = weight of its first g distinct keys
        seg_start = np.repeat(offsets[:-1], runs)
        rank = cw[seg_start + (np.arange(total) - np.repeat(first, runs))] - cw[seg_start]
        target = frac * total_w
    score = np.abs(rank - np.repeat(target, runs))
    score *= -(epsilon / 2.0)
    chosen, offset = grouped_choice(rng, score, sizes, first)
    return start[chosen] + offset, rank[chosen]
