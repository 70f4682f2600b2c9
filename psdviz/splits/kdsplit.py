"""Level-by-level partition of points by split values, shared by the kd-tree family.

Binary depth t splits every node along axis t % 2 (x first, then y: the cyclic order of a 2-D
kd-tree, ICDE'12 section 3.2). All nodes of a level are handled together: the points are kept in
two orders, "by node then x" and "by node then y"; a split along axis a keeps the first order
grouped by child (points >= split go right, so order by value is order by child) and the other
order is re-grouped by an O(n) stable partition. No sort after the initial two argsorts.

Everything here is on the public grid: points are integer keys (their grid cells), rectangles are
integer grid positions [x0, y0, x1, y1), and a split is a position s (keys < s go left), so every
released coordinate is a grid position. ``choose(t, axis, values, offsets, rect)`` returns one split
position per node of depth t, given the nodes' sorted keys on that axis (segments) and their region
rectangles; it is the only place where privacy is decided (private medians, midpoints, exact
medians for references).
Node ids: the children of node j are 2j and 2j + 1, so after two binary levels the four
grandchildren of j are 4j .. 4j + 3, the layout of a complete fanout-4 tree (section 6.2).
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from ..core.progress import report
from .medians.segments import partition_positions, split_offsets

Chooser = Callable[[int, int, np.ndarray, np.ndarray, np.ndarray], np.ndarray]


def split_children(rect: np.ndarray, axis: int, split: np.ndarray) -> np.ndarray:
    """Rectangles of children 2j (below the split) and 2j + 1 (above) of each node j."""
    split = np.clip(split, rect[:, axis], rect[:, axis + 2])
    left, right = rect.copy(), rect.copy()
    left[:, axis + 2] = split
    right[:, axis] = split
    return np.stack([left, right], axis=1).reshape(-1, 4)


def kd_partition(xy: np.ndarray, root: np.ndarray, levels: int, choose: Chooser,
                 with_ids: bool = False) -> tuple[list[np.ndarray], np.ndarray, np.ndarray | None]:
    """Integer rectangles at every binary depth 0..levels (``root``: the domain's grid rectangle), the
    number of points (integer keys ``xy``) in each final node and, if ``with_ids``, the final node of
    each point (for tests and teaching views).

    Each order carries the points' coordinates themselves (no index gathers); the segment id
    array is the same for both orders, since both are grouped by node with the same offsets.
    """
    n = xy.shape[0]
    by = [np.argsort(xy[:, 0], kind="stable"), np.argsort(xy[:, 1], kind="stable")]
    coords = [[xy[o, 0].copy(), xy[o, 1].copy()] for o in by]
    ids = by[0] if with_ids else None          # original index of each entry of order 0
    seg = np.zeros(n, dtype=np.int64)
    offsets = np.array([0, n], dtype=np.int64)
    rects = [np.asarray(root, np.int64)[None, :]]
    for t in range(levels):
        a = t % 2
        rect = rects[-1]
        split = np.clip(choose(t, a, coords[a][a], offsets, rect), rect[:, a], rect[:, a + 2])
        cut = split[seg]
        bit_a = coords[a][a] >= cut          # sorted inside each node: already grouped by child
        bit_o = coords[1 - a][a] >= cut
        pos = partition_positions(offsets, seg, bit_o)
        for arr in coords[1 - a]:
            arr[pos] = arr.copy()
        if with_ids and a == 1:
            new_ids = np.empty_like(ids)
            new_ids[pos] = ids
            ids = new_ids
        cs = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(bit_a, out=cs[1:])
        offsets = split_offsets(offsets, cs[offsets[1:]] - cs[offsets[:-1]])
        seg = 2 * seg + bit_a
        rects.append(split_children(rect, a, split))
        report(t + 1, levels, "median split levels")
    node = None
    if with_ids:
        node = np.empty(n, dtype=np.int64)
        node[ids] = seg
    return rects, np.diff(offsets), node


def exact_median_splits(values: np.ndarray, offsets: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Non-private split at the (upper) middle key of each node; empty nodes split at the middle position."""
    counts = np.diff(offsets)
    idx = np.minimum(offsets[:-1] + counts // 2, max(values.size - 1, 0))
    mid = values[idx] if values.size else np.zeros(counts.size, np.int64)
    return np.where(counts > 0, mid, (lo + hi) // 2)
