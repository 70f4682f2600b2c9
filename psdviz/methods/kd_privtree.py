"""kd-privtree: PrivTree's stopping rule on a binary tree whose split positions are chosen privately.

A node is split while its depth-biased noisy count b(v) + Lap(lambda) exceeds theta (PrivTree, Zhang,
Xiao, Xie, SIGMOD 2016, :mod:`psdviz.methods.privtree`), and cut where the data's edge is: the position
is drawn by the exponential mechanism from a few dyadic grid positions, scored by how far the count on
one side is from its area's share (:mod:`psdviz.splits.imbalance`). Deeper than ``split_levels`` a node
is cut at the midpoint of its longer side, which reads no data.

Privacy: only the changed point's path differs between neighbours. (1) The stop / split tests: the
paper's bound (Lemma 3.1, Theorem 3.1) needs only that counts do not grow from parent to child and that
one point changes each count on its path by at most 1, whatever the positions; with beta = 2,
lambda = (2 beta - 1) / ((beta - 1) eps_t) and delta = lambda ln beta they cost eps_t at any depth.
(2) Positions: each split node of depth < ``split_levels`` runs the exponential mechanism with
eps_s / split_levels (sensitivity 1; nodes of a depth are disjoint). (3) The leaves get geometric noise
with the rest, eps_c. Total eps_t + eps_s + eps_c = epsilon.

Passes over the data: at depths that draw positions, the counts of (node, x key) and (node, y key);
below them, the nodes' counts. None when the source holds its keys in memory: they are sorted once into an
x-order and a y-order kept across the depths (:mod:`psdviz.splits.kd_orders`), the y-order only while
positions are drawn. Defaults and measurements: docs/decisions/kd-privtree.md.
"""
from __future__ import annotations

import math
from functools import partial

import numpy as np

from ..core.domain import Domain, PointSet
from ..core.errors import ParameterError
from ..core.grid import cap_by_resolution
from ..core.ledger import Ledger
from ..core.measure import measure_counts
from ..core.params import Share
from ..core.progress import report
from ..core.rng import Randomness
from ..core.source import KeySource, RowIds, memo_token
from ..core.tree import check_node_count
from ..core.validation import check_fraction, check_int
from ..publish.factory import make_release
from ..publish.release import Release
from ..splits.imbalance import candidates, choose_splits, imbalance, left_counts
from ..splits.kd_orders import AxisOrders
from ..splits.kdsplit import split_children
from .privtree import level_tree, privtree_parameters, split_decisions
from .spec import FRACTION, MethodSpec, doc

TREE_FRACTION = 0.3     # stop / split tests (module docstring)
SPLIT_FRACTION = 0.3    # split positions
SPLIT_LEVELS = 8        # depths whose positions are drawn privately; midpoints below
BETA = 2                # PrivTree's beta for a binary tree
MAX_DEPTH = 40          # safety cap when max_depth is unset (a node one grid step wide on both axes is a leaf
                        # anyway); cutting the tree at a fixed depth is a function of the uncapped tree, so it
                        # costs no privacy


def deepest_depth(bits: int, split_levels: int) -> int:
    """The deepest depth a kd-privtree on a 2^bits x 2^bits grid can reach with ``split_levels`` private depths.

    Each of the private depths may shave one grid step off a side (a dyadic cut at offset 1), and below them a
    cell w x h cut at the middle of its longer side is one step wide on both axes after ceil(log2 w) +
    ceil(log2 h) <= 2 bits more depths; no cell is cut more often than its (w - 1) + (h - 1) inner grid lines.

    Parameters
    ----------
    bits : int
        The public resolution (grid positions per axis: 2^bits).
    split_levels : int
        The depths whose cut positions are drawn privately.

    Returns
    -------
    int
        No node of the tree is deeper, whatever the data.

    Examples
    --------
    >>> deepest_depth(12, 8), deepest_depth(2, 8)
    (32, 6)
    """
    return min(split_levels + 2 * bits, 2 * ((1 << bits) - 1))


def _step(kx: np.ndarray, ky: np.ndarray, node: np.ndarray, level: tuple) -> np.ndarray:
    """Node one depth down: child 2 r + side of a split parent of rank r, -1 below a leaf (a leaf's
    thresholds are never reached, so its rows get base -1 + 0) and for rows already at -1 (the cuts' last
    entry is such a leaf)."""
    base, tx, ty = level
    return base[node] + ((kx >= tx[node]) | (ky >= ty[node]))


