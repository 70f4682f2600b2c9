"""Private h-tree (private h-tree paper: sections 4.2.2-4.2.5, Algorithms 1-3, variants of section 6).

ht-standard: strips on x by private recursive slicing (``slicing.py``), then cells on y inside each
strip, both with m parts, m = sqrt(N eps_c / c), c = 3 (Eq. 3), rounded, >= 1. Median budget
eps_m = 0.4 eps (section 5.1), each slicing round eps_m / (2 ceil(log2 m)) (section 4.2.4); counts by
the cube-root rule (section 4.2.3): eps_c / (1 + m^(1/3)) for the strips, the rest for the cells;
post-processing is the exact least-squares estimate (Algorithm 3 read as its text says, "same result
as OLS"; ``tree_gls.py``). Variants (section 6, ``variant=``): "composite" (a coarse m1 x m1 h-tree with
a fine m2 x m2 h-tree in each cell) and "hybrid" (uniform m2 x m2 grids inside), m = m1 * m2.

Privacy: N is public or a noisy count with ``n_fraction`` of epsilon (the root's split_eps); slicing
rounds of one level act on disjoint ranges; a node's split_eps is the rounds that shaped its children
times the round cost; levels compose sequentially to epsilon.

Queries go through ``split_index.SplitIndex``, which returns exactly the canonical answer. Passes over
the data: one (the occupied grid cells); the levels then run in memory on the points rebuilt from
them. The readings of the variants' sizes and budgets are in docs/decisions/htree.md.
"""
from __future__ import annotations

import math
from typing import Literal, get_args

import numpy as np

from ..core.domain import Domain, PointSet
from ..core.errors import ParameterError
from ..core.grid import Grid, cap_by_resolution, even_part
from ..core.ledger import Ledger
from ..core.measure import measure_counts
from ..core.memory import cap_by_memory, cap_cells
from ..core.params import Share
from ..core.population import DEFAULT_N_FRACTION, resolve_n, root_measurement
from ..core.ragged import run_starts
from ..core.rng import Randomness
from ..core.tree import FlatTree, check_node_count
from ..core.validation import check_fraction, check_int
from ..publish.release import Release
from ..splits.slicing import MIN_POINTS, slice_groups
from .gls_finish import finish_gls_tree
from .spec import FRACTION, POSITIVE, MethodSpec, doc

HT_C = 3.0
MEDIAN_FRACTION = 0.4
Variant = Literal["standard", "composite", "hybrid"]
VARIANTS: tuple[str, ...] = get_args(Variant)
MAX_SIZE = 4096
# its arrays over the occupied cells (keys, counts, members, two axis orders) at their peak: about 80 bytes
# a cell, measured (docs/decisions/memory-limit.md)
BYTES_PER_CELL = 96


def htree_size(n: float, eps_count: float, c: float = HT_C) -> int:
    """m = sqrt(N eps_c / c) (Eq. 3), rounded, at least 1."""
    return max(1, int(round(math.sqrt(max(n, 0.0) * eps_count / c))))


def cube_root_split(eps_count: float, fanouts: list[int]) -> np.ndarray:
    """Count budget per level, proportional to (product of the fanouts above)^(1/3)."""
    w = np.cumprod(np.r_[1.0, np.asarray(fanouts[:-1], float)]) ** (1 / 3)
    return eps_count * w / w.sum()


def _rounds(m: int) -> int:
    return int(math.ceil(math.log2(m))) if m > 1 else 0


