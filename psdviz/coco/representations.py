"""The three views of a count-of-counts histogram and conversions between them.

Slides of Kuo et al. (VLDB 2018), "Convenient Views of the Dataset", with bins for sizes 0..K (a
group may have size 0 in a neighbouring table, see :mod:`psdviz.coco.table`):

* count-of-counts ``H[s]`` = number of groups of size s, s = 0..K (sums to G);
* unattributed ``H_g`` = the G group sizes sorted ascending;
* cumulative ``H_c[s]`` = number of groups of size <= s (so ``H_c[K] = G``).

Row-wise functions take (n_nodes, K + 1) arrays; unattributed histograms of many nodes are one
concatenated array plus the per-node lengths G (entries of one node contiguous).
"""
from __future__ import annotations

import numpy as np

from ..core.errors import InputDataError
from .hierarchy import Hierarchy
from .table import GroupedTable


def to_cumulative(H: np.ndarray) -> np.ndarray:
    """H -> H_c (row-wise cumulative sum)."""
    return np.cumsum(np.asarray(H), axis=-1)


def from_cumulative(Hc: np.ndarray) -> np.ndarray:
    """H_c -> H (row-wise first differences)."""
    Hc = np.asarray(Hc)
    return np.diff(Hc, axis=-1, prepend=0)


def to_unattributed(H: np.ndarray) -> np.ndarray:
    """H (n, K + 1) -> concatenated ascending sizes, node by node (lengths = H.sum(axis=1))."""
    H = np.atleast_2d(np.asarray(H, np.int64))
    if np.any(H < 0):
        raise InputDataError("H must be non-negative to convert to group sizes")
    sizes = np.tile(np.arange(H.shape[1]), H.shape[0])
    return np.repeat(sizes, H.ravel())


def from_unattributed(Hg: np.ndarray, node: np.ndarray, n_nodes: int, max_size: int) -> np.ndarray:
    """Integer sizes with the node of each -> H (n_nodes, K + 1). Sizes must lie in 0..K."""
    Hg = np.asarray(Hg, np.int64)
    if Hg.size and (Hg.min() < 0 or Hg.max() > max_size):
        raise InputDataError(f"sizes must lie in [0, {max_size}]")
    flat = np.asarray(node, np.int64) * (max_size + 1) + Hg
    return np.bincount(flat, minlength=n_nodes * (max_size + 1)).reshape(n_nodes, max_size + 1)


def segment_ids(lengths: np.ndarray) -> np.ndarray:
    """For per-node lengths, the node index (0..n-1) of each concatenated entry."""
    lengths = np.asarray(lengths, np.int64)
    return np.repeat(np.arange(lengths.size), lengths)


def true_histograms(table: GroupedTable) -> np.ndarray:
    """The exact H of every node (n_nodes, K + 1); for error measurement, never for a release."""
    h: Hierarchy = table.hierarchy
    K = table.max_size
    out = np.zeros((h.n_nodes, K + 1), np.int64)
    for level in range(h.n_levels):
        out += from_unattributed(table.size, h.ancestors_at(table.leaf, level), h.n_nodes, K)
    return out
