"""Private quantiles on the public grid, for many nodes at once: the one split operator behind the
exponential-mechanism medians (ICDE'12 section 6.1, Definition 5) and the h-tree's recursive slicing
(private h-tree paper, Algorithm 1).

A node owns the integer positions lo..hi of the public grid (its region, never the data's extent)
and holds integer keys in [lo, hi) (points quantised to grid cells: key k is the cell [k, k + 1)). A
split at position j sends keys < j left, so its rank is #{keys < j}. The candidates are the interior
positions p0..p1 = lo + 1 .. hi - 1, so that neither part is narrower than one grid step (the data's
precision); a region one step wide (or empty) has no interior and keeps lo..hi.

Reading of Definition 5 (chosen in session 9, issue 16). The paper's mechanism draws a *continuous*
split x with density proportional to exp(-epsilon |rank(x) - f n| / 2). On the grid the order of the
points inside one cell is lost, so we read a cell's w points as spread evenly across it (the placement
the DPBench protocol itself uses): the rank is r(x) = R + w (x - k) on cell [k, k + 1), R the weight of
the keys below k, a piecewise-linear function. x is drawn on [p0 - 1/2, p1 + 1/2) with that density and
the released split is the grid position nearest to x (post-processing; the output set is the
candidates, whatever the data). Sensitivity: one point added in cell k moves r(x) by 0 below the cell,
by x - k in [0, 1) inside it and by 1 above it, and the target f n by f, in the same direction, so
|r(x) - f n| moves by at most max(f, 1 - f) <= 1 (1/2 for the median): the density ratio is within
e^epsilon pointwise, hence also for the mass of every output position.

Why not the earlier reading (the same density with r constant between keys, i.e. the whole jump of a
cell at its edges): a cell holding most of the points then makes every position on one side of it
score alike, and the split lands anywhere (ADULT-2D's cell (0, 0) holds 87 % of its rows: the kd-tree's
first x split fell uniformly over 1..255). Read continuously, the median lies inside that cell and the
nearest position isolates it. Measured on the DPBench protocol (``benchmarks/bench_dpbench.py``, 5
runs, kd-tree MRE at epsilon 0.1 / 1): ADULT-2D 3.98 / 0.050 -> 1.90 / 0.0032, GOWALLA 0.123 / 0.067 ->
0.087 / 0.025, SF-CABS-S 0.40 / 0.24 -> 0.32 / 0.34 (0.48 -> 0.29 over 15 further runs at 1),
BJ-CABS-E 0.24 / 0.20 -> 0.23 / 0.19, synthetic1M 0.053 / 0.020 -> 0.047 / 0.021, STROKE 1.11 / 0.24 ->
1.29 / 0.23 (the one cell it costs, 1.14x over 15 further runs; the prototype's kd-standard, whose
medians are continuous, has 1.12).

Sampling, in half steps: half step h covers [h/2, (h + 1)/2) and rounds to position (h + 1) // 2, so
position j owns the half steps 2j - 1 and 2j. Per node the items are: the runs of half steps in empty
cells between consecutive keys (constant rank, one group each, as many half steps as they span) and
the two halves of every occupied cell, whose mass is the closed-form integral of the density over
the half (:func:`half_cell_log_mass`). :mod:`psdviz.core.expmech` draws one item per node (Gumbel-max in
log space), then a uniform half step inside it.
"""
from __future__ import annotations

import numpy as np

from ..core.expmech import grouped_choice


