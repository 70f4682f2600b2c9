"""Level-by-level partition of points by split values, shared by the kd-tree family.

Binary depth t splits every node along axis t % 2 (x first, then y: the cyclic order of a 2-D
kd-tree, ICDE'12 section 3.2). All nodes of a level are handled together, in one pass over the data
source (:mod:`psdviz.core.source`): grouped counts of (node, position on the axis), so the same code
runs on files through DuckDB and on a Dask cluster. Passes: one per binary depth plus one for the leaf
counts. A source that holds its keys in memory (points, or the occupied cells read once) gives the same
groups from two orders of its keys kept across the depths (:mod:`psdviz.splits.kd_orders`): one sort, not
one per depth.

Everything here is on the public grid: points are integer keys (their grid cells), rectangles are
integer grid positions [x0, y0, x1, y1), and a split is a position s (keys < s go left), so every
released coordinate is a grid position. ``choose(t, axis, values, offsets, rect, weights)`` returns one split
position per node of depth t, given the nodes' sorted keys on that axis (segments) and their region
rectangles (and, as sixth argument, the multiplicity of each distinct key); it is the only place
where privacy is decided (private medians, midpoints, exact medians for references).
Node ids: the children of node j are 2j and 2j + 1, so after two binary levels the four
grandchildren of j are 4j .. 4j + 3, the layout of a complete fanout-4 tree (section 6.2).
"""
from __future__ import annotations

from collections.abc import Callable
from functools import partial

import numpy as np

from ..core.progress import report
from ..core.source import KeySource, dense_range, memo_token
from .kd_orders import AxisOrders

