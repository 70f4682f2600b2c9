"""The tree over time of the tree mechanism (Chan, Shi and Song, TISSEC 2011, section 3.4; Dwork, Naor, Pitassi
and Rothblum, STOC 2010): every b-adic interval of windows is one node.

Depth d of a tree of height h holds the intervals [i s, min((i + 1) s, T)) of s = b^(h - d) windows (i from 0
while i s < T): the root is the whole span, the leaves are the windows, a node's children are the intervals
that split it. Any range of windows is a disjoint union of at most 2 (b - 1) nodes a level, so its count needs
O(b log_b T) noisy nodes instead of T noisy windows. With independent noise of one variance a level, the
weighted least-squares estimate over the tree (:mod:`psdviz.inference.tree_gls`, exact for any fanout)
makes the windows consistent (every node is the sum of its windows) and lowers every range's variance
further (Hay, Rastogi, Miklau and Suciu, VLDB 2010). The structure depends on T and b only: public.
"""
from __future__ import annotations

from functools import cached_property

import numpy as np

from ..core.tree import FlatTree, child_links
from ..inference.tree_gls import GlsPlan, gls_adjoint, gls_estimate_columns, gls_plan

MAX_FANOUT = 64


def height_for(windows: int, fanout: int) -> int:
    """The smallest h with fanout^h >= windows (0 for one window)."""
    h, span = 0, 1
    while span < windows:
        span *= fanout
        h += 1
    return h


class TimeTree:
    """The b-adic tree over ``windows`` windows: levels of node intervals, and least squares over them."""

    def __init__(self, windows: int, fanout: int):
        self.windows, self.fanout = int(windows), int(fanout)
        self.height = height_for(self.windows, self.fanout)
        sizes = [self.fanout ** (self.height - d) for d in range(self.height + 1)]
        self.node_size = np.asarray(sizes, dtype=np.int64)
        self.level_nodes = np.asarray([-(-self.windows // s) for s in sizes], dtype=np.int64)
        self.bounds = np.r_[0, np.cumsum(self.level_nodes)]
        depth = np.repeat(np.arange(self.height + 1), self.level_nodes)
        pos = np.arange(self.bounds[-1]) - self.bounds[depth]
        self.depth = depth.astype(np.int16)
        self.lo = pos * self.node_size[depth]
        self.hi = np.minimum(self.lo + self.node_size[depth], self.windows)
        self.parent = np.where(depth > 0, self.bounds[np.maximum(depth - 1, 0)] + pos // self.fanout, -1)

    @property
    def levels(self) -> int:
        return self.height + 1

    @property
    def n_nodes(self) -> int:
        return int(self.bounds[-1])

    def node_counts(self, counts: np.ndarray) -> np.ndarray:
        """(cells, nodes): each node's count, the sum of its windows' ``counts`` (cells, windows)."""
        c = np.asarray(counts)
        cum = np.zeros((c.shape[0], self.windows + 1), dtype=c.dtype)
        np.cumsum(c, axis=1, out=cum[:, 1:])
        return cum[:, self.hi] - cum[:, self.lo]

    def flat(self, level_variance: np.ndarray) -> FlatTree:
        """The tree as a :class:`FlatTree` (intervals as rectangles [lo, 0, hi, 1]) with one noise variance a
        level."""
        first_child, n_children = child_links(self.parent)
        zeros = np.zeros(self.n_nodes)
        rect = np.column_stack([self.lo, zeros, self.hi, zeros + 1]).astype(float)
        return FlatTree(rect=rect, depth=self.depth, parent=self.parent.astype(np.int64), first_child=first_child,
                        n_children=n_children, noisy=zeros, count_eps=zeros, split_eps=zeros,
                        noise_var=np.asarray(level_variance, float)[self.depth])


class TreeModel:
    """Least squares over a :class:`TimeTree` whose levels carry noise variances ``level_variance``: the
    windows' estimates, and the exact variance of any weighted sum of them (data-independent)."""

    def __init__(self, tree: TimeTree, level_variance: np.ndarray):
        self.tree = tree
        self.level_variance = np.asarray(level_variance, float)
        self.flat = tree.flat(self.level_variance)

    @cached_property
    def plan(self) -> GlsPlan:
        return gls_plan(self.flat, self.flat.noise_var)

    def estimate(self, noisy: np.ndarray) -> np.ndarray:
        """(cells, windows) least-squares estimates of the windows from (cells, nodes) noisy node counts."""
        est = gls_estimate_columns(self.flat, np.asarray(noisy, float).T, self.plan)
        return est[self.tree.bounds[-2]:].T.copy()

    def variance(self, weights: np.ndarray) -> np.ndarray:
        """(k,) variance of each row of ``weights`` (k, windows) applied to one cell's estimates."""
        w = np.atleast_2d(np.asarray(weights, float))
        full = np.zeros((self.tree.n_nodes, w.shape[0]))
        full[self.tree.bounds[-2]:] = w.T
        c = gls_adjoint(self.flat, self.plan, full)
        return (c ** 2 * self.flat.noise_var[:, None]).sum(axis=0)
