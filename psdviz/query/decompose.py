"""Range queries over any flat tree: canonical range decomposition (ICDE'12 section 4.1).

Starting at the root, a node fully inside the query contributes its value; a partly covered
node is opened; a partly covered leaf contributes the fraction of its area inside the query
(uniformity assumption). The traversal runs level by level over (query, node) pairs with numpy,
so it also serves overlapping rectangles (Hilbert R-tree: counts partition the points, not the
plane). It returns the contributing (query, node, coefficient) triples, from which answers and
exact variances are formed.
"""
from __future__ import annotations

import numpy as np

from ..core.tree import FlatTree

CHUNK = 2048   # queries per batch: keeps the (query, node) pair arrays near cache size
PAIRS = 1 << 21   # at most this many (query, child) pairs from opening one node: a batch of queries shrinks
#                   where a node has many children (a uniform grid's root), or memory grows with queries x cells


def decompose(tree: FlatTree, rects: np.ndarray, usable: np.ndarray):
    """(query, node, coefficient) triples of the canonical decomposition.

    ``usable[v]`` says whether node v's value may be used (released and finite); a fully
    covered node that is not usable is opened like a partly covered one.

    Implementation: rectangle columns are gathered as contiguous 1-D arrays, and every pair is
    classified once per level (outside / taken whole / leaf share / opened); only opened pairs
    are expanded to their children.
    """
    rects = np.asarray(rects, dtype=float)
    nx0, ny0, nx1, ny1 = (np.ascontiguousarray(tree.rect[:, i]) for i in range(4))
    area = (nx1 - nx0) * (ny1 - ny0)
    inner = tree.n_children > 0
    first, nkids = tree.first_child, tree.n_children
    qx0, qy0, qx1, qy1 = (np.ascontiguousarray(rects[:, i]) for i in range(4))
    out_q, out_v, out_c = [], [], []
    chunk = max(1, min(CHUNK, PAIRS // max(1, int(nkids.max(initial=1)))))
    for start in range(0, rects.shape[0], chunk):
        q = np.arange(start, min(start + chunk, rects.shape[0]))
        v = np.zeros(q.size, dtype=np.int64)
        while q.size:
            a0, a1, b0, b1 = qx0[q], qx1[q], qy0[q], qy1[q]
            c0, c1, d0, d1 = nx0[v], nx1[v], ny0[v], ny1[v]
            ox = np.minimum(a1, c1) - np.maximum(a0, c0)
            oy = np.minimum(b1, d1) - np.maximum(b0, d0)
            inside = (c0 >= a0) & (c1 <= a1) & (d0 >= b0) & (d1 <= b1)
            hit = inside | ((ox > 0) & (oy > 0))
            u = usable[v]
            take = inside & u
            opened = hit & ~take
            isin = inner[v]
            part = opened & ~isin & u
            go = opened & isin
            if take.any():
                out_q.append(q[take])
                out_v.append(v[take])
                out_c.append(np.ones(out_q[-1].size))
            if part.any():
                vp = v[part]
                ar = area[vp]
                out_q.append(q[part])
                out_v.append(vp)
                out_c.append(np.divide(ox[part] * oy[part], ar, out=np.zeros(ar.size), where=ar > 0))
            vg = v[go]
            k = nkids[vg]
            total = int(k.sum())
            ends = np.cumsum(k)
            q = np.repeat(q[go], k)
            v = np.repeat(first[vg] - (ends - k), k) + np.arange(total)
    if not out_q:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
    return np.concatenate(out_q), np.concatenate(out_v), np.concatenate(out_c)


def answer_tree(tree: FlatTree, rects: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Canonical answers using ``values`` (NaN = not released)."""
    usable = np.isfinite(values)
    q, v, c = decompose(tree, rects, usable)
    return np.bincount(q, weights=c * values[v], minlength=rects.shape[0])


def leaf_weights(tree: FlatTree, q: np.ndarray, v: np.ndarray, c: np.ndarray, k: int) -> np.ndarray:
    """Push decomposition coefficients down to the leaves: (n_nodes, k) weights, leaves meaningful."""
    w = np.zeros((tree.n_nodes, k))
    np.add.at(w, (v, q), c)
    w = tree.path_sum(w)
    w[~tree.is_leaf] = 0.0
    return w