Chooser = Callable[[int, int, np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray]


def split_children(rect: np.ndarray, axis: int, split: np.ndarray) -> np.ndarray:
    """Rectangles of children 2j (below the split) and 2j + 1 (above) of each node j."""
    split = np.clip(split, rect[:, axis], rect[:, axis + 2])
    left, right = rect.copy(), rect.copy()
    left[:, axis + 2] = split
    right[:, axis] = split
    return np.stack([left, right], axis=1).reshape(-1, 4)


def descend(kx: np.ndarray, ky: np.ndarray, splits: list[np.ndarray], node: np.ndarray | None = None,
            start: int = 0) -> np.ndarray:
    """Node of every key after the binary depths ``start .. len(splits) - 1`` (from ``node`` at depth
    ``start``, the root by default): at depth t a key goes to child 2j + (key[t % 2] >= split_t[j]). One
    array of nodes updated in place a depth (``node`` itself is not changed)."""
    if start >= len(splits):
        return np.zeros(kx.size, np.int64) if node is None else node
    node = np.zeros(kx.size, np.int64) if node is None else np.array(node, np.int64)
    for t in range(start, len(splits)):
        k = kx if t % 2 == 0 else ky
        right = k >= np.asarray(splits[t], np.int64).take(node)
        node <<= 1
        node += right
    return node


def _node_keyer(kx, ky, memo, splits: list[np.ndarray], token: int, axis: int | None, bits: int) -> np.ndarray:
    """Keyer of a kd level: the node of each key at depth len(splits), and with ``axis`` its position
    on that axis (id node * 2^bits + key). A source that keeps its rows (in memory) keeps each row's
    node in ``memo`` under ``token`` and descends one level per pass instead of from the root."""
    depth, node = memo.get(token, (0, None))
    node = descend(kx, ky, splits, node, depth)
    memo[token] = (len(splits), node)
    if axis is None:
        return node
    return (node << bits) | (kx if axis == 0 else ky)


def kd_partition(src: KeySource, root: np.ndarray, levels: int, choose: Chooser,
                 reads_data: Callable[[int], bool] = lambda t: True
                 ) -> tuple[list[np.ndarray], np.ndarray, list[np.ndarray]]:
    """Integer rectangles at every binary depth 0..levels (``root``: the domain's grid rectangle), the
    number of points in each final node, and the split positions of every depth.

    One pass over the source per depth: the counts of (node, position on the split axis), handed to
    ``choose(t, axis, positions, offsets, rect, counts)`` as each node's distinct sorted positions
    (``offsets`` per node) and their multiplicities (:func:`psdviz.splits.medians.expand` rebuilds the
    keys themselves where a rule needs them); a last pass counts the final nodes. Depths where
    ``reads_data(t)`` is False (midpoints, splits from a noisy grid) skip the pass: ``choose`` gets
    empty positions there. Keys held in memory (:meth:`~psdviz.core.source.KeySource.held`) give the same
    groups and counts without a pass (:func:`_held_partition`) when some depth's ids would be too sparse for
    a bincount (a pass would sort them); where every depth bincounts, the passes over the held keys are
    cheaper than keeping two orders."""
    held = src.held()
    reading = [t for t in range(levels) if reads_data(t)]
    if held is not None and any(not dense_range(1 << (t + src.grid.bits), held[0].size) for t in reading):
        # some depth's (node, key) ids are too sparse to bincount: a pass would sort them, so sort once
        return _held_partition(AxisOrders(*held, src.grid.bits), root, levels, choose, reads_data, reading[-1])
    bits = src.grid.bits
    token = memo_token()
    splits: list[np.ndarray] = []
    rects = [np.asarray(root, np.int64)[None, :]]
    try:
        for t in range(levels):
            a, rect = t % 2, rects[-1]
            if reads_data(t):
                ids, cnt = src.grouped(partial(_node_keyer, splits=list(splits), token=token, axis=a, bits=bits))
            else:
                ids = cnt = np.zeros(0, np.int64)
            node, vals = ids >> bits, ids & ((1 << bits) - 1)
            offsets = np.searchsorted(node, np.arange(rect.shape[0] + 1))   # distinct keys per node
            split = np.clip(choose(t, a, vals, offsets, rect, cnt), rect[:, a], rect[:, a + 2])
            splits.append(split)
            rects.append(split_children(rect, a, split))
            report(t + 1, levels, "median split levels")
        leaf = src.counts(partial(_node_keyer, splits=splits, token=token, axis=None, bits=bits), 1 << levels)
    finally:
        getattr(src, "memo", {}).pop(token, None)
    return rects, leaf, splits


def _held_partition(orders: AxisOrders, root: np.ndarray, levels: int, choose: Chooser,
                    reads_data: Callable[[int], bool], last: int
                    ) -> tuple[list[np.ndarray], np.ndarray, list[np.ndarray]]:
    """:func:`kd_partition` over keys held in memory, in two orders kept across the depths
    (:class:`psdviz.splits.kd_orders.AxisOrders`: the same groups and counts, no sort after the first).
    Depths after ``last``, the last that reads the data, descend the keys to the leaves once."""
    splits: list[np.ndarray] = []
    rects = [np.asarray(root, np.int64)[None, :]]
    empty = np.zeros(0, np.int64)
    for t in range(levels):
        a, rect = t % 2, rects[-1]
        if reads_data(t):
            vals, offsets, cnt = orders.groups(a)
        else:
            vals, offsets, cnt = empty, np.zeros(rect.shape[0] + 1, np.int64), empty
        split = np.clip(choose(t, a, vals, offsets, rect, cnt), rect[:, a], rect[:, a + 2])
        splits.append(split)
        rects.append(split_children(rect, a, split))
        if t <= last:
            orders.split(a, split, partition=t < last)
        report(t + 1, levels, "median split levels")
    if last + 1 == levels:
        return rects, orders.node_counts(), splits
    node, kx, ky, weight = orders.nodes_and_keys()
    node = descend(kx, ky, splits, node, last + 1)
    leaf = np.bincount(node, weights=weight, minlength=1 << levels)
    return rects, np.rint(leaf).astype(np.int64), splits


def exact_median_splits(values: np.ndarray, offsets: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Non-private split at the (upper) middle key of each node; empty nodes split at the middle position."""
    counts = np.diff(offsets)
    idx = np.minimum(offsets[:-1] + counts // 2, max(values.size - 1, 0))
    mid = values[idx] if values.size else np.zeros(counts.size, np.int64)
    return np.where(counts > 0, mid, (lo + hi) // 2)
