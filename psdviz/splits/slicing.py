"""Private recursive slicing (private h-tree paper, section 4.2.4, Algorithm 1), vectorised.

Many independent groups are sliced at once (all strips of a level, say): group g holds its values
sorted in ``v[start_g:end_g]``, a public region [lo_g, hi_g] and a target number of parts P_g.
Each round splits every live range of P >= 2 parts into P_left = P/2 or (P+1)/2 parts (a fair coin
decides for odd P: Algorithm 1 line 5, ``random(P/2, (P+1)/2)``) and the rest, at a private
quantile: the exponential mechanism (interval form, in log space by Gumbel-max) over the range's
*region* [lo, hi] with score -|rank(x) - n P_left / P| (sensitivity 1: adding a point moves the
rank by at most 1 and the target by P_left/P <= 1, in opposite directions at most by
max(f, 1 - f) <= 1). The chosen point splits the region in two; points with value < split go left.
Ranges in one round are disjoint, so a round costs its epsilon once (parallel composition), and
there are at most ceil(log2 P) rounds (sequential).

The "at least T = 32 points" rule of Algorithm 1 (line 4) would branch on a true count, which is
not private. Our reading: a range is split only if its *expected* count from released values,
``expected_per_part_g * P`` (the group's public or noisy count divided by its target parts, the
ranges being equal-depth by construction), is at least T; otherwise the range stays one part.
This costs nothing and keeps the branch a function of released values only.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

MIN_POINTS = 32


@dataclass
class Slices:
    """Split results: per group, sorted split values and their positions in the sorted array."""

    group: np.ndarray      # group of each split, sorted by (group, value)
    value: np.ndarray      # split values
    position: np.ndarray   # global index in ``v`` of the first point >= value (i.e. left count + start)
    rounds: np.ndarray     # per group: rounds in which the group had at least one split
    n_rounds: int          # rounds run overall (each cost ``epsilon_round``)
    splits_per_round: list[int]


def slice_groups(rng: np.random.Generator, v: np.ndarray, start: np.ndarray, end: np.ndarray, lo: np.ndarray,
                 hi: np.ndarray, parts: np.ndarray, expected_per_part: np.ndarray, epsilon_round: float,
                 min_points: float = MIN_POINTS) -> Slices:
    """Algorithm 1 for every group at once (one numpy pass over the live ranges per round)."""
    n_groups = start.size
    r_group, r_start, r_end = np.arange(n_groups), start.astype(np.int64), end.astype(np.int64)
    r_lo, r_hi, r_parts = lo.astype(float), hi.astype(float), parts.astype(np.int64)
    out_g, out_v, out_p, per_round = [], [], [], []
    rounds = np.zeros(n_groups, dtype=np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):   # gaps across group ends are never used
        log_gap = np.log(np.diff(v)) if v.size > 1 else np.zeros(1)   # log length of inner intervals
    while True:
        live = (r_parts >= 2) & (expected_per_part[r_group] * r_parts >= min_points)
        if not live.any():
            break
        g, s, e, a, b, p = (x[live] for x in (r_group, r_start, r_end, r_lo, r_hi, r_parts))
        left_parts = p // 2 + ((p % 2 == 1) & (rng.random(p.size) < 0.5))
        value, pos = _private_quantile(rng, v, log_gap, s, e, a, b, left_parts / p, epsilon_round)
        out_g.append(g)
        out_v.append(value)
        out_p.append(pos)
        per_round.append(int(g.size))
        rounds[np.unique(g)] += 1
        r_group = np.r_[g, g]
        r_start, r_end = np.r_[s, pos], np.r_[pos, e]
        r_lo, r_hi = np.r_[a, value], np.r_[value, b]
        r_parts = np.r_[left_parts, p - left_parts]
    if out_g:
        g, val, pos = np.concatenate(out_g), np.concatenate(out_v), np.concatenate(out_p)
        order = np.lexsort((val, g))
        g, val, pos = g[order], val[order], pos[order]
    else:
        g, val, pos = np.zeros(0, np.int64), np.zeros(0), np.zeros(0, np.int64)
    return Slices(g, val, pos, rounds, len(per_round), per_round)


def _private_quantile(rng, v, log_gap, s, e, lo, hi, frac, epsilon):
    """Per range, a point of [lo, hi] by the exponential mechanism around rank frac * n.

    Interval j of a range with n points is [lo, v0] (j = 0), [v_{j-1}, v_j], or [v_{n-1}, hi]
    (j = n); its log-weight is log(length) - epsilon |j - frac n| / 2, and Gumbel-max picks one
    (Gumbel noise as -log of a standard exponential)."""
    n = e - s
    length = n + 1
    off = np.cumsum(length) - length
    gi = np.arange(int(length.sum()))                # interval j of range r has global index off_r + j
    # its right data point is v[s_r + j]; the gap to its left is log_gap[s_r + j - 1]
    key = log_gap.take(gi + np.repeat(s - off - 1, length), mode="clip")
    with np.errstate(divide="ignore", invalid="ignore"):
        first_v = v[np.minimum(s, v.size - 1)]
        last_v = v[np.maximum(e - 1, 0)]
        key[off] = np.log(np.where(n > 0, first_v, hi) - lo)
        key[off + n] = np.log(hi - np.where(n > 0, last_v, lo))
    key -= (epsilon / 2.0) * np.abs(gi - np.repeat(off + frac * n, length))   # |j - frac n|
    key -= np.log(rng.standard_exponential(key.size))
    best = np.maximum.reduceat(key, off)
    hit = np.flatnonzero(key == np.repeat(best, length))
    owner = np.searchsorted(off, hit, side="right") - 1   # every range has at least one hit (its maximum)
    first = hit[np.r_[True, owner[1:] != owner[:-1]]]
    jj = first - off
    left = np.where(jj == 0, lo, v[np.maximum(s + jj - 1, 0)])
    right = np.where(jj == n, hi, v[np.minimum(s + jj, v.size - 1)])
    value = np.clip(rng.uniform(left, right), lo, hi)
    pos = s + jj
    # ties: points equal to the split value belong to the right part
    tie = (jj > 0) & (v[np.maximum(pos - 1, 0)] >= value)
    for r in np.flatnonzero(tie):   # measure-zero event (value drawn exactly at a data point)
        pos[r] = s[r] + int(np.searchsorted(v[s[r]:s[r] + jj[r]], value[r], side="left"))
    return value, pos
