"""Proofs that the regions a ledger step measured in parallel are disjoint (docs/design.md privacy rules).

Parallel composition (McSherry, SIGMOD 2009, Theorem 4) charges one step's epsilon once for many
counts only when no person can fall into two of the measured regions. A :class:`~psdviz.core.ledger.Ledger`
step with a ``level`` and ``nodes > 1`` claims exactly that for the regions of that level, and
:meth:`~psdviz.core.ledger.Ledger.check_parallel` asks one of the proofs below whether the claim holds.

* :class:`TreeTiling`: the children of every internal node tile it exactly (checked on integer grid
  positions, so exactly), hence by induction the nodes of one depth are pairwise disjoint. Tiling is
  tested per parent with the perfect-rectangle argument: the children's areas sum to the parent's and
  the corners that occur an odd number of times are exactly the parent's four. The XOR of the
  children's indicator functions is the XOR of the quadrants at their corners, so the corner condition
  makes every point of the parent covered an odd number of times and every point outside an even
  number; with the area sum equal, every point is covered once.
* :class:`CurveRanges`: a Hilbert R-tree counts ranges of curve positions (its boxes may overlap);
  consecutive, non-overlapping leaf ranges make every level's ranges disjoint.
* :class:`Checked`: a partition proven elsewhere (a region layer's overlap test), with its reason.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from .grid import Grid
from .tree import FlatTree


class Disjointness(Protocol):
    """Whether the regions of one level are pairwise disjoint, and what the proof rests on."""

    @property
    def reason(self) -> str: ...

    def disjoint(self, level: int) -> bool: ...


@dataclass(frozen=True)
class TreeTiling:
    """Levels ``0 .. deepest`` of a tree are pairwise disjoint (every parent above them is tiled)."""

    deepest: int
    reason: str = "children tile their parent on the public grid"

    def disjoint(self, level: int) -> bool:
        return level <= self.deepest

    @classmethod
    def of(cls, tree: FlatTree, grid: Grid) -> TreeTiling:
        """The proof for ``tree``: the shallowest depth holding a parent its children do not tile."""
        bad = ~children_tile(tree, grid.positions(tree.rect))
        return cls(int(tree.depth[bad].min()) if bad.any() else int(tree.height))

    @classmethod
    def of_stopped(cls, tree: FlatTree, grid: Grid, height: int) -> TreeTiling:
        """The proof for a tree measured top-down with stops to ``height``
        (:func:`psdviz.methods.early_stop.measure_with_stops`): a depth's ledger step measured the tree's
        nodes there and the leaves stopped above (once more). When every parent of the measured tree is
        tiled by its children, any such set (an antichain) is disjoint, at every depth down to ``height``."""
        proof = cls.of(tree, grid)
        return cls(height, proof.reason) if proof.deepest >= tree.height else proof

    def pruned(self, height: int) -> TreeTiling:
        """The proof for a loaded tree that may have been pruned: when every released level tiles, levels
        below ``height`` were measured inside the released leaves, which the file does not hold."""
        if self.deepest < height:
            return self
        return TreeTiling(1 << 30, f"{self.reason}; deeper levels lie inside the released leaves (pruned)")


def children_tile(tree: FlatTree, pos: np.ndarray) -> np.ndarray:
    """Per node: its children tile it exactly, or it has zero area and they lie inside it (True for
    leaves). ``pos``: (n, 4) int64 grid rectangles. A rectangle of zero area contains no grid cell, so
    no point: it overlaps nothing."""
    ok = np.ones(tree.n_nodes, dtype=bool)
    child = np.flatnonzero(tree.parent >= 0)
    if child.size == 0:
        return ok
    par = tree.parent[child]
    quartered = _quartered(tree, pos)
    if quartered.any():                     # proven: the general test only for the other parents
        child, par = child[~quartered[par]], par[~quartered[par]]
        if child.size == 0:
            return ok
    inside = ((pos[child, :2] >= pos[par, :2]) & (pos[child, 2:] <= pos[par, 2:])).all(axis=1)
    ok[par[~inside]] = False
    area = (pos[:, 2] - pos[:, 0]) * (pos[:, 3] - pos[:, 1])
    order = np.argsort(par, kind="stable")
    parents, starts = np.unique(par[order], return_index=True)
    tiled = (np.add.reduceat(area[child[order]], starts) == area[parents]) & _corners_match(pos, child, par, parents)
    ok[parents[~tiled & (area[parents] > 0)]] = False   # a parent of zero area holds no grid cell: nothing to share
    return ok


def _quartered(tree: FlatTree, pos: np.ndarray) -> np.ndarray:
    """Per node: it has four children, stored in order from its first child, that are its four quadrants
    at one inner point (mx, my): [x0, mx] x [y0, my], [mx, x1] x [y0, my], [x0, mx] x [my, y1] and
    [mx, x1] x [my, y1], each once. Such children tile it exactly (a quadtree's, in one pass over the
    parents, without the sorts of the general test); False means only "not shown this way"."""
    out = np.zeros(tree.n_nodes, dtype=bool)
    inner = np.flatnonzero(tree.n_children == 4)
    if inner.size == 0:
        return out
    first = tree.first_child[inner]
    if first[0] >= 0 and np.array_equal(first, first[0] + 4 * np.arange(inner.size)):
        kids = np.arange(first[0], first[0] + 4 * inner.size).reshape(-1, 4)   # one block: read, not gathered
        c = pos[first[0]:first[0] + 4 * inner.size].reshape(-1, 4, 4)
    else:
        kids = first[:, None] + np.arange(4)
        kids = np.where((kids >= 0) & (kids < tree.n_nodes), kids, 0)
        c = pos[kids]
    stored = (tree.parent[kids] == inner[:, None]).all(axis=1)
    p = pos[inner]
    x0, y0, x1, y1 = (p[:, k, None] for k in range(4))
    mx, my = c[:, :, 0].max(axis=1, keepdims=True), c[:, :, 1].max(axis=1, keepdims=True)
    left = (c[:, :, 0] == x0) & (c[:, :, 2] == mx)
    right = ~left & (c[:, :, 0] == mx) & (c[:, :, 2] == x1)
    low = (c[:, :, 1] == y0) & (c[:, :, 3] == my)
    high = ~low & (c[:, :, 1] == my) & (c[:, :, 3] == y1)
    # two right, two high, one both: the four (right, high) pairs are the four quadrants, each once
    each_once = ((right.sum(axis=1) == 2) & (high.sum(axis=1) == 2) & ((right & high).sum(axis=1) == 1))
    between = (x0 <= mx) & (mx <= x1) & (y0 <= my) & (my <= y1)
    out[inner] = stored & ((left | right) & (low | high)).all(axis=1) & each_once & between[:, 0]
    return out


def _corners_match(pos: np.ndarray, child: np.ndarray, par: np.ndarray, parents: np.ndarray) -> np.ndarray:
    """Per parent (sorted ids): the children's corners seen an odd number of times are its own four."""
    fan = par.size // max(parents.size, 1)
    if fan * parents.size == par.size and np.array_equal(par, np.repeat(parents, fan)):
        return _corners_match_rows(pos, child.reshape(-1, fan), parents)
    code = _corner_codes(pos[child])                       # (k, 4) one int64 per corner
    owner = np.repeat(par, 4)
    order = np.lexsort((code.ravel(), owner))
    owner, code = owner[order], code.ravel()[order]
    new = np.r_[True, (owner[1:] != owner[:-1]) | (code[1:] != code[:-1])]
    starts = np.flatnonzero(new)
    odd = np.diff(np.r_[starts, owner.size]) % 2 == 1
    odd_owner, odd_code = owner[starts[odd]], code[starts[odd]]
    n_odd = np.bincount(np.searchsorted(parents, odd_owner), minlength=parents.size)
    own = np.sort(_corner_codes(pos[parents]), axis=1)
    # with exactly four odd corners per parent, in (owner, code) order they line up with ``own`` row by row
    match = n_odd == 4
    rows = np.repeat(match, n_odd)
    same = np.ones(parents.size, dtype=bool)
    if rows.any():
        got = odd_code[rows].reshape(-1, 4)
        same[match] = (got == own[match]).all(axis=1)
    return match & same


