"""Trees as flat arrays (docs/design.md "Trees as flat arrays").

One row per node, nodes stored level by level (breadth first), the children of a node stored
contiguously: ``first_child[v] .. first_child[v] + n_children[v]``. Rectangles of siblings may
overlap (Hilbert R-tree); counts always partition the points.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields, replace

import numpy as np

from .errors import ParameterError
from .memory import MAX_NODES, cap_why, node_cap


def check_node_count(n_nodes: int, what: str, fix: str = "choose a smaller height or grid size") -> None:
    """Refuse trees larger than :func:`~psdviz.core.memory.node_cap` (:data:`MAX_NODES`, or what
    ``memory_limit`` holds) with a message naming the limit and ``fix``."""
    cap = node_cap()
    if n_nodes > cap:
        above = (f"the memory cap of {cap:,} nodes; {fix}" if cap == MAX_NODES else
                 f"the {cap:,} nodes {cap_why()} holds; {fix} or raise memory_limit")
        raise ParameterError(f"{what} would have {n_nodes:,} nodes, above {above}")


@dataclass
class FlatTree:
    """Node arrays of a spatial decomposition.

    ``noisy`` holds released noisy counts (NaN where a node was not measured, epsilon 0);
    ``count_eps`` the epsilon of each node's count; ``split_eps`` the epsilon spent choosing the
    node's split (medians etc.); ``est`` the published estimate after post-processing.
    """

    rect: np.ndarray          # (n, 4) float64: x0, y0, x1, y1
    depth: np.ndarray         # (n,) int16
    parent: np.ndarray        # (n,) int64, -1 for the root
    first_child: np.ndarray   # (n,) int64, -1 for leaves
    n_children: np.ndarray    # (n,) int32
    noisy: np.ndarray         # (n,) float64
    count_eps: np.ndarray     # (n,) float64
    split_eps: np.ndarray     # (n,) float64
    est: np.ndarray = field(default=None)  # type: ignore[arg-type]  # (n,) float64, set by inference
    noise_var: np.ndarray = field(default=None)  # type: ignore[arg-type]  # (n,) variance of each noisy count (inf if unmeasured)
    # (n,) epsilon spent on descendants that pruning removed (their measurements shaped this node's
    # estimate and the pruning decision), so path_epsilons() stays the full cost on a pruned tree
    pruned_eps: np.ndarray = field(default=None)  # type: ignore[arg-type]  # zeros when not given

    def __post_init__(self) -> None:
        if self.est is None:
            self.est = self.noisy.copy()

    @property
    def n_nodes(self) -> int:
        return int(self.depth.shape[0])

    @property
    def height(self) -> int:
        return int(self.depth.max())

    @property
    def is_leaf(self) -> np.ndarray:
        return self.n_children == 0

    def level_bounds(self) -> np.ndarray:
        """Start offsets of each depth (nodes are stored level by level), length height + 2."""
        return np.searchsorted(self.depth, np.arange(self.height + 2))

    def leaf_index(self) -> np.ndarray:
        return np.flatnonzero(self.is_leaf)

    def subtree_sum(self, values: np.ndarray) -> np.ndarray:
        """Sum of ``values`` given at leaves over every subtree (bottom-up, one pass per level)."""
        out = np.where(self.is_leaf, values, 0.0).astype(float)
        bounds = self.level_bounds()
        for d in range(self.height, 0, -1):
            lo, hi = bounds[d], bounds[d + 1]
            out += np.bincount(self.parent[lo:hi], weights=out[lo:hi], minlength=self.n_nodes)
        return out

    def path_sum(self, values: np.ndarray) -> np.ndarray:
        """Per node, the sum of ``values`` (one row per node, 1-D or 2-D) over its ancestors and itself
        (top-down, one pass per level; the transpose of :meth:`subtree_sum`)."""
        out = np.array(values, dtype=float)
        bounds = self.level_bounds()
        for d in range(1, self.height + 1):
            lo, hi = bounds[d], bounds[d + 1]
            out[lo:hi] += out[self.parent[lo:hi]]
        return out

    def path_epsilons(self) -> np.ndarray:
        """Per leaf, the sum of count and split epsilons along its root-to-leaf path."""
        total = self.count_eps + self.split_eps
        return self.path_sum(total + (0.0 if self.pruned_eps is None else self.pruned_eps))[self.is_leaf]

    def take(self, keep: np.ndarray) -> FlatTree:
        """The sub-forest of kept nodes (a kept node's parent must be kept); re-indexed."""
        keep = np.asarray(keep, dtype=bool)
        new_id = np.cumsum(keep) - 1
        old = np.flatnonzero(keep)
        parent = self.parent[old]
        parent = np.where(parent >= 0, new_id[np.maximum(parent, 0)], -1)
        first_child, n_children = child_links(parent)
        return replace(self, rect=self.rect[old], depth=self.depth[old], parent=parent,
                       first_child=first_child, n_children=n_children, noisy=self.noisy[old],
                       count_eps=self.count_eps[old], split_eps=self.split_eps[old],
                       est=self.est[old], noise_var=None if self.noise_var is None else self.noise_var[old],
                       pruned_eps=None if self.pruned_eps is None else self.pruned_eps[old])

    def below_epsilons(self) -> np.ndarray:
        """Per node, the largest count + split epsilon along a path from a child down to a leaf."""
        below = np.zeros(self.n_nodes)
        step = self.count_eps + self.split_eps
        bounds = self.level_bounds()
        for d in range(self.height, 0, -1):
            lo, hi = bounds[d], bounds[d + 1]
            np.maximum.at(below, self.parent[lo:hi], step[lo:hi] + below[lo:hi])
        return below


    def frozen(self) -> FlatTree:
        """A read-only copy for a release: the same arrays seen through read-only views (no copy of the
        data), in a tree whose fields cannot be reassigned."""
        if isinstance(self, FrozenFlatTree):
            return self
        return FrozenFlatTree(**{f.name: getattr(self, f.name) for f in fields(self)})


def read_only(value):
    """A read-only view of an array (no copy of the data); anything else as it is."""
    if isinstance(value, np.ndarray):
        value = value.view()
        value.setflags(write=False)
    return value


class FrozenFlatTree(FlatTree):
    """A released tree: its arrays are read-only and its fields cannot be reassigned; derive a changed
    tree with ``dataclasses.replace`` (which makes a new one)."""

    def __post_init__(self) -> None:
        if self.est is None:
            object.__setattr__(self, "est", self.noisy.copy())
        for f in fields(self):
            object.__setattr__(self, f.name, read_only(getattr(self, f.name)))

    def __setattr__(self, name, value) -> None:
        if name in self.__dict__:          # every field is set once, by __init__
            raise AttributeError(f"a released tree cannot be changed (tried to set {name!r}); make a new one with "
                                 "dataclasses.replace")
        object.__setattr__(self, name, value)


def child_links(parent: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(first_child, n_children) of a level-ordered tree from its parent links (-1 at the root): the
    children are contiguous and in parent order, so a parent's first occurrence is its first child."""
    has = parent >= 0
    n_children = np.bincount(parent[has], minlength=parent.size).astype(np.int32)
    first_child = np.full(parent.size, -1, dtype=np.int64)
    uniq, first = np.unique(parent[has], return_index=True)
    first_child[uniq] = np.flatnonzero(has)[first]
    return first_child, n_children


def complete_links(height: int, fanout: int) -> dict:
    """Depths and links of the complete tree of ``fanout`` and ``height`` in breadth-first order
    (children of the i-th node of a level are nodes fanout*i .. fanout*i + fanout-1 of the next)."""
    sizes = fanout ** np.arange(height + 1, dtype=np.int64)
    start = np.r_[0, np.cumsum(sizes)]
    depth = np.repeat(np.arange(height + 1, dtype=np.int16), sizes)
    pos = np.arange(start[-1], dtype=np.int64) - start[depth]
    parent = np.where(depth > 0, start[np.maximum(depth - 1, 0)] + pos // fanout, -1)
    first = np.where(depth < height, start[np.minimum(depth + 1, height)] + fanout * pos, -1)
    return {"depth": depth, "parent": parent.astype(np.int64), "first_child": first.astype(np.int64),
            "n_children": np.where(depth < height, fanout, 0).astype(np.int32)}


def complete_skeleton(height: int, fanout: int, var_by_depth: np.ndarray) -> FlatTree:
    """Links and per-depth noise variances of a complete tree, without rectangles or counts: what the
    OLS adjoint needs to give exact variances on a pruned tree (``query_model.py``)."""
    s = complete_links(height, fanout)
    n = s["depth"].size
    zeros = np.zeros(n)
    return FlatTree(rect=np.zeros((n, 4)), noisy=zeros, count_eps=zeros, split_eps=zeros,
                    noise_var=np.asarray(var_by_depth, float)[s["depth"]], est=zeros, **s)
