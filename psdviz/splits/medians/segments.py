"""Segment helpers: many nodes' sorted values in one flat array, processed together.

A level of a tree is handled in one pass: the values of all nodes sit in one array, sorted by
(node, value), and ``offsets`` (length n_nodes + 1) marks where each node's run starts. These
helpers do per-segment reductions and the stable re-partition after a split with numpy only.
"""
from __future__ import annotations

import numpy as np


def segment_ids(offsets: np.ndarray) -> np.ndarray:
    """Segment index of every element (segments may be empty)."""
    counts = np.diff(offsets)
    return np.repeat(np.arange(counts.size), counts)


def segment_argmax(key: np.ndarray, starts: np.ndarray, last: bool = False) -> np.ndarray:
    """Per segment (non-empty, starting at ``starts``, covering ``key`` to its end) the index of
    the first (or last) maximal entry. Entries equal to -inf count as candidates only if the whole
    segment is -inf (the caller handles that case)."""
    seg = np.repeat(np.arange(starts.size), np.diff(np.r_[starts, key.size]))
    best = np.maximum.reduceat(key, starts)
    pos = np.arange(key.size)
    if last:
        return np.maximum.reduceat(np.where(key == best[seg], pos, -1), starts)
    return np.minimum.reduceat(np.where(key == best[seg], pos, key.size), starts)


def split_offsets(offsets: np.ndarray, ones: np.ndarray) -> np.ndarray:
    """Offsets after every segment s splits into a left part (its zeros) and a right part (its
    ``ones[s]`` ones): child 2s then child 2s + 1."""
    counts = np.diff(offsets)
    out = np.empty(2 * counts.size + 1, dtype=np.int64)
    out[0] = 0
    out[1::2] = offsets[:-1] + counts - ones
    out[2::2] = offsets[1:]
    return out


def partition_positions(offsets: np.ndarray, seg: np.ndarray, bit: np.ndarray) -> np.ndarray:
    """New position of every entry when, inside every segment, entries with ``bit == 0`` move
    before those with ``bit == 1``, both groups keeping their order (``seg``: segment ids)."""
    bit = bit.astype(np.int64)
    cs = np.zeros(bit.size + 1, dtype=np.int64)
    np.cumsum(bit, out=cs[1:])
    start = offsets[:-1]
    ones_total = cs[offsets[1:]] - cs[start]
    zeros_total = np.diff(offsets) - ones_total
    # entry i of a segment: zeros before it = (i - start) - ones before it
    ones_before = cs[:-1] - cs[start][seg]
    zero_pos = np.arange(bit.size) - ones_before            # start + zeros before
    one_pos = (start + zeros_total - cs[start])[seg] + cs[:-1]
    return np.where(bit == 1, one_pos, zero_pos)


def stable_partition(order: np.ndarray, offsets: np.ndarray, bit: np.ndarray) -> np.ndarray:
    """Reorder ``order`` (grouped by segment) so that, inside every segment, entries with
    ``bit == 0`` come first and both groups keep their relative order. O(n), no sort."""
    out = np.empty_like(order)
    out[partition_positions(offsets, segment_ids(offsets), bit)] = order
    return out
