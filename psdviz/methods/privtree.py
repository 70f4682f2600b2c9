"""PrivTree (Zhang, Xiao, Xie, SIGMOD 2016): a quadtree with no height parameter.

Reading documented in docs/privtree.md. With fanout beta = 4 and tree budget eps_t:
lambda = (2 beta - 1) / ((beta - 1) eps_t) = 7 / (3 eps_t), delta = lambda ln(beta) = lambda ln 4,
theta = 0 (the paper's default threshold). A node v at depth d has the biased count
b(v) = max(c(v) - d delta, theta - delta) and is split into its 4 quadrants when
b(v) + Lap(lambda) > theta. The split decisions together are eps_t-DP for any depth (the paper's
main theorem), recorded as one ledger step; the leaves (disjoint) then get geometric noise with the
remaining budget. ``max_depth`` is a safety cap only: a node at the cap is not tested. Truncating
the tree at a fixed, data-independent depth is a function of the uncapped tree's output, so the
cap does not change the privacy guarantee (it can only cost accuracy in very dense spots); under
``memory_limit`` the tree is cut, the same way, at the first depth whose split decisions would pass the
node cap (:mod:`psdviz.core.memory`): a function of the released decisions. The cap
is also at most the resolution (public grid): a depth-d cell is 2^(k-d) grid steps wide, so every
rectangle is on the grid, and points are split by their grid keys.
Default tree_fraction = 0.4 (the rest measures the leaves), from our sweeps, not the paper's even
split: on the bench_dpbench protocol (resolution 8, 5 runs) 0.4 against 0.5 changed the mean relative
error by -21 % to +3 % over the 12 (file, epsilon) cells (SF-CABS-S 0.048 / 0.0077 -> 0.043 / 0.0063,
STROKE at 0.1 0.30 -> 0.24, ADULT-2D at 1 0.190 -> 0.158, synthetic1M 0.0150 / 0.0038 -> 0.0118 /
0.0031; BJ-CABS-E at 0.1 0.0069 -> 0.0071, STROKE at 1 0.085 -> 0.087, ADULT-2D at 0.1 1.43 -> 1.46),
and by a median of -7 % (0.75x to 1.25x, 3 runs each) over 24 synthetic cells (uniform, gaussian
mixtures, mixtures with far outliers; 30k and 300k points; epsilon 0.1 and 1); 0.3 and 0.6 were worse.
All nodes of a depth are processed at once (one numpy pass per depth).
Passes over the data (:mod:`psdviz.core.source`): one per depth, the counts of that depth's nodes; none
when the source holds its keys in memory (sorted once by Morton code, every depth counted by bisection).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..core.domain import Domain, PointSet
from ..core.errors import ParameterError
from ..core.grid import cap_by_resolution
from ..core.ledger import Ledger
from ..core.measure import measure_counts
from ..core.memory import memory_limit, node_cap
from ..core.noise import laplace_draw
from ..core.params import Share
from ..core.progress import report
from ..core.rng import Randomness
from ..core.source import KeySource, memo_token
from ..core.tree import FlatTree, check_node_count
from ..core.validation import check_fraction, check_int
from ..publish.factory import make_release
from ..publish.release import Release
from ..splits import morton
from ..splits.keyers import row_major_cells
from .spec import FRACTION, MethodSpec, doc

FANOUT = 4
TREE_FRACTION = 0.4   # share of epsilon for the split decisions: module docstring
MAX_DEPTH = 24


def privtree_parameters(eps_tree: float, fanout: int = FANOUT) -> tuple[float, float]:
    """(lambda, delta) of the paper for budget eps_tree: lambda = (2b-1)/((b-1) eps), delta = lambda ln b."""
    lam = (2 * fanout - 1) / ((fanout - 1) * eps_tree)
    return lam, lam * math.log(fanout)


def split_decisions(counts: np.ndarray, depth: int, lam: float, delta: float, theta: float,
                    rng: np.random.Generator) -> np.ndarray:
    """b(v) = max(c(v) - depth delta, theta - delta); split iff b(v) + Lap(lambda) > theta."""
    b = np.maximum(counts - depth * delta, theta - delta)
    return b + laplace_draw(rng, lam, counts.size) > theta


def _quadrants(rect: np.ndarray) -> np.ndarray:
    """Children of integer grid rectangles (SW, SE, NW, NE), contiguous per parent."""
    xm, ym = (rect[:, 0] + rect[:, 2]) // 2, (rect[:, 1] + rect[:, 3]) // 2
    x0, y0, x1, y1 = rect.T
    kids = np.stack([np.column_stack([x0, y0, xm, ym]), np.column_stack([xm, y0, x1, ym]),
                     np.column_stack([x0, ym, xm, y1]), np.column_stack([xm, ym, x1, y1])], axis=1)
    return kids.reshape(-1, 4)


@dataclass(frozen=True, eq=False)
class DepthNodes:
    """Keyer of one PrivTree depth: the index of the point's node among the depth's nodes (Morton
    ``codes``, sorted), or -1 when its cell at that depth was not created (it lies in a leaf above).

    A :class:`psdviz.splits.keyers.CoarseKeyer` in form: the coarse key is the point's cell at this
    depth (row-major, also as SQL, so DuckDB groups by it without Python) and ``apply_post`` turns the
    distinct cells into node indices. Where the source keeps its rows (in memory) the previous depth's
    nodes are in ``memo``: a point then moves to child 4 r + quadrant of its parent, r the parent's
    rank among the split nodes (``parent_rank``, -1 if not split)."""

    depth: int
    bits: int
    codes: np.ndarray
    parent_rank: np.ndarray
    token: int

    @property
    def sql(self) -> str:
        return row_major_cells(self.bits, self.depth)[1]

    @property
    def sql_keep(self) -> tuple[str, np.ndarray] | None:
        """Only rows inside this depth's nodes: their parent cell (one depth up, row-major) must be one of
        the split parents, so the engine returns the nodes' groups, not every occupied cell."""
        if self.depth == 0:
            return None
        up = self.depth - 1
        px, py = morton.decode(np.unique(self.codes >> 2))
        return row_major_cells(self.bits, up)[1], (py.astype(np.int64) << up) | px.astype(np.int64)

    def apply_post(self, cell: np.ndarray) -> np.ndarray:
        mask = (1 << self.depth) - 1
        code = morton.encode(cell & mask, cell >> self.depth)
        i = np.minimum(np.searchsorted(self.codes, code), self.codes.size - 1)
        return np.where(self.codes[i] == code, i, -1)

    def __call__(self, kx: np.ndarray, ky: np.ndarray, memo: dict) -> np.ndarray:
        prev = memo.get(self.token)
        shift = self.bits - self.depth
        if prev is not None and prev[0] == self.depth - 1:
            r = np.where(prev[1] >= 0, self.parent_rank[np.maximum(prev[1], 0)], -1)
            quad = ((kx >> shift) & 1) + 2 * ((ky >> shift) & 1)
            node = np.where(r >= 0, 4 * r + quad, -1)
        else:
            node = self.apply_post(row_major_cells(self.bits, self.depth)[0](kx, ky))
        memo[self.token] = (self.depth, node)
        return node