def _level(rank: np.ndarray, axis: np.ndarray, pos: np.ndarray) -> tuple:
    """One depth's cuts as (base, x threshold, y threshold) per node, plus a last entry for node -1 (rows
    below a leaf stay there): a row of a split node goes to child base + 1 when its key on the cut's axis
    is at or above the cut, the other axis never deciding."""
    never = np.iinfo(np.int64).max
    split = rank >= 0
    return (np.r_[np.where(split, 2 * rank, -1), -1], np.r_[np.where(split & (axis == 0), pos, never), never],
            np.r_[np.where(split & (axis == 1), pos, never), never])


def _keyer(kx, ky, memo, levels: list, token: int, axis: int | None, bits: int) -> np.ndarray | RowIds:
    """Each point's node at depth len(levels) (-1 if it is in a leaf above) and, with ``axis``, its key
    on that axis: node << bits | key. A source that keeps its rows keeps, in ``memo``, the rows still in
    a node and their nodes (rows in a leaf are dropped once they are a quarter of those kept)."""
    depth, rows, node, x, y = memo.get(token, (0, None, None, kx, ky))
    if rows is None:
        rows, node = np.arange(kx.size), np.zeros(kx.size, np.int64)
    for level in levels[depth:]:
        node = _step(x, y, node, level)
        live = node >= 0
        if live.sum() < 0.75 * node.size:
            rows, node, x, y = rows[live], node[live], x[live], y[live]
    memo[token] = (len(levels), rows, node, x, y)
    if axis is not None:
        node = np.where(node >= 0, (node << bits) | (x if axis == 0 else y), -1)
    return RowIds(rows, node, kx.size) if rows.size < kx.size else node


class _Passes:
    """The counts a depth needs, one grouped pass over the source each (:func:`_keyer`): the nodes' counts
    (with the x marginals at a depth that draws positions), the counts left of candidate cuts."""

    def __init__(self, src: KeySource):
        self.src, self.bits = src, src.grid.bits
        self.levels: list = []
        self.token = memo_token()
        self.marginals: list = []

    def counts(self, n_nodes: int, private: bool) -> np.ndarray:
        keyer = partial(_keyer, levels=list(self.levels), token=self.token, bits=self.bits)
        if not private:
            return self.src.counts(partial(keyer, axis=None), n_nodes)
        self.marginals = [self.src.grouped(partial(keyer, axis=0)), None]   # counts and half of the scores
        return np.bincount(self.marginals[0][0] >> self.bits, weights=self.marginals[0][1], minlength=n_nodes)

    def left_counts(self, axis: int, nodes: np.ndarray, pos: np.ndarray) -> np.ndarray:
        if self.marginals[axis] is None:
            self.marginals[axis] = self.src.grouped(partial(_keyer, levels=list(self.levels), token=self.token,
                                                            axis=axis, bits=self.bits))
        ids, cnt = self.marginals[axis]
        return left_counts(ids, cnt, nodes, pos, self.bits)

    def advance(self, split: np.ndarray, axis: np.ndarray, pos: np.ndarray, next_private: bool) -> None:
        self.levels.append(_level(np.where(split, np.cumsum(split) - 1, -1), axis, pos))

    def close(self) -> None:
        getattr(self.src, "memo", {}).pop(self.token, None)


class _Held:
    """The same counts from keys held in memory, in two orders kept across the depths
    (:class:`psdviz.splits.kd_orders.AxisOrders`: nodes' counts and counts left of a cut by bisection, no
    pass); below the depths that draw positions only the x-order is kept."""

    def __init__(self, src: KeySource, keys: tuple[np.ndarray, np.ndarray, np.ndarray | None]):
        kx, ky, counts = keys
        self.orders = AxisOrders(kx, ky, counts, src.grid.bits)

    def counts(self, n_nodes: int, private: bool) -> np.ndarray:
        counts = self.orders.node_counts()
        return counts.astype(float) if private else counts      # as the passes give them

    def left_counts(self, axis: int, nodes: np.ndarray, pos: np.ndarray) -> np.ndarray:
        return self.orders.left_counts(axis, nodes, pos)

    def advance(self, split: np.ndarray, axis: np.ndarray, pos: np.ndarray, next_private: bool) -> None:
        self.orders.divide(split, axis, pos, orders=(0, 1) if next_private else (0,))

    def close(self) -> None:
        """Nothing is held open."""


