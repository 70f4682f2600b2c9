"""Split positions chosen by the exponential mechanism on a count-imbalance score (kd-privtree).

Candidates (fixed by the node's rectangle before any count is read, so the released position is on the
public grid): on each axis where the node is at least two grid steps wide, the positions at distance
1, 2, 4, ... from either edge and the midpoint ("dyadic" positions). Few candidates with large score gaps
let a small per-node epsilon still find an edge of the data; every integer position as a candidate
spread the same epsilon over 255 near-equal scores (our prototype on the DPBench protocol: ADULT-2D at
epsilon 0.1 0.86 with every position against 0.21 with the dyadic set, 5 runs).

Score of a split at s of a node with count c: |c_L(s) - c (s - lo) / (hi - lo)|, the distance between
the count left of s and the share of c its area would hold under uniformity. It is largest at the edge
of a dense or empty part, so the split cuts empty space away from the data. Sensitivity: one more point
on the left moves c_L - a c by 1 - a, on the right by -a (a in (0, 1)), so at most 1; the mechanism
draws with weight exp(epsilon * score / 2) (McSherry and Talwar; sampled in log space by
:func:`psdviz.core.expmech.segment_gumbel_max`).
"""
from __future__ import annotations

import numpy as np

from ..core.expmech import segment_gumbel_max


def dyadic_offsets(width: np.ndarray, bits: int) -> tuple[np.ndarray, np.ndarray]:
    """Per node of ``width`` grid steps, its distinct candidate offsets in (0, width): 2^k and
    width - 2^k (k < bits) and width // 2. Returns a (nodes, 2 bits + 1) matrix, sorted per row, and the
    mask of valid (in range, first of equal) entries."""
    w = np.asarray(width, np.int64)[:, None]
    p = np.int64(1) << np.arange(bits, dtype=np.int64)
    off = np.sort(np.concatenate([np.broadcast_to(p, (w.shape[0], bits)), w - p, w // 2], axis=1), axis=1)
    ok = (off > 0) & (off < w)
    ok[:, 1:] &= off[:, 1:] != off[:, :-1]
    return off, ok


def candidates(rect: np.ndarray, bits: int) -> dict[str, np.ndarray]:
    """Flat candidate list over nodes (x candidates, then y, per node): owner node, axis, position,
    and ``starts`` (first candidate of each node). A node needs at least one axis >= 2 steps wide."""
    parts = []
    for axis in (0, 1):
        lo, hi = rect[:, axis], rect[:, axis + 2]
        off, ok = dyadic_offsets(hi - lo, bits)
        parts.append((lo[:, None] + off, ok, np.full(off.shape, axis)))
    pos = np.concatenate([p[0] for p in parts], axis=1)
    ok = np.concatenate([p[1] for p in parts], axis=1)
    ax = np.concatenate([p[2] for p in parts], axis=1)
    n_per = ok.sum(1)
    if (n_per == 0).any():
        raise ValueError("a node one grid step wide on both axes cannot be split")
    owner = np.repeat(np.arange(rect.shape[0]), n_per)
    return {"owner": owner, "axis": ax[ok], "pos": pos[ok], "starts": np.r_[0, np.cumsum(n_per)[:-1]]}


def left_counts(ids: np.ndarray, cnt: np.ndarray, node: np.ndarray, pos: np.ndarray, bits: int) -> np.ndarray:
    """Points of ``node`` with key < ``pos``, from one pass's grouped (node << bits | key) counts."""
    csum = np.r_[0, np.cumsum(cnt)]
    node = node.astype(np.int64)
    return csum[np.searchsorted(ids, (node << bits) | pos)] - csum[np.searchsorted(ids, node << bits)]


def imbalance(left: np.ndarray, total: np.ndarray, pos: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """|c_L - c (s - lo) / (hi - lo)|: sensitivity at most 1 (module docstring)."""
    return np.abs(left - total * (pos - lo) / (hi - lo))


def choose_splits(rng: np.random.Generator, cand: dict[str, np.ndarray], score: np.ndarray,
                  epsilon: float) -> tuple[np.ndarray, np.ndarray]:
    """Per node, (axis, position) drawn with probability proportional to exp(epsilon * score / 2):
    epsilon-DP per node, nodes of one depth being disjoint."""
    pick = segment_gumbel_max(rng, epsilon * score / 2.0, cand["starts"])
    return cand["axis"][pick], cand["pos"][pick]
