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

from .tree import FlatTree, children_of

CHUNK = 4096


def _overlap(rects: np.ndarray, nodes: np.ndarray):
    ox = np.minimum(rects[:, 2], nodes[:, 2]) - np.maximum(rects[:, 0], nodes[:, 0])
    oy = np.minimum(rects[:, 3], nodes[:, 3]) - np.maximum(rects[:, 1], nodes[:, 1])
    inside = ((nodes[:, 0] >= rects[:, 0]) & (nodes[:, 2] <= rects[:, 2])
              & (nodes[:, 1] >= rects[:, 1]) & (nodes[:, 3] <= rects[:, 3]))
    return np.maximum(ox, 0.0), np.maximum(oy, 0.0), inside


def decompose(tree: FlatTree, rects: np.ndarray, usable: np.ndarray):
    """(query, node, coefficient) triples of the canonical decomposition.

    ``usable[v]`` says whether node v's value may be used (released and finite); a fully
    covered node that is not usable is opened like a partly covered one.
    """
    out_q, out_v, out_c = [], [], []
    for start in range(0, rects.shape[0], CHUNK):
        q = np.arange(start, min(start + CHUNK, rects.shape[0]))
        v = np.zeros(q.size, dtype=np.int64)
        while q.size:
            ox, oy, inside = _overlap(rects[q], tree.rect[v])
            hit = inside | ((ox > 0) & (oy > 0))
            take = hit & inside & usable[v]
            leaf = tree.n_children[v] == 0
            part = hit & ~take & leaf & usable[v]
            r = tree.rect[v[part]]
            area = (r[:, 2] - r[:, 0]) * (r[:, 3] - r[:, 1])
            frac = np.divide(ox[part] * oy[part], area, out=np.zeros(area.size), where=area > 0)
            out_q += [q[take], q[part]]
            out_v += [v[take], v[part]]
            out_c += [np.ones(int(take.sum())), frac]
            go = hit & ~take & ~leaf
            owner, child = children_of(tree.first_child, tree.n_children, v[go])
            q, v = q[go][owner], child
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
    bounds = tree.level_bounds()
    for d in range(1, tree.height + 1):
        lo, hi = bounds[d], bounds[d + 1]
        w[lo:hi] += w[tree.parent[lo:hi]]
    w[~tree.is_leaf] = 0.0
    return w
