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
                      epsilon: float) -> tuple[np.ndarray, np.ndarray]:
    """Per segment ``keys[offsets[s]:offsets[s+1]]`` (sorted ints in [lo_s, hi_s)), a private split
    position in [lo_s, hi_s] near rank ``frac_s * n_s``. Returns (positions, ranks): the rank is the
    number of the segment's keys below the position (the left part's size)."""
    keys = np.asarray(keys, dtype=np.int64)
    offsets = np.asarray(offsets, dtype=np.int64)
    n_seg = offsets.size - 1
    lo = np.broadcast_to(np.asarray(lo, np.int64), (n_seg,))
    hi = np.broadcast_to(np.asarray(hi, np.int64), (n_seg,))
    frac = np.broadcast_to(np.asarray(frac, float), (n_seg,))
    n = np.diff(offsets)
    interior = hi - lo >= 2
    lo, hi = np.where(interior, lo + 1, lo), np.where(interior, hi - 1, hi)
    runs = n + 1
    first = np.cumsum(runs) - runs                   # global index of run 0 of each segment
    seg = np.repeat(np.arange(n_seg), runs)
    g = np.arange(int(runs.sum())) - first[seg]       # rank of each run
    k = offsets[:-1][seg] + g                         # index of the key closing run g (x_{g+1})
    x = keys if keys.size else np.zeros(1, np.int64)  # (no key is read when every segment is empty)
    start = np.where(g == 0, lo[seg], x.take(k - 1, mode="clip") + 1)
    end = np.where(g == n[seg], hi[seg], x.take(k, mode="clip"))
    sizes = np.maximum(end - start + 1, 0)
    score = -(epsilon / 2.0) * np.abs(g - frac[seg] * n[seg])
    chosen, offset = grouped_choice(rng, score, sizes, first)
    return start[chosen] + offset, g[chosen]
