"""Private recursive slicing (private h-tree paper, section 4.2.4, Algorithm 1), vectorised.

Many independent groups are sliced at once (all strips of a level, say): group g holds its values
sorted in ``v[start_g:end_g]``, a public region [lo_g, hi_g] and a target number of parts P_g.
Each round splits every live range of P >= 2 parts into P_left = P/2 or (P+1)/2 parts (a fair coin
decides for odd P: Algorithm 1 line 5, ``random(P/2, (P+1)/2)``) and the rest, at a private
quantile: the exponential mechanism over the grid positions of the range's *region* lo..hi
(:func:`psdviz.splits.quantile.private_quantiles`: values are integer keys on the public grid, the
split is a grid position) with score -|rank(x) - n P_left / P| (sensitivity 1: adding a point moves the
rank by at most 1 and the target by P_left/P <= 1, in opposite directions at most by
max(f, 1 - f) <= 1). The chosen position splits the region in two; keys < split go left.
Ranges in one round are disjoint, so a round costs its epsilon once (parallel composition), and
there are at most ceil(log2 P) rounds (sequential).

The "at least T = 32 points" rule of Algorithm 1 (line 4) would branch on a true count, which is
not private. Our reading: a range is split only if its *expected* count from released values,
``expected_per_part_g * P`` (the group's public or noisy count divided by its target parts, the
ranges being equal-depth by construction), is at least T; otherwise the range stays one part.
This costs nothing and keeps the branch a function of released values only. Likewise a range one
grid step wide (public: its bounds are released) is not cut, so no part is narrower than one step.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .quantile import index_ranges, private_quantiles

MIN_POINTS = 32


@dataclass
class Slices:
    """Split results: per group, sorted split values and their positions in the sorted array."""

    group: np.ndarray      # group of each split, sorted by (group, value)
    value: np.ndarray      # split positions (integers of the public grid)
    position: np.ndarray   # global index in ``v`` of the first point >= value (i.e. left count + start)
    rounds: np.ndarray     # per group: rounds in which the group had at least one split
    n_rounds: int          # rounds run overall (each cost ``epsilon_round``)
    splits_per_round: list[int]


def slice_groups(rng: np.random.Generator, v: np.ndarray, start: np.ndarray, end: np.ndarray, lo: np.ndarray,
                 hi: np.ndarray, parts: np.ndarray, expected_per_part: np.ndarray, epsilon_round: float,
                 min_points: float = MIN_POINTS, weights: np.ndarray | None = None) -> Slices:
    """Algorithm 1 for every group at once (one numpy pass over the live ranges per round).

    ``weights``: the values are distinct within each group and value i stands for ``weights[i]``
    points (a source's grouped counts): the same law and the same draws as the expanded values, and
    ``position`` indexes the distinct values (memory: distinct values, not points)."""
    n_groups = start.size
    r_group, r_start, r_end = np.arange(n_groups), start.astype(np.int64), end.astype(np.int64)
    r_lo, r_hi, r_parts = lo.astype(np.int64), hi.astype(np.int64), parts.astype(np.int64)
    out_g, out_v, out_p, per_round = [], [], [], []
    rounds = np.zeros(n_groups, dtype=np.int64)
    while True:
        live = ((r_parts >= 2) & (expected_per_part[r_group] * r_parts >= min_points)
                & (r_hi - r_lo >= 2))            # a range one grid step wide cannot be cut
        if not live.any():
            break
        g, s, e, a, b, p = (x[live] for x in (r_group, r_start, r_end, r_lo, r_hi, r_parts))
        left_parts = p // 2 + ((p % 2 == 1) & (rng.random(p.size) < 0.5))
        value, rank, index = _quantiles(rng, v, s, e, a, b, left_parts / p, epsilon_round, weights)
        pos = s + rank if weights is None else s + index
        out_g.append(g)
        out_v.append(value)
        out_p.append(pos)
        per_round.append(int(g.size))
        rounds += np.bincount(g, minlength=n_groups) > 0
        r_group = np.r_[g, g]
        r_start, r_end = np.r_[s, pos], np.r_[pos, e]
        r_lo, r_hi = np.r_[a, value], np.r_[value, b]
        r_parts = np.r_[left_parts, p - left_parts]
    if out_g:
        g, val, pos = np.concatenate(out_g), np.concatenate(out_v), np.concatenate(out_p)
        order = np.lexsort((val, g))
        g, val, pos = g[order], val[order], pos[order]
    else:
        g, val, pos = np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64)
    return Slices(g, val, pos, rounds, len(per_round), per_round)


def _quantiles(rng, v, s, e, lo, hi, frac, epsilon, weights=None):
    """Private quantile positions of the live ranges v[s:e] (gathered into contiguous segments), their
    ranks and the number of each range's values below the position."""
    n = e - s
    offsets = np.r_[0, np.cumsum(n)]
    if (s[1:] == e[:-1]).all():                 # ranges side by side (most rounds): a view, no gather
        part = slice(int(s[0]), int(e[-1])) if s.size else slice(0, 0)
        keys, w = v[part], None if weights is None else weights[part]
    else:
        idx = index_ranges(s, e)[0]
        keys, w = v[idx], None if weights is None else weights[idx]
    value, rank, index = private_quantiles(rng, keys, offsets, lo, hi, frac, epsilon, w, with_index=True)
    return value, rank, index - offsets[:-1]