def _corners_match_rows(pos: np.ndarray, kids: np.ndarray, parents: np.ndarray) -> np.ndarray:
    """The same test when every parent has the same number of children, stored in order (``kids``: one row
    of child ids per parent): the children's corners and the parent's own four, sorted in one row per parent,
    occur an even number of times each exactly when, read in pairs, every pair is equal. With the parent's four
    corners distinct (a parent of positive area) that is the odd-corner condition above."""
    fan = kids.shape[1]
    code = np.concatenate([_corner_codes(pos[kids.ravel()]).reshape(-1, 4 * fan),
                           _corner_codes(pos[parents])], axis=1)
    code.sort(axis=1)
    return (code[:, 0::2] == code[:, 1::2]).all(axis=1)


def _corner_codes(rect: np.ndarray) -> np.ndarray:
    """The four corners of integer rectangles as one int64 each (x * 2^31 + y; positions < 2^31)."""
    rect = np.asarray(rect, dtype=np.int64)
    out = np.empty((rect.shape[0], 4), dtype=np.int64)
    x0, x1 = rect[:, 0] << 31, rect[:, 2] << 31
    np.add(x0, rect[:, 1], out=out[:, 0])
    np.add(x0, rect[:, 3], out=out[:, 1])
    np.add(x1, rect[:, 1], out=out[:, 2])
    np.add(x1, rect[:, 3], out=out[:, 3])
    return out


@dataclass(frozen=True)
class CurveRanges:
    """A tree whose nodes count ranges [lo, hi) of curve positions: disjoint at every level when the
    leaf ranges, in order, do not overlap (each node's range is a run of consecutive leaf ranges)."""

    ordered: bool
    reason: str = "consecutive ranges of Hilbert curve positions"

    def disjoint(self, level: int) -> bool:
        return self.ordered

    @classmethod
    def of(cls, lo: np.ndarray, hi: np.ndarray) -> CurveRanges:
        return cls(bool((hi >= lo).all() and (lo[1:] >= hi[:-1]).all()))


@dataclass(frozen=True)
class Checked:
    """Levels whose regions a separate check proved disjoint (``levels``: the proven ones)."""

    levels: frozenset[int]
    reason: str

    def disjoint(self, level: int) -> bool:
        return level in self.levels