def grow(ps: KeySource, lam: float, delta: float, theta: float, max_depth: int,
         rng: np.random.Generator) -> dict:
    """The PrivTree structure over the source's grid keys, one pass per depth (the counts of that
    depth's nodes); returns integer node rectangles and the true leaf counts. A node at depth d is a
    cell of the 2^d x 2^d grid (max_depth <= bits), so a point's node is its Morton code there; the
    children of a split node with code c are 4c + quadrant (SW, SE, NW, NE), which keeps every
    depth's nodes sorted by code. Keys held in memory are sorted once by Morton code instead
    (:class:`psdviz.splits.morton.MortonBlocks`): a node's count is then two bisections, no pass."""
    size, bits = ps.grid.size, ps.grid.bits
    rects, parents, leaf_mask, counts_all = [np.array([[0, 0, size, size]])], [np.array([-1])], [], []
    codes, rank = np.zeros(1, np.int64), np.zeros(1, np.int64)
    offset, total, token, cut = 0, 1, memo_token(), None
    held = ps.held()
    blocks = None if held is None else morton.MortonBlocks(*held, bits)
    for d in range(max_depth + 1):
        rect = rects[-1]
        counts = (ps.counts(DepthNodes(d, bits, codes, rank, token), rect.shape[0]) if blocks is None
                  else blocks.counts(codes, d))
        split = split_decisions(counts, d, lam, delta, theta, rng) if d < max_depth else np.zeros(rect.shape[0], bool)
        leaf_mask.append(~split)
        counts_all.append(counts)
        report(d + 1, max_depth + 1, "PrivTree depths")
        if not split.any():
            break
        grown = total + 4 * int(split.sum())
        if memory_limit() and grown > node_cap():   # the tree cut here: post-processing
            leaf_mask[-1] = np.ones(rect.shape[0], bool)
            cut = (f"the tree cut at depth {d}: its split decisions there would pass the {node_cap():,} nodes "
                   f"memory_limit {memory_limit()} holds ({grown:,})")
            break
        total = grown
        check_node_count(total, "PrivTree's tree", "lower max_depth")
        sp = np.flatnonzero(split)
        codes = (4 * codes[sp][:, None] + np.arange(4)).ravel()
        rank = np.where(split, np.cumsum(split) - 1, -1)
        rects.append(_quadrants(rect[sp]))
        parents.append(np.repeat(sp + offset, 4))
        offset += rect.shape[0]
    getattr(ps, "memo", {}).pop(token, None)
    return {"rects": rects, "parents": parents, "leaf": leaf_mask, "counts": counts_all, "cut": cut}