class _Builder:
    """Accumulates levels of the flat tree; level d regions are the nodes at depth d. Rectangles are
    integer positions of the public grid; the data are the occupied grid cells ``xy`` with their point
    counts ``w`` (memory: occupied cells, not points)."""

    def __init__(self, grid: Grid, xy: np.ndarray, w: np.ndarray):
        self.grid = grid
        self.rect = [np.array([[0, 0, grid.size, grid.size]])]
        self.parent = [np.array([-1])]
        self.noisy, self.var = [np.array([np.nan])], [np.array([np.inf])]
        self.ceps, self.seps = [np.zeros(1)], [np.zeros(1)]
        self.member = np.zeros(xy.shape[0], dtype=np.int64)   # node (within its level) of every cell
        self.xy, self.w = xy, np.asarray(w, np.int64)
        self.offset = 0   # global id of the first node of the current last level
        self._by_axis: dict[int, np.ndarray] = {}

    def order(self, axis: int) -> np.ndarray:
        """Cells sorted by (node of the last level, coordinate): the coordinate sort is done once per
        dimension and reused; grouping by node is then a stable integer (radix) sort."""
        if axis not in self._by_axis:
            col = self.xy[:, axis]
            small = self.grid.size <= np.iinfo(np.uint16).max   # grid positions fit 16 bits: numpy's radix sort
            self._by_axis[axis] = np.argsort(col.astype(np.uint16) if small else col, kind="stable")
        base = self._by_axis[axis]
        n_groups = self.rect[-1].shape[0]
        if n_groups == 1:
            return base
        g = self.member[base]
        g = g.astype(np.uint16) if n_groups <= np.iinfo(np.uint16).max + 1 else g
        return base[np.argsort(g, kind="stable")]

    def add_level(self, rect, parent_local, member, noisy, var, eps):
        n_prev = self.rect[-1].shape[0]
        self.parent.append(parent_local + self.offset)
        self.offset += n_prev
        self.rect.append(rect)
        self.member = member
        self.noisy.append(noisy)
        self.var.append(var)
        self.ceps.append(np.full(rect.shape[0], eps))
        self.seps.append(np.zeros(rect.shape[0]))

    def tree(self) -> FlatTree:
        parent = np.concatenate(self.parent).astype(np.int64)
        depth = np.concatenate([np.full(r.shape[0], d, np.int16) for d, r in enumerate(self.rect)])
        n = parent.size
        n_children = np.bincount(parent[1:], minlength=n).astype(np.int32)
        first = np.full(n, -1, np.int64)
        kids = np.arange(1, n)
        first[parent[1:][::-1]] = kids[::-1]
        return FlatTree(rect=self.grid.rects(np.vstack(self.rect)), depth=depth, parent=parent, first_child=first,
                        n_children=n_children, noisy=np.concatenate(self.noisy), count_eps=np.concatenate(self.ceps),
                        split_eps=np.concatenate(self.seps), noise_var=np.concatenate(self.var))


def _slice_level(b: _Builder, axis: int, k: int, expected: np.ndarray, eps_round: float, rnd: Randomness,
                 ledger: Ledger, level: int):
    """Slice every node of the last level into up to k parts along ``axis`` (Algorithm 1)."""
    regions = b.rect[-1]
    order = b.order(axis)
    v_all, g_all = b.xy[order, axis], b.member[order]
    first = np.flatnonzero(run_starts(g_all, v_all))    # the distinct (node, coordinate) values, with their points
    v, weight = v_all[first], np.add.reduceat(b.w[order], first) if first.size else np.zeros(0, np.int64)
    n_groups = regions.shape[0]
    bounds = np.searchsorted(g_all[first], np.arange(n_groups + 1))
    lo, hi = regions[:, axis], regions[:, axis + 2]
    sl = slice_groups(rnd.rng, v, bounds[:-1], bounds[1:], lo, hi, np.full(n_groups, k), expected, eps_round,
                      MIN_POINTS, weights=weight)
    for r, cnt in enumerate(sl.splits_per_round):
        ledger.spend(f"split {'xy'[axis]} (round {r + 1})", eps_round, "exponential", level=level, nodes=cnt,
                     note="private quantile over the region bounds (Algorithm 1)")
    b.seps[-1] += sl.rounds * eps_round
    parts = np.bincount(sl.group, minlength=n_groups) + 1
    owner = np.repeat(np.arange(n_groups), parts)
    # per part: low edge = region low or previous split value; high edge = next split value or region high
    first_part = np.cumsum(parts) - parts
    low = np.empty(owner.size, np.int64)
    high = np.empty(owner.size, np.int64)
    low[first_part] = lo
    high[first_part + parts - 1] = hi
    inner = np.ones(owner.size, bool)
    inner[first_part] = False
    not_last = np.ones(owner.size, bool)
    not_last[first_part + parts - 1] = False
    low[inner] = sl.value
    high[not_last] = sl.value
    rect = regions[owner].copy()
    rect[:, axis], rect[:, axis + 2] = low, high
    # part boundaries in the distinct values; counts are their points
    pos = np.empty(owner.size + 1, np.int64)
    pos[first_part] = bounds[:-1]
    pos[:-1][inner] = sl.position
    pos[-1] = v.size
    cw = np.r_[0, np.cumsum(weight)]
    counts = np.diff(cw[pos])
    member = np.empty(v_all.size, np.int64)
    member[order] = np.repeat(np.repeat(np.arange(owner.size), np.diff(pos)), np.diff(np.r_[first, v_all.size]))
    return rect, owner, member, counts


