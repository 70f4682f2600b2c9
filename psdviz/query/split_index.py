"""Fast canonical range queries on trees built from sorted 1-D splits and regular grids.

The h-tree family (private h-tree paper, sections 4.2 and 6) nests three kinds of levels: a node
cut into *x-strips* (children sorted along x, each spanning the parent's full y-range), a node cut
into *y-cells* (the same along y), and a node cut into a regular k x k *grid* of leaves
(ht-hybrid's fine layer). ht-standard is x then y; ht-composite x, y, x, y; ht-hybrid x, y, grid.

This index evaluates exactly the canonical decomposition of ``query.answer_tree`` (ICDE'12
section 4.1: a usable node fully inside the query contributes its value, a partly covered node is
opened, a partly covered leaf contributes its area share) without enumerating every child of an
opened node. For an opened (query, node) pair on a split level:

* the children overlapping the query along the split axis are a contiguous run, found by one
  ``searchsorted`` on exact integer keys (parent rank, rank of the edge among the level's edges);
* if the query covers the node along the other axis, the children strictly inside the run are
  fully inside the query: their values are summed from a prefix table; only the (at most two) end
  children are classified one by one;
* otherwise every child of the run is partly covered: leaves contribute the covered fraction along
  the other axis times the prefix-table sum (plus the end shares), internal children are opened.

On a grid level the covered leaves and the shares of the partly covered ones add up to the
integral of the piecewise-constant leaf density, i.e. a bilinear reading of the node's 2-D prefix
table (as in ``pyramid.py``). Results equal ``answer_tree`` up to floating-point rounding (tested).
Zero-width cells (a probability-zero event of the private splits) are outside this guarantee.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.grid import Grid, even_units
from ..core.tree import FlatTree

CHUNK = 2048          # queries per batch
MAX_PAIRS = 1 << 19   # (query, node) pairs processed at once: bounds the temporary arrays


@dataclass
class _SplitLevel:
    """Children of the nodes at one depth, sorted along ``axis`` within each parent."""

    axis: int               # 0: children are x-strips, 1: children are y-cells
    first: int              # global id of the level's first node (the parents)
    kid_first: int          # global id of the first child
    lo: np.ndarray          # (c,) children's low edge along the axis
    hi: np.ndarray          # (c,) children's high edge along the axis
    edges: np.ndarray       # sorted distinct edge values of the level
    key_lo: np.ndarray      # parent rank * stride + rank of lo among ``edges`` (non-decreasing)
    key_hi: np.ndarray      # the same for hi
    stride: int
    value: np.ndarray       # (c,) child values
    prefix: np.ndarray      # (c + 1,) cumulative child values
    leaves: bool            # children are leaves
    profile: _Profile | None = None   # set when the grandchildren are leaves cut along the other axis

    def share(self, c: np.ndarray, sel: np.ndarray, t0: np.ndarray, t1: np.ndarray) -> np.ndarray:
        """Where ``sel``: child c's value times the covered fraction of its extent along the axis."""
        c = np.clip(c, 0, self.lo.size - 1)
        lo, hi = self.lo[c], self.hi[c]
        ov = np.minimum(t1, hi) - np.maximum(t0, lo)
        ext = hi - lo
        ok = sel & (ov > 0) & (ext > 0)
        return np.where(ok, np.divide(ov, ext, out=np.zeros(ext.size), where=ok) * self.value[c], 0.0)

    def run(self, parent_rank: np.ndarray, rank0: np.ndarray, rank1: np.ndarray):
        """Child index range [r0, r1) of the children with hi > t0 and lo < t1, given
        rank0 = #edges <= t0 and rank1 = #edges < t1 (exact integer comparisons)."""
        base = parent_rank * self.stride
        r0 = np.searchsorted(self.key_hi, base + rank0, side="left")
        r1 = np.searchsorted(self.key_lo, base + rank1, side="left")
        return r0, np.maximum(r1, r0)