def build_privtree(ps: PointSet, domain: Domain, epsilon: float, rnd: Randomness, *,
                   tree_fraction: Share = TREE_FRACTION, theta: float = 0.0,
                   max_depth: int | None = None) -> Release:
    """PrivTree with ``tree_fraction`` of epsilon for the split decisions, the rest for leaf counts."""
    frac = check_fraction(tree_fraction, "tree_fraction")
    asked = None if max_depth is None else check_int(max_depth, "max_depth", 1, 40)
    if not (isinstance(theta, (int, float)) and math.isfinite(theta)):
        raise ParameterError(f"theta must be a finite number (got {theta!r})")
    ledger = Ledger(epsilon)
    eps_t, eps_c = frac * epsilon, (1 - frac) * epsilon
    lam, delta = privtree_parameters(eps_t)
    max_depth, capped = ((min(MAX_DEPTH, ps.grid.bits), None) if asked is None
                         else cap_by_resolution(asked, ps.grid.bits, "max_depth", ps.grid.bits))
    g = grow(ps, lam, delta, float(theta), max_depth, rnd.rng)
    g["rects"] = [ps.grid.rects(r) for r in g["rects"]]
    ledger.spend("split decisions", eps_t, "laplace (PrivTree biased counts)",
                 nodes=int(sum(r.shape[0] for r in g["rects"])),
                 note=f"lambda = {lam:.4g}, delta = {delta:.4g}, theta = {theta:g}; valid for any depth")
    leaf = np.concatenate(g["leaf"])
    counts = np.concatenate(g["counts"])
    noisy_leaves, var_leaves = measure_counts(rnd, ledger, counts[leaf], eps_c,
                                              note="leaves of PrivTree (disjoint)")
    split_eps = np.zeros(leaf.size)
    split_eps[0] = eps_t          # the split decisions, valid for the whole tree, charged once at the root
    tree = level_tree(g, leaf, FANOUT, noisy_leaves, var_leaves, eps_c, split_eps)
    tree.est = tree.subtree_sum(np.where(tree.is_leaf, tree.noisy, 0.0))
    params = {"tree_fraction": frac, "theta": float(theta), "max_depth": max_depth, "lambda": lam, "delta": delta,
              "depth_reached": int(tree.height), "leaves": int(leaf.sum())}
    return make_release("privtree", params, domain, tree, ledger, rnd, ps.report(), consistent=True, grid=ps.grid,
                        notes=(capped, g["cut"]), query_model={"answer": "tree", "variance": "leaf"})


def level_tree(g: dict, leaf: np.ndarray, fanout: int, noisy_leaves: np.ndarray, var_leaves: np.ndarray,
               eps_c: float, split_eps: np.ndarray) -> FlatTree:
    """Flat arrays of a tree grown depth by depth (``g``: per-depth rects and parents, the children of each
    split node appended in order), so the children of the k-th internal node are 1 + fanout k onwards.
    Leaves carry their noisy counts and ``eps_c``; ``split_eps`` is the per-node structure cost."""
    rect = np.vstack(g["rects"])
    parent = np.concatenate(g["parents"]).astype(np.int64)
    depth = np.concatenate([np.full(r.shape[0], d, np.int16) for d, r in enumerate(g["rects"])])
    n = rect.shape[0]
    internal = np.flatnonzero(~leaf)
    first = np.full(n, -1, np.int64)
    first[internal] = 1 + fanout * np.arange(internal.size)
    noisy = np.full(n, np.nan)
    var = np.full(n, np.inf)
    noisy[leaf], var[leaf] = noisy_leaves, var_leaves
    return FlatTree(rect=rect, depth=depth, parent=parent, first_child=first,
                    n_children=np.where(leaf, 0, fanout).astype(np.int32), noisy=noisy,
                    count_eps=np.where(leaf, eps_c, 0.0), split_eps=split_eps, noise_var=var)


# what this module declares (psdviz/methods/spec.py): parameters whose meaning is its own, then the method
PARAMS = {
    "tree_fraction": doc("PrivTree: share of epsilon spent on deciding which cells to split; the rest pays for the "
                         "leaf counts.", "PrivTree (SIGMOD'16), section 3", **FRACTION),
    "theta": doc("PrivTree: a cell is split while its noisy, depth-biased count exceeds theta (the paper uses 0).",
                 "PrivTree (SIGMOD'16), Algorithm 2"),
    "max_depth": doc("PrivTree: a safety cap on the depth (no privacy cost); the tree normally stops earlier. "
                     "A value given above the grid's resolution is capped to it, and the release says so.", "", 1, 40,
                     when_none=f"the grid's resolution, at most {MAX_DEPTH}"),
}

SPEC = MethodSpec("privtree", build_privtree, paper="PrivTree (Zhang et al., SIGMOD'16)", params=PARAMS, rank=10)