def _ht_layer(b: _Builder, k: int, n_hat: np.ndarray, eps_round: float, eps_strips: float, eps_cells: float,
              rnd: Randomness, ledger: Ledger) -> None:
    """An ht-standard of target size k x k inside every node of the last level."""
    d = len(b.rect)
    rect, owner, member, counts = _slice_level(b, 0, k, np.maximum(n_hat, 0) / k, eps_round, rnd, ledger, d - 1)
    noisy, var = measure_counts(rnd, ledger, counts, eps_strips, level=d, what="count")
    b.add_level(rect, owner, member, noisy, var, eps_strips)
    rect, owner, member, counts = _slice_level(b, 1, k, np.maximum(noisy, 0) / k, eps_round, rnd, ledger, d)
    noisy, var = measure_counts(rnd, ledger, counts, eps_cells, level=d + 1, what="count")
    b.add_level(rect, owner, member, noisy, var, eps_cells)


def _grid_layer(b: _Builder, k: int, eps: float, rnd: Randomness, ledger: Ledger) -> None:
    """A k x k grid of near-equal cells (edges on the public grid, :func:`even_edges`) inside every node
    of the last level (ht-hybrid's fine layer). A region narrower than k grid steps gets zero-width
    cells (no position, no point) rather than cells finer than the data's precision."""
    regions = b.rect[-1]
    n_reg = regions.shape[0]
    owner = np.repeat(np.arange(n_reg), k * k)
    jj, ii = np.divmod(np.tile(np.arange(k * k), n_reg), k)
    x0, y0, x1, y1 = regions[owner].T
    rect = np.column_stack([x0 + (ii * (x1 - x0)) // k, y0 + (jj * (y1 - y0)) // k,
                            x0 + ((ii + 1) * (x1 - x0)) // k, y0 + ((jj + 1) * (y1 - y0)) // k])
    r = regions[b.member]          # a point's region has positive width: lo <= key < hi
    cx = even_part(b.xy[:, 0], r[:, 0], r[:, 2], k)
    cy = even_part(b.xy[:, 1], r[:, 1], r[:, 3], k)
    member = b.member * k * k + cy * k + cx
    counts = np.bincount(member, weights=b.w, minlength=n_reg * k * k).astype(np.int64)
    noisy, var = measure_counts(rnd, ledger, counts, eps, level=len(b.rect), what="count")
    b.add_level(rect, owner, member, noisy, var, eps)


def _sides(m: int, variant: str) -> tuple[int, int]:
    """The two layers' sides (m1, m2) of an h-tree of size ``m``: (m, 0) for the standard variant."""
    if variant == "standard":
        return m, 0
    m1 = math.ceil(math.sqrt(m))
    return m1, max(1, math.ceil(m / m1))


def htree_nodes(m: int, variant: str) -> int:
    """Nodes of an h-tree of size ``m``: the root, m1 strips, m1^2 cells and the second layer's nodes."""
    m1, m2 = _sides(m, variant)
    return 1 + m1 + m1 * m1 * (1 + (m2 + m2 * m2 if variant == "composite" else m2 * m2))


def build_htree(ps: PointSet, domain: Domain, epsilon: float, rnd: Randomness, *, variant: Variant = "standard",
                size: int | None = None, c: float = HT_C, median_fraction: Share = MEDIAN_FRACTION,
                n_public: int | None = None, n_fraction: Share = DEFAULT_N_FRACTION,
                postprocess: bool = True) -> Release:
    """Private h-tree; ``size`` (m) overrides Eq. 3 (then N is not needed)."""
    if variant not in VARIANTS:
        raise ParameterError(f"variant must be one of {VARIANTS} (got {variant!r})")
    median_fraction = check_fraction(median_fraction, "median_fraction")
    if not (isinstance(c, (int, float)) and math.isfinite(c) and c > 0):
        raise ParameterError(f"c must be a finite number > 0 (got {c!r})")
    ledger = Ledger(epsilon)
    if size is None:
        pop = resolve_n(ps.n, epsilon, rnd, ledger, n_public, n_fraction, measures_root=postprocess)
        eps_rest, n_hat, n_note = epsilon - pop.epsilon, pop.value, pop.source
        eps_m, eps_c = median_fraction * eps_rest, (1 - median_fraction) * eps_rest
        m = min(htree_size(n_hat, eps_c, c), MAX_SIZE)
    else:
        m = check_int(size, "size", 1, MAX_SIZE)
        pop, eps_rest, n_note = None, epsilon, "not needed for the size (size given)"
        eps_m, eps_c = median_fraction * epsilon, (1 - median_fraction) * epsilon
        n_hat = float("nan")   # the expected-count rule then uses the strips' noisy counts only
    bits, coarse = cap_cells(ps.grid.bits, lambda b: 4 ** b,
                             "the h-tree's resolution (bits a side of the cells it slices)", BYTES_PER_CELL)
    grid = Grid(ps.grid.domain, bits) if bits < ps.grid.bits else ps.grid   # its lines are the public grid's
    m, capped = cap_by_resolution(m, grid.size, "size", bits)
    m, lowered = cap_by_memory(m, lambda k: htree_nodes(k, variant), "size")
    m1, m2 = _sides(m, variant)
    if variant == "standard":
        fanouts, rounds = [m, m], 2 * _rounds(m)
    else:
        fanouts = [m1, m1, m2, m2] if variant == "composite" else [m1, m1, m2 * m2]
        rounds = 2 * _rounds(m1) + (2 * _rounds(m2) if variant == "composite" else 0)
    check_node_count(htree_nodes(m, variant), f"an h-tree of size {m}")
    eps_levels = cube_root_split(eps_c, fanouts)
    eps_round = eps_m / rounds if rounds else 0.0
    cells, cnt = ps.cells(bits)   # one pass: occupied grid cells; the h-tree then works in memory
    b = _Builder(grid, cells, cnt)
    # with least squares the noisy N is the root's count (its slice a count spend); without, it only sized m
    b.noisy[0][0], b.var[0][0], eps_root = root_measurement(pop)
    b.ceps[0][0] += eps_root
    b.seps[0][0] += (0.0 if pop is None else pop.epsilon) - eps_root
    top = np.array([n_hat if np.isfinite(n_hat) else np.inf])
    _ht_layer(b, m1, top, eps_round, eps_levels[0], eps_levels[1], rnd, ledger)
    if variant == "composite":
        _ht_layer(b, m2, b.noisy[-1], eps_round, eps_levels[2], eps_levels[3], rnd, ledger)
    elif variant == "hybrid":
        _grid_layer(b, m2, eps_levels[2], rnd, ledger)
    tree = b.tree()
    params = {"variant": variant, "size": m, "m1": m1, "m2": m2, "c": c, "median_fraction": median_fraction,
              "slice_epsilon": eps_round, "planned_rounds": rounds,
              "N": n_note, "postprocess": bool(postprocess), "leaves": int(tree.is_leaf.sum())}
    rel = _finish(tree, ps, domain, ledger, rnd, params, postprocess)
    return rel.with_notes(coarse, capped, lowered, *unspent_note(ledger, epsilon, rounds, eps_round))


def unspent_note(ledger: Ledger, epsilon: float, planned_rounds: int, eps_round: float) -> list[str]:
    """Why the ledger total can be below epsilon: the 32-point rule (Algorithm 1) stops slicing ranges
    whose expected count is small, so planned rounds go unspent. They cannot go to the counts: a level's
    counts are measured when its slicing ends, and which rounds go unused is only known from the
    released counts of the levels below, after those counts are out."""
    missing = epsilon - ledger.total()
    if missing <= 1e-12 * epsilon:
        return []
    used = sum(1 for s in ledger.spends if s.what.startswith("split"))   # one spend per slicing round
    return [f"epsilon {missing:.4g} of {epsilon:g} not spent: {planned_rounds - used} of {planned_rounds} "
            "planned slicing rounds were not needed (ranges with fewer than 32 expected points are not cut, "
            "Algorithm 1); counts are measured before that is known, so the remainder stays unspent"]


def _finish(tree: FlatTree, ps: PointSet, domain: Domain, ledger: Ledger, rnd: Randomness, params: dict,
            postprocess: bool) -> Release:
    """GLS (Algorithm 3, section 4.2.5) or leaf sums, then the sorted-splits query path (all variants:
    x/y splits, leaf grids)."""
    return finish_gls_tree(tree, ps, domain, ledger, rnd, "htree", params, postprocess=postprocess,
                           answer="split_index", data_cuts=tree.height)     # every slice at a noisy quantile


# what this module declares (psdviz/methods/spec.py): parameters whose meaning is its own, then the method
PARAMS = {
    "variant": doc("h-tree variant: standard (strips, then cells in each strip), composite (a coarse h-tree with "
                   "a fine h-tree in each cell) or hybrid (a coarse h-tree with uniform grids inside).",
                   "private h-tree paper, section 6", label="h-tree variant"),
    "size": doc("h-tree: number of strips and of cells per strip (m). None: sqrt(N epsilon / c) with N "
                "estimated privately.", "private h-tree paper, Eq. 3", 1, MAX_SIZE),
    "c": doc("h-tree: constant in the size formula m = sqrt(N epsilon / c) (the paper's c = 3).",
             "private h-tree paper, Eq. 3", **POSITIVE),
    "median_fraction": doc("h-tree: share of epsilon spent on the private split points; the rest pays for the "
                           "counts.", "private h-tree paper, section 5.1", **FRACTION),
}

SPEC = MethodSpec("htree", build_htree, paper="the private h-tree paper, sections 5-6", params=PARAMS, rank=9)