@dataclass
class _Profile:
    """Per node v of a split level whose children are cut along the other axis b into leaves:
    M_v(t) = sum over v's children of the integral of their leaf density along b from v's low edge
    to t. M_v is piecewise linear with a breakpoint at every grandchild edge; it answers a query
    that covers v along the split axis but not along b in one lookup, M_v(t1) - M_v(t0), which is
    the sum of the canonical answers of all of v's children (each opened, its leaves summed)."""

    edges: np.ndarray   # sorted distinct breakpoint values of the level
    key: np.ndarray     # node rank * stride + rank of the breakpoint among ``edges`` (sorted)
    stride: int
    pos: np.ndarray     # breakpoint values
    at: np.ndarray      # M_v at each breakpoint
    slope: np.ndarray   # slope of M_v right of each breakpoint

    def __call__(self, node_rank: np.ndarray, t: np.ndarray) -> np.ndarray:
        rank = np.searchsorted(self.edges, t, side="right")
        i = np.searchsorted(self.key, node_rank * self.stride + rank, side="left") - 1
        return self.at[i] + self.slope[i] * (t - self.pos[i])


@dataclass
class _GridLevel:
    """Every node of one depth holds a k x k grid of leaves (row-major, x fastest)."""

    k: int
    first: int
    tables: np.ndarray      # (n_nodes_at_depth, k + 1, k + 1) 2-D prefix tables of the leaf values


