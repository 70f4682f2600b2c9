"""Segment helpers: many nodes' sorted values in one flat array, processed together.

A level of a tree is handled in one pass: the values of all nodes sit in one array, sorted by
(node, value), and ``offsets`` (length n_nodes + 1) marks where each node's run starts. These
helpers do per-segment reductions with numpy only.
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
