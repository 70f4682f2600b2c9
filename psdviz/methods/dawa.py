"""DAWA: a data-aware partition of the cells in Hilbert order, then the buckets measured as the publisher's
queries need (Li, Hay, Miklau, Wang, PVLDB 2014: section 3 the partition, section 4 GreedyH).

Rule. The domain is cut into an m x m grid of near-equal cells on the public grid (m = ``grid_size``, a power of
two: 256, or the resolution's grid if coarser), ordered along a Hilbert curve. (1) Partition, ``ratio`` of
epsilon (the paper's 1/4): buckets of near-uniform counts, each an aligned dyadic run of the curve (a square or
half a square of cells) of 8 to m^2 / 16 cells, or a single cell, chosen by noisy median deviations
(:mod:`psdviz.splits.l1_partition`). (2) Measurement, the rest (eps2), on the binary tree of curve windows down
to the buckets (every node a rectangle its two halves tile): without a workload, the buckets' counts; with one
(rectangles; regions by their bounding boxes), GreedyH's weights: bottom-up, a node gives 1 - p of its path's
weight to its own count and p to its subtree, p of 100 values minimising the workload's least-squares variance
inside the node (:func:`greedy_splits`); a share :data:`LEAF_SHARE` of every path then goes to the bucket's own
count (GreedyH alone can leave a bucket nearly unmeasured, and the release answers any rectangle). The weights
are rounded down to multiples of 2^-12 (:mod:`psdviz.core.lattice`) and the weighted counts, integers in those
steps, get two-sided geometric noise. Least squares over the tree gives every node's estimate; a bucket's count
is spread evenly over its cells.

Privacy. The partition is eps1-DP (the Laplace mechanism on the candidate windows' costs, L1 sensitivity the
number of candidate levels) and only its decisions are released. Given it, the measurement is eps2-DP: one
point changes the count of every node on its cell's root-to-leaf path by 1, so the integer weighted counts move
by that path's sum of weights, at most the largest such sum S (exact integers); geometric noise with
a = exp(-eps2 / S) per step is eps2-DP (no workload: disjoint bucket counts, sensitivity 1). The weights read the
workload and the released partition only. Composition: eps1 + eps2 on every path (eps1 at the root, a node eps2
times its share of S). Least squares, the spread and the answers are post-processing; released values are
noisy integers on a public lattice. One pass over the data: the m x m cell counts.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.domain import Domain, PointSet
from ..core.errors import ParameterError
from ..core.grid import cap_by_resolution, even_edges
from ..core.lattice import dyadic, exact_scale, lattice_variance, measure_on_lattice
from ..core.ledger import Ledger
from ..core.measure import measure_counts
from ..core.memory import cap_by_memory
from ..core.params import Share
from ..core.rng import Randomness
from ..core.tree import FlatTree, check_node_count
from ..core.validation import check_fraction, check_int
from ..core.workload import Workload, as_workload
from ..inference.tree_gls import gls_estimate, gls_plan
from ..publish.factory import make_release
from ..publish.release import Release
from ..splits import hilbert_curve
from ..splits.keyers import even_cells
from ..splits.l1_partition import MIN_BUCKET, candidate_levels, choose_buckets
from .spec import FRACTION, MethodSpec, doc
from .strategy import workload_rectangles

DEFAULT_CELLS = 256          # cells per side (DPBench's 2-D domain); a parameter
RATIO = 0.25                 # of epsilon for the partition (the paper's default in 2-D)
WEIGHT_BITS = 12             # GreedyH's weights are whole multiples of 2^-12
LEAF_SHARE = 0.2             # of every path's weight to the bucket's own count (docs/decisions/dawa.md)
P_STEPS = 100                # GreedyH's grid of p (the authors' granularity)
PLAN_QUERIES = 512           # the plan reads at most this many of the workload's queries ...
PLAN_PAIRS = 1 << 22         # ... and fewer when queries x buckets would pass this (a public subsample)
PLAN_SEED = 20140901         # the subsample's fixed seed: the plan is a function of public input only


@dataclass(frozen=True)
class BucketTree:
    """The binary tree of curve windows from the whole grid down to the buckets, depth by depth (children of a
    node consecutive, in their parents' order): window level, curve range [lo, hi), parent, leaf flag."""

    level: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    depth: np.ndarray
    parent: np.ndarray
    leaf: np.ndarray

    @property
    def size(self) -> int:
        return int(self.lo.size)

    def bounds(self) -> np.ndarray:
        """Start of each depth in the node arrays, length height + 2."""
        return np.searchsorted(self.depth, np.arange(int(self.depth.max()) + 2))


def bucket_tree(buckets: list[np.ndarray]) -> BucketTree:
    """The tree of a partition (bucket flags per level 0..L of one run, :func:`choose_buckets`)."""
    top = len(buckets) - 1
    idx, parent = np.zeros(1, np.int64), np.full(1, -1, np.int64)
    parts: dict[str, list[np.ndarray]] = {"level": [], "idx": [], "parent": [], "leaf": []}
    offset = 0
    for k in range(top, -1, -1):
        leaf = buckets[k][0, idx]
        for key, val in (("level", np.full(idx.size, k)), ("idx", idx), ("parent", parent), ("leaf", leaf)):
            parts[key].append(val)
        inner = np.flatnonzero(~leaf)
        if not inner.size:
            break
        parent = np.repeat(offset + inner, 2)
        offset += idx.size
        idx = (np.repeat(idx[inner], 2) << 1) + np.tile([0, 1], inner.size)
    level, idx = np.concatenate(parts["level"]), np.concatenate(parts["idx"])
    depth = (top - level).astype(np.int16)
    return BucketTree(level, idx << level, (idx + 1) << level, depth, np.concatenate(parts["parent"]),
                      np.concatenate(parts["leaf"]))


def curve_counts(ps: PointSet, m: int) -> tuple[np.ndarray, int]:
    """The m x m cell counts in Hilbert order (integers) and the curve's order (m = 2^order)."""
    order = m.bit_length() - 1
    hist = ps.counts(even_cells(ps.grid.size, m), m * m).astype(np.int64)      # row-major: iy * m + ix
    iy, ix = np.divmod(np.arange(m * m), m)
    x = np.zeros(m * m, np.int64)
    x[hilbert_curve.encode(order, ix, iy)] = hist
    return x, order


def cover(rects: np.ndarray, q: np.ndarray) -> np.ndarray:
    """(nodes, queries) share of each node rectangle inside each query rectangle."""
    ox = np.minimum(rects[:, None, 2], q[None, :, 2]) - np.maximum(rects[:, None, 0], q[None, :, 0])
    oy = np.minimum(rects[:, None, 3], q[None, :, 3]) - np.maximum(rects[:, None, 1], q[None, :, 1])
    area = (rects[:, 2] - rects[:, 0]) * (rects[:, 3] - rects[:, 1])
    return np.clip(ox, 0, None) * np.clip(oy, 0, None) / area[:, None]


def planning_queries(rects: np.ndarray, leaves: int) -> np.ndarray:
    """The workload's rectangles the plan reads: all of them, or a fixed-seed subsample of at most
    :data:`PLAN_QUERIES` (fewer when queries x buckets would pass :data:`PLAN_PAIRS`). Public input only."""
    cap = int(min(PLAN_QUERIES, max(16, PLAN_PAIRS // max(leaves, 1))))
    if rects.shape[0] <= cap:
        return rects
    pick = np.sort(np.random.default_rng(PLAN_SEED).choice(rects.shape[0], cap, replace=False))
    return rects[pick]


def greedy_weights(tree: BucketTree, rects: np.ndarray, q: np.ndarray) -> np.ndarray:
    """GreedyH's weights (module docstring), summing to 1 along every root-to-leaf path."""
    return _path_weights(tree, greedy_splits(tree, rects, q)[0])


def greedy_splits(tree: BucketTree, rects: np.ndarray, q: np.ndarray, choose=None) -> tuple[np.ndarray, float]:
    """Per node the share p its subtree keeps (1 for buckets), and the workload's total least-squares variance
    under those splits (unit noise per weighted count).

    Per node and query, E = the variance of the query's part inside the node estimated from the node's subtree,
    R = that part's covariance with the node's total, and K = the total's variance; at a bucket E = s^2, R = s,
    K = 1 (s the query's share of it). A node measured with weight 1 - p over children scaled by p:
    c = (1 - p)^2 / (p^2 + K (1 - p)^2) (Sherman-Morrison), E = (A - c R^2) / p^2, R = R (1 - c K) / p^2,
    K = (K - c K^2) / p^2, with A, R, K the children's sums. ``choose(sum A, sum R^2, K)`` gives each node's p;
    by default GreedyH's: the p of a grid of :data:`P_STEPS` values minimising the sum of E over the queries
    (ties: the largest p)."""
    grid = np.linspace(1.0 / P_STEPS, 1.0, P_STEPS)
    choose = choose or (lambda sa, sr2, ks: _best_split(sa, sr2, ks, grid))
    bounds, p = tree.bounds(), np.ones(tree.size)
    e = np.zeros((0, q.shape[0]))
    nxt: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
    for d in range(bounds.size - 2, -1, -1):
        lo, hi = bounds[d], bounds[d + 1]
        leaf = tree.leaf[lo:hi]
        e, r, k = np.zeros((hi - lo, q.shape[0])), np.zeros((hi - lo, q.shape[0])), np.ones(hi - lo)
        share = cover(rects[lo:hi][leaf], q)
        e[leaf], r[leaf] = share ** 2, share
        if nxt is not None and (~leaf).any():
            ce, cr, ck = nxt
            a, rs, ks = ce[0::2] + ce[1::2], cr[0::2] + cr[1::2], ck[0::2] + ck[1::2]
            pv = choose(a.sum(axis=1), (rs ** 2).sum(axis=1), ks)
            c = (1 - pv) ** 2 / (pv ** 2 + ks * (1 - pv) ** 2)
            with np.errstate(over="ignore", invalid="ignore"):
                e[~leaf] = (a - c[:, None] * rs ** 2) / pv[:, None] ** 2
                r[~leaf] = rs * ((1 - c * ks) / pv ** 2)[:, None]
                k[~leaf] = (ks - c * ks ** 2) / pv ** 2
            p[lo:hi][~leaf] = pv
        nxt = (e, r, k)
    return p, float(e.sum())


def _best_split(sa: np.ndarray, sr2: np.ndarray, k: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """Per node, the p of ``grid`` minimising (sum A - c(p) sum R^2) / p^2 (the largest on ties)."""
    c = (1 - grid) ** 2 / (grid ** 2 + k[:, None] * (1 - grid) ** 2)
    with np.errstate(over="ignore", invalid="ignore"):
        obj = (sa[:, None] - c * sr2[:, None]) / grid ** 2
    obj = np.where(np.isfinite(obj), obj, np.inf)
    return grid[grid.size - 1 - np.argmin(obj[:, ::-1], axis=1)]


def _path_weights(tree: BucketTree, p: np.ndarray) -> np.ndarray:
    """Node weights from the splits: a node holds 1 - p of what reaches it (a bucket all of it), its children p."""
    reach = np.ones(tree.size)
    bounds = tree.bounds()
    for d in range(1, bounds.size - 1):
        lo, hi = bounds[d], bounds[d + 1]
        reach[lo:hi] = reach[tree.parent[lo:hi]] * p[tree.parent[lo:hi]]
    return np.where(tree.leaf, reach, reach * (1 - p))


def path_steps(tree: BucketTree, steps: np.ndarray) -> int:
    """The largest root-to-leaf sum of integer ``steps`` (exact, in integers)."""
    total = steps.astype(np.int64).copy()
    bounds = tree.bounds()
    for d in range(1, bounds.size - 1):
        lo, hi = bounds[d], bounds[d + 1]
        total[lo:hi] += total[tree.parent[lo:hi]]
    return int(total[tree.leaf].max())


def measure_buckets(tree: BucketTree, counts: np.ndarray, eps2: float, rnd: Randomness, ledger: Ledger,
                    rects: np.ndarray, workload: Workload | None) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict]:
    """Stage 2: per node the noisy count estimate (NaN where not measured), its noise variance and its epsilon
    share, and the parameters the plan adds to the release."""
    n = tree.size
    noisy, var, eps = np.full(n, np.nan), np.full(n, np.inf), np.zeros(n)
    if workload is None:
        y, v = measure_counts(rnd, ledger, counts[tree.leaf], eps2, what="bucket counts",
                              note="the partition's buckets (disjoint): sensitivity 1")
        noisy[tree.leaf], var[tree.leaf], eps[tree.leaf] = y, v, eps2
        return noisy, var, eps, {}
    q = planning_queries(workload_rectangles(workload), int(tree.leaf.sum()))
    weights = (1 - LEAF_SHARE) * greedy_weights(tree, rects, q) + LEAF_SHARE * tree.leaf
    steps = dyadic(weights, WEIGHT_BITS)
    s = path_steps(tree, steps)
    on = steps > 0
    ledger.spend("bucket hierarchy (GreedyH)", eps2, "geometric", nodes=int(on.sum()), sensitivity=s / 2 ** WEIGHT_BITS,
                 note=f"weighted counts of the windows down to the buckets, weights in steps of 2^-{WEIGHT_BITS}; a "
                      f"point's path of weights at most {s} steps in L1")
    answers = exact_scale(steps[on], counts[on, None])[:, 0]
    scale = steps[on] * 2.0 ** -WEIGHT_BITS
    noisy[on] = measure_on_lattice(answers, WEIGHT_BITS, s, eps2, rnd.rng) / scale
    var[on] = lattice_variance(eps2, WEIGHT_BITS, s) / scale ** 2
    eps[on] = eps2 * steps[on] / s
    return noisy, var, eps, {"plan_queries": int(q.shape[0])}


def build_dawa(ps: PointSet, domain: Domain, epsilon: float, rnd: Randomness, *, grid_size: int | None = None,
               ratio: Share = RATIO, min_bucket: int = MIN_BUCKET, max_bucket: int | None = None,
               workload: Workload | None = None) -> Release:
    """DAWA: buckets of near-uniform counts along a Hilbert curve, chosen with ``ratio`` of epsilon, then
    measured with the rest, for the workload's queries when one is given (GreedyH) or bucket by bucket (module
    docstring: the rule, the paper's sections and the privacy argument)."""
    ratio = check_fraction(ratio, "ratio")
    m = DEFAULT_CELLS if grid_size is None else check_int(grid_size, "grid_size", 2, 1 << 20)
    if m & (m - 1):
        raise ParameterError(f"grid_size must be a power of two: the Hilbert curve runs over 2^k x 2^k cells (got {m})")
    m, capped = cap_by_resolution(m, ps.grid.size, "grid_size", ps.grid.bits)
    m, lowered = cap_by_memory(m, lambda k: 2 * k * k, "grid_size", least=2)
    m = 1 << (m.bit_length() - 1)                                # a memory cap keeps the power of two
    check_node_count(2 * m * m, f"a {m} x {m} grid's windows")
    levels = candidate_levels(m * m, check_int(min_bucket, "min_bucket", 2),
                              None if max_bucket is None else check_int(max_bucket, "max_bucket", 2))
    x, order = curve_counts(ps, m)
    ledger = Ledger(epsilon)
    eps1 = ratio * epsilon if levels else 0.0
    eps2 = epsilon - eps1
    if levels:
        ledger.spend("partition: window deviations", eps1, "laplace", nodes=sum(m * m >> k for k in levels),
                     sensitivity=float(len(levels)),
                     note=f"median deviation of every dyadic curve window of 2^{levels[0]}-2^{levels[-1]} cells, "
                          f"Laplace scale {len(levels)} / eps1 (a cell lies in one window per level); only the "
                          "buckets are released")
    tree = bucket_tree(choose_buckets(x, levels, eps1, 1.0 / eps2, rnd.rng))
    cuts = even_edges(0, ps.grid.size, m)
    ex, ey = ps.grid.coord(cuts, 0), ps.grid.coord(cuts, 1)
    box = hilbert_curve.range_bboxes(order, tree.lo, tree.hi)
    rects = np.column_stack([ex[box[:, 0]], ey[box[:, 1]], ex[box[:, 2]], ey[box[:, 3]]])
    cum = np.r_[0, np.cumsum(x)]
    workload = None if workload is None else as_workload(workload)
    noisy, var, eps, extra = measure_buckets(tree, cum[tree.hi] - cum[tree.lo], eps2, rnd, ledger, rects, workload)
    flat = _flat_tree(tree, rects, noisy, var, eps, eps1)
    flat.est = gls_estimate(flat, flat.noisy, gls_plan(flat, flat.noise_var))
    params = {"grid_size": m, "ratio": ratio, "min_bucket": 1 << levels[0] if levels else int(min_bucket),
              "max_bucket": 1 << levels[-1] if levels else max_bucket, "buckets": int(tree.leaf.sum()), **extra}
    if workload is not None:
        params.update(workload.record())   # public input: the queries planned for
    return make_release("dawa", params, domain, flat, ledger, rnd, ps.report(), consistent=True, grid=ps.grid,
                        notes=(capped, lowered), query_model={"answer": "tree", "variance": "gls"})


def _flat_tree(tree: BucketTree, rects: np.ndarray, noisy: np.ndarray, var: np.ndarray, eps: np.ndarray,
               eps1: float) -> FlatTree:
    """The released tree: the windows as rectangles, the partition's epsilon at the root."""
    n = tree.size
    kids = np.bincount(tree.parent[1:], minlength=n).astype(np.int32)
    first = np.full(n, -1, np.int64)
    first[tree.parent[1::2]] = np.arange(1, n, 2)
    split_eps = np.zeros(n)
    split_eps[0] = eps1
    return FlatTree(rect=rects, depth=tree.depth, parent=tree.parent, first_child=first, n_children=kids,
                    noisy=noisy, count_eps=eps, split_eps=split_eps, noise_var=var)


PARAMS = {
    "grid_size": doc("Cells per side of the grid the curve runs over, a power of two (default 256, or the "
                     "resolution's grid if coarser).", "DAWA (PVLDB'14), section 3", 2, None),
    "ratio": doc("Share of epsilon for the partition; the rest measures the buckets.",
                 "DAWA (PVLDB'14), section 3 (the 2-D default 0.25)", **FRACTION),
    "min_bucket": doc("The smallest bucket above a single cell, in cells (a power of two): smaller windows are "
                      "never candidates.", "", 2, None),
    "max_bucket": doc("The largest bucket, in cells (a power of two); None: the cells / 16. Fewer candidate sizes "
                      "mean less noise on each (their number divides the partition's epsilon).", "", 2, None),
}

SPEC = MethodSpec("dawa", build_dawa, paper="DAWA (Li, Hay, Miklau, Wang, PVLDB'14), sections 3-4",
                  workloads=("rectangles", "regions"), params=PARAMS, rank=14,
                  interval_caveat="its buckets follow the data along the Hilbert curve, and on points heaped on a few "
                                  "places or a grid of readings (flight origins, STROKE) this interval was too narrow "
                                  "more often than 1 time in 20")