class SplitIndex:
    """Canonical answers on a FlatTree whose levels are x-splits, y-splits or a final leaf grid."""

    def __init__(self, tree: FlatTree, values: np.ndarray, grid: Grid | None = None):
        """``grid``: the public resolution grid when leaf grids have near-equal cells on it
        (:func:`psdviz.core.grid.even_edges`); without it, leaf grids must be regular."""
        values = np.asarray(values, dtype=float)
        if not np.isfinite(values[1:]).all():
            raise ValueError("SplitIndex needs a usable (finite) value on every non-root node")
        self.rect = tree.rect
        self.grid = grid
        self.values = values
        self.area = (tree.rect[:, 2] - tree.rect[:, 0]) * (tree.rect[:, 3] - tree.rect[:, 1])
        self.is_leaf = tree.is_leaf
        bounds = tree.level_bounds()
        self.levels = [_make_level(tree, values, bounds, d, grid) for d in range(tree.height)]
        for d, (lev, nxt) in enumerate(zip(self.levels, self.levels[1:])):
            if (isinstance(lev, _SplitLevel) and isinstance(nxt, _SplitLevel) and nxt.leaves
                    and nxt.axis != lev.axis):
                lev.profile = _make_profile(tree, values, bounds, d, nxt.axis)

    # -- the canonical step on explicit (query, node) pairs, as in query.decompose ------------------
    def _classify(self, rects, q, v, out):
        """Adds taken nodes and leaf shares to ``out``; returns the pairs to open."""
        r, n = rects[q], self.rect[v]
        ox = np.minimum(r[:, 2], n[:, 2]) - np.maximum(r[:, 0], n[:, 0])
        oy = np.minimum(r[:, 3], n[:, 3]) - np.maximum(r[:, 1], n[:, 1])
        inside = (n[:, 0] >= r[:, 0]) & (n[:, 2] <= r[:, 2]) & (n[:, 1] >= r[:, 1]) & (n[:, 3] <= r[:, 3])
        hit = inside | ((ox > 0) & (oy > 0))
        val = self.values[v]
        usable = np.isfinite(val)
        take = inside & usable
        opened = hit & ~take
        leaf = self.is_leaf[v]
        part = opened & leaf & usable
        ar = self.area[v]
        share = np.divide(ox * oy, ar, out=np.zeros(ar.size), where=part & (ar > 0))
        w = np.where(take, val, 0.0) + np.where(part, share * np.where(usable, val, 0.0), 0.0)
        out += np.bincount(q, weights=w, minlength=out.size)
        go = opened & ~leaf
        return q[go], v[go]

    def _split_step(self, lev: _SplitLevel, rects, q, v, out):
        a, b = lev.axis, 1 - lev.axis
        r, n = rects[q], self.rect[v]
        a0, a1 = r[:, a], r[:, a + 2]
        rank0 = np.searchsorted(lev.edges, rects[:, a], side="right")[q]    # once per query, then gathered
        rank1 = np.searchsorted(lev.edges, rects[:, a + 2], side="left")[q]
        r0, r1 = lev.run(v - lev.first, rank0, rank1)
        has = r1 > r0
        lp = has & (lev.lo[np.minimum(r0, lev.lo.size - 1)] < a0)
        rp = has & (lev.hi[np.maximum(r1 - 1, 0)] > a1)
        i0, i1 = r0 + lp, np.maximum(r1 - rp, r0 + lp)
        inner = lev.prefix[i1] - lev.prefix[i0]
        covers = (n[:, b] >= r[:, b]) & (n[:, b + 2] <= r[:, b + 2])
        if lev.leaves:
            span = n[:, b + 2] - n[:, b]
            ob = np.minimum(r[:, b + 2], n[:, b + 2]) - np.maximum(r[:, b], n[:, b])
            frac = np.where(covers, 1.0, np.divide(np.maximum(ob, 0.0), span, out=np.zeros(span.size), where=span > 0))
            right = rp & ~(lp & (r1 - r0 == 1))
            ends = lev.share(r0, lp, a0, a1) + lev.share(r1 - 1, right, a0, a1)
            out += np.bincount(q, weights=frac * (inner + ends), minlength=out.size)
            return q[:0], v[:0]
        # internal children: the run's children are all partly covered (the ends always, the inner
        # ones too unless the query covers the node along b), usable and with a positive overlap,
        # so they are opened directly (as query.decompose would)
        out += np.bincount(q, weights=np.where(covers, inner, 0.0), minlength=out.size)
        eq, ev = self._ends(q[covers], r0[covers], r1[covers], lp[covers], rp[covers], lev.kid_first)
        nc = ~covers
        if lev.profile is not None:   # covered along a, not along b: one profile lookup per pair
            flat = nc & (n[:, a] >= a0) & (n[:, a + 2] <= a1)
            rank = v[flat] - lev.first
            lo_b, hi_b = n[flat, b], n[flat, b + 2]
            t0 = np.clip(r[flat, b], lo_b, hi_b)
            t1 = np.clip(r[flat, b + 2], lo_b, hi_b)
            out += np.bincount(q[flat], weights=lev.profile(rank, t1) - lev.profile(rank, t0), minlength=out.size)
            nc &= ~flat
        cnt = r1[nc] - r0[nc]
        aq = np.repeat(q[nc], cnt)
        av = np.arange(aq.size) - np.repeat(np.cumsum(cnt) - cnt, cnt) + np.repeat(r0[nc], cnt) + lev.kid_first
        return np.r_[eq, aq], np.r_[ev, av]

    @staticmethod
    def _ends(q, r0, r1, lp, rp, kid_first):
        """The partly covered end children of each run (left end, and right end if distinct)."""
        right = rp & ~(lp & (r1 - r0 == 1))
        return np.r_[q[lp], q[right]], np.r_[r0[lp], r1[right] - 1] + kid_first

    def _grid_step(self, lev: _GridLevel, rects, q, v, out):
        r, n = rects[q], self.rect[v]
        k = lev.k
        w, h = n[:, 2] - n[:, 0], n[:, 3] - n[:, 1]
        ok = (w > 0) & (h > 0)
        w, h = np.where(ok, w, 1.0), np.where(ok, h, 1.0)
        if self.grid is not None:      # near-equal cells on the public grid: units in grid steps
            g, a = self.grid.positions_float(r), self.grid.positions(n)
            u0, u1 = (even_units(g[:, c], a[:, 0], a[:, 2], k) for c in (0, 2))
            t0, t1 = (even_units(g[:, c], a[:, 1], a[:, 3], k) for c in (1, 3))
        else:
            u0 = np.clip((r[:, 0] - n[:, 0]) / w * k, 0, k)
            u1 = np.clip((r[:, 2] - n[:, 0]) / w * k, 0, k)
            t0 = np.clip((r[:, 1] - n[:, 1]) / h * k, 0, k)
            t1 = np.clip((r[:, 3] - n[:, 1]) / h * k, 0, k)
        flat = lev.tables.reshape(-1)
        base = (v - lev.first) * (k + 1) ** 2

        def f(x, y):
            i = np.minimum(np.floor(x).astype(np.int64), k - 1)
            j = np.minimum(np.floor(y).astype(np.int64), k - 1)
            fa, fb = x - i, y - j
            p = base + j * (k + 1) + i
            return (flat[p] * (1 - fa) * (1 - fb) + flat[p + 1] * fa * (1 - fb)
                    + flat[p + k + 1] * (1 - fa) * fb + flat[p + k + 2] * fa * fb)
        val = np.where(ok, f(u1, t1) - f(u0, t1) - f(u1, t0) + f(u0, t0), 0.0)
        out += np.bincount(q, weights=val, minlength=out.size)
        return q[:0], v[:0]

    def answer(self, rects: np.ndarray) -> np.ndarray:
        rects = np.asarray(rects, dtype=float)
        out = np.zeros(rects.shape[0])
        for s in range(0, rects.shape[0], CHUNK):
            part = np.zeros(min(CHUNK, rects.shape[0] - s))
            sub = rects[s:s + part.size]
            q, v = self._classify(sub, np.arange(part.size), np.zeros(part.size, np.int64), part)
            self._descend(sub, q, v, 0, part)
            out[s:s + part.size] = part
        return out

    def _descend(self, rects, q, v, d, out) -> None:
        """Open the (query, node) pairs at depth d, level by level, at most MAX_PAIRS at a time."""
        while q.size and d < len(self.levels):
            if q.size > MAX_PAIRS:
                for i in range(0, q.size, MAX_PAIRS):
                    self._descend(rects, q[i:i + MAX_PAIRS], v[i:i + MAX_PAIRS], d, out)
                return
            lev = self.levels[d]
            step = self._grid_step if isinstance(lev, _GridLevel) else self._split_step
            q, v = step(lev, rects, q, v, out)
            d += 1