def distinct_keys(keys: np.ndarray, offsets: np.ndarray, weights: np.ndarray | None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per segment, the distinct sorted keys, their offsets and multiplicities (``weights`` given:
    the keys are already distinct within each segment)."""
    if weights is not None:
        return keys, offsets, np.asarray(weights, np.int64)
    seg = np.repeat(np.arange(offsets.size - 1), np.diff(offsets))
    new = np.ones(keys.size, bool)
    new[1:] = (keys[1:] != keys[:-1]) | (seg[1:] != seg[:-1])
    starts = np.flatnonzero(new)
    return keys[starts], np.searchsorted(starts, offsets), np.diff(np.r_[starts, keys.size]).astype(np.int64)


def half_cell_log_mass(a: float, below, w, target, upper) -> np.ndarray:
    """log of the integral over half a cell (the lower half u in [0, 1/2) or the upper [1/2, 1)) of
    exp(-a |below + w u - target|) du, for cells holding w > 0 points; closed form, stable in log space."""
    u0 = np.where(upper, 0.5, 0.0)
    z0 = below + w * u0 - target
    z1 = z0 + 0.5 * w
    aw = a * np.asarray(w, float)
    with np.errstate(divide="ignore"):
        # both ends on one side of the target: e^{-a min|z|} (1 - e^{-a w / 2}) / (a w)
        one_side = -a * np.minimum(np.abs(z0), np.abs(z1)) + np.log(-np.expm1(-0.5 * aw))
        # the target inside the half: (2 - e^{-a |z0|} - e^{-a |z1|}) / (a w), in (0, 2 / (a w))
        across = np.log(2.0 - np.exp(-a * np.abs(z0)) - np.exp(-a * np.abs(z1)))
    return np.where((z0 >= 0) | (z1 <= 0), one_side, across) - np.log(aw)


def private_quantiles(rng: np.random.Generator, keys: np.ndarray, offsets: np.ndarray, lo, hi, frac,
                      epsilon: float, weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Per segment ``keys[offsets[s]:offsets[s+1]]`` (sorted ints in [lo_s, hi_s)), a private split
    position in [lo_s, hi_s] near rank ``frac_s * n_s``. Returns (positions, ranks): the rank is the
    number of the segment's keys below the position (the left part's size).

    ``weights``: the keys are *distinct* within each segment and key i stands for ``weights[i]`` equal
    keys (the grouped counts a pass over a data source returns); the law is the same as for the keys
    themselves. Memory is the number of distinct keys, not of points."""
    keys, offsets, w = distinct_keys(np.asarray(keys, np.int64), np.asarray(offsets, np.int64), weights)
    n_seg = offsets.size - 1
    lo = np.broadcast_to(np.asarray(lo, np.int64), (n_seg,))
    hi = np.broadcast_to(np.asarray(hi, np.int64), (n_seg,))
    frac = np.broadcast_to(np.asarray(frac, float), (n_seg,))
    cw = np.zeros(w.size + 1, np.int64)
    np.cumsum(w, out=cw[1:])
    m = np.diff(offsets)
    seg = np.repeat(np.arange(n_seg), m)
    below = cw[:-1] - cw[offsets[:-1]][seg]               # R: the weight below each key in its segment
    total = cw[offsets[1:]] - cw[offsets[:-1]]
    target = frac * total
    interior = hi - lo >= 2
    h0 = 2 * np.where(interior, lo + 1, lo) - 1            # half steps [h0, h1) of the candidates
    h1 = 2 * np.where(interior, hi - 1, hi) + 1
    a = epsilon / 2.0
    # items per segment: for its j-th key, the empty run before it (3j), its lower half (3j + 1) and
    # upper half (3j + 2); then the run after its last key (3m)
    n_items = 3 * m + 1
    first = np.cumsum(n_items) - n_items
    start = np.empty(int(n_items.sum()), np.int64)
    size = np.empty_like(start)
    score = np.empty(start.size)
    base = first[seg] + 3 * (np.arange(keys.size) - offsets[:-1][seg])
    prev_end = np.where(base == first[seg], h0[seg], 2 * np.r_[0, keys[:-1]] + 2)
    _run(start, size, score, base, prev_end, 2 * keys, h0[seg], h1[seg], -a * np.abs(below - target[seg]))
    for upper in (0, 1):
        h = 2 * keys + upper
        inside = (h >= h0[seg]) & (h < h1[seg])
        start[base + 1 + upper] = h
        size[base + 1 + upper] = inside
        # one half step of an empty cell has mass e^{score} / 2: log(2 * mass) puts both on one footing
        score[base + 1 + upper] = np.log(2.0) + half_cell_log_mass(a, below, w, target[seg], upper)
    last = first + 3 * m
    after = np.where(m > 0, 2 * keys[np.maximum(offsets[1:] - 1, 0)] + 2, h0) if keys.size else h0
    _run(start, size, score, last, after, h1, h0, h1, -a * np.abs(total - target))
    chosen, offset = grouped_choice(rng, score, size, first)
    pos = (start[chosen] + offset + 1) // 2
    return pos, _ranks(keys, offsets, cw, seg, pos)


def _run(start, size, score, at, begin, end, h0, h1, value) -> None:
    """Fill the items ``at`` with the half steps [begin, end) clipped to [h0, h1) and their score."""
    s, e = np.maximum(begin, h0), np.minimum(end, h1)
    start[at], size[at], score[at] = s, np.maximum(e - s, 0), value


def _ranks(keys, offsets, cw, seg, pos) -> np.ndarray:
    """Weight of each segment's keys below its chosen position (one sorted search over (segment, key))."""
    if keys.size == 0:
        return np.zeros(pos.size, np.int64)
    low = min(int(keys.min()), int(pos.min()))
    span = max(int(keys.max()), int(pos.max())) - low + 1
    s = np.arange(offsets.size - 1, dtype=np.int64)
    idx = np.searchsorted(seg * span + (keys - low), s * span + (pos - low), side="left")
    return cw[idx] - cw[offsets[:-1]]