def _positions(counter: _Passes | _Held, rect: np.ndarray, counts: np.ndarray, split: np.ndarray, bits: int,
               eps_level: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Private (axis, position) of every node in ``rect`` (all split: the nodes ``split`` of the depth, whose
    points the counter counts): exponential mechanism."""
    cand = candidates(rect, bits)
    node, axis, pos = cand["owner"], cand["axis"], cand["pos"]
    left = np.zeros(pos.size)
    for a in (0, 1):
        m = axis == a
        left[m] = counter.left_counts(a, split[node[m]], pos[m])
    lo, hi = rect[node, axis], rect[node, axis + 2]
    return choose_splits(rng, cand, imbalance(left, counts[node], pos, lo, hi), eps_level)


def _midpoints(rect: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Data-independent split: the middle of the longer side (x on ties)."""
    w, h = rect[:, 2] - rect[:, 0], rect[:, 3] - rect[:, 1]
    axis = np.where(w >= h, 0, 1)
    lo, hi = np.where(axis == 0, rect[:, 0], rect[:, 1]), np.where(axis == 0, rect[:, 2], rect[:, 3])
    return axis, (lo + hi) // 2


def _children(rect: np.ndarray, axis: np.ndarray, pos: np.ndarray) -> np.ndarray:
    out = np.empty((rect.shape[0], 2, 4), np.int64)
    for a in (0, 1):
        m = axis == a
        out[m] = split_children(rect[m], a, pos[m]).reshape(-1, 2, 4)
    return out.reshape(-1, 4)


def grow(src: KeySource, lam: float, delta: float, theta: float, eps_level: float, split_levels: int,
         max_depth: int, rng: np.random.Generator) -> dict:
    """Depth by depth: the nodes' counts, the PrivTree tests, private or midpoint positions, children. The
    counts come from passes over the source, or from its keys when it holds them in memory (the same
    counts: :class:`_Held`)."""
    size = src.grid.size
    rects: list[np.ndarray] = [np.array([[0, 0, size, size]], np.int64)]
    parents: list[np.ndarray] = [np.array([-1])]
    leaf_mask: list[np.ndarray] = []
    counts_all: list[np.ndarray] = []
    offset, total = 0, 1
    keys = src.held()
    counter = _Passes(src) if keys is None else _Held(src, keys)
    try:
        for d in range(max_depth + 1):
            rect, private = rects[-1], d < split_levels
            counts = counter.counts(rect.shape[0], private)
            splittable = (d < max_depth) & ((rect[:, 2] - rect[:, 0] > 1) | (rect[:, 3] - rect[:, 1] > 1))
            split = splittable & split_decisions(counts, d, lam, delta, theta, rng)
            leaf_mask.append(~split)
            counts_all.append(counts.astype(np.int64))
            report(d + 1, max_depth + 1, "kd-privtree depths")
            if not split.any():
                break
            total += 2 * int(split.sum())
            check_node_count(total, "the kd-privtree", "lower max_depth")
            sp = np.flatnonzero(split)
            axis, pos = (_positions(counter, rect[sp], counts[sp], sp, src.grid.bits, eps_level, rng)
                         if private else _midpoints(rect[sp]))
            full_axis, full_pos = np.zeros(rect.shape[0], np.int64), np.zeros(rect.shape[0], np.int64)
            full_axis[sp], full_pos[sp] = axis, pos
            counter.advance(split, full_axis, full_pos, d + 1 < split_levels)
            rects.append(_children(rect[sp], axis, pos))
            parents.append(np.repeat(sp + offset, 2))
            offset += rect.shape[0]
    finally:
        counter.close()
    return {"rects": rects, "parents": parents, "leaf": leaf_mask, "counts": counts_all}


def build_kd_privtree(ps: PointSet, domain: Domain, epsilon: float, rnd: Randomness, *,
                      tree_fraction: Share = TREE_FRACTION, split_fraction: Share = SPLIT_FRACTION,
                      split_levels: int = SPLIT_LEVELS, theta: float = 0.0, max_depth: int | None = None) -> Release:
    """kd-privtree with ``tree_fraction`` of epsilon for the stop / split tests, ``split_fraction`` for
    the positions of the top ``split_levels`` depths, the rest for the leaf counts. ``max_depth`` unset: as
    deep as the grid allows (:func:`deepest_depth`), at most 40; a value given above that depth is
    capped to it with a note."""
    t_frac = check_fraction(tree_fraction, "tree_fraction")
    s_frac = check_fraction(split_fraction, "split_fraction")
    if t_frac + s_frac >= 1:
        raise ParameterError(f"tree_fraction + split_fraction must be below 1 to leave budget for the leaf counts "
                             f"(got {t_frac:g} + {s_frac:g})")
    split_levels = check_int(split_levels, "split_levels", 1, 64)
    asked = None if max_depth is None else check_int(max_depth, "max_depth", 1, 64)
    if not (isinstance(theta, (int, float)) and math.isfinite(theta)):
        raise ParameterError(f"theta must be a finite number (got {theta!r})")
    ledger = Ledger(epsilon)
    eps_t, eps_s = t_frac * epsilon, s_frac * epsilon
    eps_c = epsilon - eps_t - eps_s
    lam, delta = privtree_parameters(eps_t, BETA)
    deepest = deepest_depth(ps.grid.bits, split_levels)
    max_depth, capped = ((min(MAX_DEPTH, deepest), None) if asked is None
                         else cap_by_resolution(asked, deepest, "max_depth", ps.grid.bits))
    levels_used = min(split_levels, max_depth)
    eps_level = eps_s / levels_used
    g = grow(ps, lam, delta, float(theta), eps_level, levels_used, max_depth, rnd.rng)
    n_nodes = int(sum(r.shape[0] for r in g["rects"]))
    ledger.spend("split decisions", eps_t, "laplace (PrivTree biased counts, beta = 2)", nodes=n_nodes,
                 note=f"lambda = {lam:.4g}, delta = {delta:.4g}, theta = {theta:g}; valid for any depth")
    ledger.spend("split positions", eps_s, "exponential mechanism (count imbalance, dyadic positions)",
                 nodes=int(sum((~m).sum() for m in g["leaf"][:levels_used])),
                 note=f"{eps_level:.4g} per depth for the top {levels_used} depths (disjoint nodes per depth); "
                      "midpoints below")
    leaf = np.concatenate(g["leaf"])
    counts = np.concatenate(g["counts"])
    noisy, var = measure_counts(rnd, ledger, counts[leaf], eps_c, note="leaves of kd-privtree (disjoint)")
    g["rects"] = [ps.grid.rects(r) for r in g["rects"]]
    depth = np.concatenate([np.full(r.shape[0], d) for d, r in enumerate(g["rects"])])
    split_eps = np.where(~leaf & (depth < levels_used), eps_level, 0.0)   # positions drawn privately
    split_eps[0] += eps_t                                                  # the tests, once for the tree
    tree = level_tree(g, leaf, 2, noisy, var, eps_c, split_eps)
    tree.est = tree.subtree_sum(np.where(tree.is_leaf, tree.noisy, 0.0))
    params = {"tree_fraction": t_frac, "split_fraction": s_frac, "split_levels": levels_used, "theta": float(theta),
              "max_depth": max_depth, "lambda": lam, "delta": delta, "depth_reached": int(tree.height),
              "leaves": int(leaf.sum())}
    return make_release("kd-privtree", params, domain, tree, ledger, rnd, ps.report(), consistent=True, grid=ps.grid,
                        notes=(capped,), query_model={"answer": "tree", "variance": "leaf", "data_cuts": levels_used})


# what this module declares (psdviz/methods/spec.py): parameters whose meaning is its own, then the method
PARAMS = {
    "tree_fraction": doc("kd-privtree: share of epsilon spent on PrivTree's tests of which cells "
                         "to split; split_fraction pays for where, the rest for the leaf counts.",
                         "PrivTree (SIGMOD'16), Theorem 3.1", **FRACTION),
    "split_fraction": doc("kd-privtree: share of epsilon spent on choosing where each cell is cut (exponential "
                          "mechanism over a few grid positions); the rest goes to the split tests and counts.",
                          "", **FRACTION),
    "split_levels": doc("kd-privtree: how many top depths choose their cut privately (the budget is split evenly "
                        "between them); deeper cells are cut at the middle of their longer side, for free.", "", 1, 64),
    "theta": doc("kd-privtree: a cell is split while its noisy, depth-biased count exceeds theta "
                 "(PrivTree's rule; 0 as in the paper).", "PrivTree (SIGMOD'16)"),
    "max_depth": doc("kd-privtree: a safety cap on the depth of the binary tree (no privacy cost); the tree "
                     "normally stops earlier. No cell can be deeper than split_levels + 2 x resolution; a value given "
                     "above that is capped to it, and the release says so.", "", 1, 64,
                     when_none=f"as deep as the grid allows, at most {MAX_DEPTH}"),
}

SPEC = MethodSpec("kd-privtree", build_kd_privtree, paper="PrivTree (SIGMOD'16) with kd cuts (psdviz's own)",
                  params=PARAMS, rank=11)