def _make_level(tree: FlatTree, values: np.ndarray, bounds: np.ndarray, d: int, grid: Grid | None):
    lo, hi, chi = bounds[d], bounds[d + 1], bounds[d + 2]
    nk = tree.n_children[lo:hi]
    if (nk == 0).any() or tree.first_child[lo] != hi:
        raise ValueError(f"SplitIndex needs every node above the leaves to have children (depth {d})")
    owner = np.repeat(np.arange(hi - lo), nk)
    kids = tree.rect[hi:chi]
    par = tree.rect[lo:hi][owner]
    leaves = bool(tree.is_leaf[hi:chi].all())
    if not leaves and tree.is_leaf[hi:chi].any():
        raise ValueError(f"SplitIndex needs all leaves at one depth (mixed at depth {d + 1})")
    for axis in (0, 1):
        if _is_split(kids, par, owner, nk, axis):
            return _split_level(kids, owner, values[hi:chi], axis, lo, hi, leaves)
    k = int(round(np.sqrt(nk[0])))
    if leaves and (nk == k * k).all() and _is_grid(kids, tree.rect[lo:hi], k, grid):
        tables = np.zeros((hi - lo, k + 1, k + 1))
        np.cumsum(np.cumsum(values[hi:chi].reshape(hi - lo, k, k), axis=1), axis=2, out=tables[:, 1:, 1:])
        return _GridLevel(k, lo, tables)
    raise ValueError(f"depth {d}: children are neither sorted 1-D splits nor a regular leaf grid")


def _is_split(kids, par, owner, nk, axis) -> bool:
    b = 1 - axis
    if not (np.array_equal(kids[:, b], par[:, b]) and np.array_equal(kids[:, b + 2], par[:, b + 2])):
        return False
    first = np.cumsum(nk) - nk
    last = first + nk - 1
    chained = np.ones(kids.shape[0], bool)
    chained[first] = False
    prev_hi = np.r_[np.nan, kids[:-1, axis + 2]]
    return bool(np.array_equal(kids[first, axis], par[first, axis])
                and np.array_equal(kids[last, axis + 2], par[last, axis + 2])
                and np.array_equal(kids[chained, axis], prev_hi[chained])
                and (kids[:, axis + 2] >= kids[:, axis]).all())


