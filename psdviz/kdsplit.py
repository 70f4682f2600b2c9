"""Level-by-level partition of points by split values, shared by the kd-tree family.

Binary depth t splits every node along axis t % 2 (x first, then y: the cyclic order of a 2-D
kd-tree, ICDE'12 section 3.2). All nodes of a level are handled together: the points are kept in
two orders, "by node then x" and "by node then y"; a split along axis a keeps the first order
grouped by child (points >= split go right, so order by value is order by child) and the other
order is re-grouped by an O(n) stable partition. No sort after the initial two argsorts.

``choose(t, axis, values, offsets, rect)`` returns one split value per node of depth t, given
the nodes' sorted coordinates on that axis (segments) and their region rectangles; it is the only
place where privacy is decided (private medians, midpoints, exact medians for references).
Node ids: the children of node j are 2j and 2j + 1, so after two binary levels the four
grandchildren of j are 4j .. 4j + 3, the layout of a complete fanout-4 tree (section 6.2).
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from .domain import Domain
from .medians.segments import split_offsets, stable_partition

Chooser = Callable[[int, int, np.ndarray, np.ndarray, np.ndarray], np.ndarray]


def split_children(rect: np.ndarray, axis: int, split: np.ndarray) -> np.ndarray:
    """Rectangles of children 2j (below the split) and 2j + 1 (above) of each node j."""
    split = np.clip(split, rect[:, axis], rect[:, axis + 2])
    left, right = rect.copy(), rect.copy()
    left[:, axis + 2] = split
    right[:, axis] = split
    return np.stack([left, right], axis=1).reshape(-1, 4)


def kd_partition(xy: np.ndarray, domain: Domain, levels: int, choose: Chooser) -> tuple[list[np.ndarray], np.ndarray]:
    """Rectangles at every binary depth 0..levels and the final node id of each point."""
    n = xy.shape[0]
    orders = [np.argsort(xy[:, 0], kind="stable"), np.argsort(xy[:, 1], kind="stable")]
    offsets = np.array([0, n], dtype=np.int64)
    rects = [domain.as_rect()[None, :]]
    for t in range(levels):
        a = t % 2
        vals = xy[orders[a], a]
        rect = rects[-1]
        split = np.clip(choose(t, a, vals, offsets, rect), rect[:, a], rect[:, a + 2])
        seg = np.repeat(np.arange(rect.shape[0]), np.diff(offsets))
        bit_a = vals >= split[seg]
        ones = np.bincount(seg, weights=bit_a, minlength=rect.shape[0]).astype(np.int64)
        other = orders[1 - a]
        # the same points in the other order: node ids agree segment by segment
        bit_o = xy[other, a] >= split[seg]
        orders[1 - a] = stable_partition(other, offsets, bit_o)
        offsets = split_offsets(offsets, ones)
        rects.append(split_children(rect, a, split))
    node = np.empty(n, dtype=np.int64)
    node[orders[0]] = np.repeat(np.arange(offsets.size - 1), np.diff(offsets))
    return rects, node


def exact_median_splits(values: np.ndarray, offsets: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Non-private split at the (upper) middle value of each node; empty nodes split at the midpoint."""
    counts = np.diff(offsets)
    idx = np.minimum(offsets[:-1] + counts // 2, max(values.size - 1, 0))
    mid = values[idx] if values.size else np.zeros(counts.size)
    return np.where(counts > 0, mid, (lo + hi) / 2.0)
