"""Dyadic ranges over a linearised domain (ICDT'12 section 3 and appendix C.5).

The m cells are the leaves of a binary tree; level l (0 = root, H = ceil(log2 m) = leaves) has
ceil(m / 2^(H-l)) nodes, node j of level l covering cells [j 2^(H-l), (j+1) 2^(H-l)) cut at m (no
padding cells). Nodes get global ids ``offset[l] + j``, so the transform is itself a sparse table
over ~2m "cells" and is summarised by the same shortcut methods. One individual changes one node
per level, so the sensitivity is H + 1 (the paper's "factor of h"). The transform touches at most
n nodes per level: O(n log(m/n)) non-zeros (Theorem 4).

Range queries [lo, hi) are answered from at most two nodes per level (canonical decomposition,
vectorised over queries, one pass per level). The consistency check of section 3 drops a kept
node whose ancestor is absent from a filter summary (applied level by level from the root).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.errors import ParameterError
from .table import SparseTable, make_table


@dataclass(frozen=True)
class DyadicIndex:
    """Public shape of the dyadic tree over m leaves."""

    m: int

    @property
    def height(self) -> int:
        return int(self.m - 1).bit_length()

    @property
    def sensitivity(self) -> int:
        return self.height + 1

    def counts(self) -> np.ndarray:
        """Nodes per level, root first."""
        h = self.height
        return np.array([((self.m - 1) >> (h - lv)) + 1 for lv in range(h + 1)], dtype=np.int64)

    def offsets(self) -> np.ndarray:
        c = self.counts()
        return np.concatenate([[0], np.cumsum(c)]).astype(np.int64)

    @property
    def size(self) -> int:
        return int(self.counts().sum())

    def level_of(self, ids: np.ndarray) -> np.ndarray:
        return np.searchsorted(self.offsets(), ids, side="right") - 1

    def leaf_ids(self, cells) -> np.ndarray:
        return self.offsets()[self.height] + np.asarray(cells, dtype=np.int64)


def dyadic_transform(table: SparseTable) -> tuple[SparseTable, DyadicIndex]:
    """Exact counts of every dyadic node touched by a non-zero cell (sorted global ids)."""
    dx = DyadicIndex(table.m)
    h, off = dx.height, dx.offsets()
    ids, cnts = [], []
    for lv in range(h + 1):
        j = table.indices >> (h - lv)
        if j.size == 0:
            continue
        start = np.concatenate([[0], np.flatnonzero(np.diff(j)) + 1])
        ids.append(off[lv] + j[start])
        cnts.append(np.add.reduceat(table.counts, start))
    layout = {"kind": "dyadic", "leaves": table.m, "height": h, "base": table.layout}
    if not ids:
        return make_table([], [], dx.size, layout), dx
    return make_table(np.concatenate(ids), np.concatenate(cnts), dx.size, layout), dx


def consistent(dx: DyadicIndex, ids: np.ndarray) -> np.ndarray:
    """Mask over the sorted kept ``ids``: True where the node and all its ancestors are kept."""
    off, h = dx.offsets(), dx.height
    keep = np.zeros(ids.size, dtype=bool)
    bounds = np.searchsorted(ids, off)
    keep[bounds[0]:bounds[1]] = True        # the root has no ancestor
    for lv in range(1, h + 1):
        a, b = bounds[lv], bounds[lv + 1]
        alive = ids[bounds[lv - 1]:a][keep[bounds[lv - 1]:a]]
        if alive.size == 0:
            continue                                    # keep[a:b] stays False
        parent = off[lv - 1] + ((ids[a:b] - off[lv]) >> 1)
        pos = np.minimum(np.searchsorted(alive, parent), alive.size - 1)
        keep[a:b] = alive[pos] == parent
    return keep


def decompose_ranges(dx: DyadicIndex, lo, hi) -> tuple[np.ndarray, np.ndarray]:
    """Canonical nodes of ranges [lo, hi): (query number, global node id) pairs, <= 2 per level."""
    lo = np.atleast_1d(np.asarray(lo, dtype=np.int64)).copy()
    hi = np.atleast_1d(np.asarray(hi, dtype=np.int64)).copy()
    if lo.shape != hi.shape:
        raise ParameterError(f"lo and hi must have the same shape (got {lo.shape} and {hi.shape})")
    if np.any(lo < 0) or np.any(hi > dx.m) or np.any(hi < lo):
        raise ParameterError(f"ranges must satisfy 0 <= lo <= hi <= m = {dx.m}")
    off, h = dx.offsets(), dx.height
    qs, nodes = [], []
    q = np.arange(lo.size)
    for k in range(h + 1):                              # height k = level h - k
        lv = h - k
        take = (lo < hi) & (lo & 1 == 1)
        qs.append(q[take])
        nodes.append(off[lv] + lo[take])
        lo = lo + take
        take = (lo < hi) & (hi & 1 == 1)
        hi = hi - take
        qs.append(q[take])
        nodes.append(off[lv] + hi[take])
        lo >>= 1
        hi >>= 1
    return np.concatenate(qs), np.concatenate(nodes)