def _is_grid(kids, parents, k, grid: Grid | None) -> bool:
    j, i = np.divmod(np.tile(np.arange(k * k), parents.shape[0]), k)
    p = np.repeat(parents, k * k, axis=0)
    if grid is not None:
        x0, y0, x1, y1 = grid.positions(p).T
        expect = grid.rects(np.column_stack([x0 + (i * (x1 - x0)) // k, y0 + (j * (y1 - y0)) // k,
                                             x0 + ((i + 1) * (x1 - x0)) // k, y0 + ((j + 1) * (y1 - y0)) // k]))
        return bool(np.array_equal(kids, expect))
    w, h = (p[:, 2] - p[:, 0]) / k, (p[:, 3] - p[:, 1]) / k
    expect = np.column_stack([p[:, 0] + i * w, p[:, 1] + j * h, p[:, 0] + (i + 1) * w, p[:, 1] + (j + 1) * h])
    scale = np.abs(p).max() + 1.0
    return bool(np.allclose(kids, expect, rtol=0, atol=1e-9 * scale))


def _split_level(kids, owner, kid_values, axis, lo, hi, leaves) -> _SplitLevel:
    klo, khi = kids[:, axis].copy(), kids[:, axis + 2].copy()
    edges = np.unique(np.r_[klo, khi])
    stride = edges.size + 1
    key_lo = owner * stride + np.searchsorted(edges, klo)
    key_hi = owner * stride + np.searchsorted(edges, khi)
    prefix = np.r_[0.0, np.cumsum(kid_values)]
    return _SplitLevel(axis, lo, hi, klo, khi, edges, key_lo, key_hi, stride, kid_values, prefix, leaves)


def _make_profile(tree: FlatTree, values: np.ndarray, bounds: np.ndarray, d: int, b: int) -> _Profile:
    """The piecewise-linear profiles M_v of the nodes at depth d (see :class:`_Profile`)."""
    g = np.arange(bounds[d + 2], bounds[d + 3])                 # leaf grandchildren
    owner = tree.parent[tree.parent[g]] - bounds[d]
    lo, hi = tree.rect[g, b], tree.rect[g, b + 2]
    ext = hi - lo
    dens = np.divide(values[g], ext, out=np.zeros(g.size), where=ext > 0)
    ev_owner = np.r_[owner, owner]
    ev_pos = np.r_[lo, hi]
    ev_delta = np.r_[dens, -dens]
    order = np.lexsort((ev_pos, ev_owner))
    ev_owner, ev_pos, ev_delta = ev_owner[order], ev_pos[order], ev_delta[order]
    new = np.r_[True, (ev_owner[1:] != ev_owner[:-1]) | (ev_pos[1:] != ev_pos[:-1])]
    starts = np.flatnonzero(new)
    own, pos = ev_owner[starts], ev_pos[starts]
    delta = np.add.reduceat(ev_delta, starts)
    seg = np.r_[True, own[1:] != own[:-1]]
    slope = _segment_cumsum(delta, seg)
    step = np.r_[slope[:-1] * np.diff(pos), 0.0]               # M increase to the next breakpoint
    at = _segment_cumsum(step, seg) - step                    # M at each breakpoint (0 at v's low edge)
    edges = np.unique(pos)
    stride = edges.size + 1
    key = own * stride + np.searchsorted(edges, pos)
    return _Profile(edges, key, stride, pos, at, slope)


def _segment_cumsum(x: np.ndarray, seg_start: np.ndarray) -> np.ndarray:
    """Inclusive cumulative sum restarting at every True of ``seg_start``."""
    c = np.cumsum(x)
    first = np.flatnonzero(seg_start)
    base = np.repeat(c[first] - x[first], np.diff(np.r_[first, x.size]))
    return c - base
