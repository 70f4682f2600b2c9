"""Sparse data on a few lines: heavy lines found privately, each partitioned along itself by PrivTree in one
dimension, the bands between them by PrivTree in two (our composition of PrivTree, Zhang, Xiao, Xie SIGMOD'16,
with a private line selection; docs/decisions/few-lines.md).

Rule. On an m x m grid of near-equal cells on the public grid (m = 256, or the resolution's grid if coarser):

1. Selection (``select_fraction`` of epsilon, half per axis): the noisy sums of every row and of every column of
   cells. The axis whose largest noisy line holds more is kept; its heavy lines are those whose noisy sum is at
   least ``min_share`` of the noisy total and three noise standard deviations, at most ``MAX_LINES``, the
   largest first.
2. Structure: the domain cut across that axis into the heavy lines (one cell wide, full length) and the bands
   between them: rectangles that tile the domain (the root's children).
3. Each part grows a binary PrivTree over its cells (fanout 2: lambda = 3 / eps_t, delta = lambda ln 2,
   theta = 0; depth counted from the part): a line splits along its length at its middle cell, a band across its
   longer side; a single cell is a leaf. The leaves' counts get geometric noise with the rest of epsilon.

Privacy: one point moves one row sum and one column sum by 1 (two ledger lines of sensitivity 1, each over
disjoint lines); the structure is post-processing of those. The parts are disjoint rectangles fixed by the
released selection, so PrivTree's guarantee (eps_t for any depth, one ledger line) holds in each and they
compose in parallel, as do the disjoint leaves. Every root-to-leaf path spends exactly epsilon. Everything is
computed from one pass (the m x m cell counts); every edge is a grid position.
"""
from __future__ import annotations

import math

import numpy as np

from ..core.domain import Domain, PointSet
from ..core.errors import ParameterError
from ..core.grid import cap_by_resolution, even_edges
from ..core.ledger import Ledger
from ..core.measure import measure_counts
from ..core.memory import cap_by_memory
from ..core.noise import geometric_noise, geometric_variance, laplace_draw
from ..core.params import Share
from ..core.rng import Randomness
from ..core.tree import FlatTree, check_node_count
from ..core.validation import check_fraction, check_int
from ..publish.factory import make_release
from ..publish.release import Release
from ..splits.keyers import even_cells
from .privtree import privtree_parameters
from .spec import FRACTION, MethodSpec, doc

CELLS = 256              # cells per side of the grid the lines are found on
MAX_LINES = 8            # heavy lines kept at most
SELECT_FRACTION = 0.1    # of epsilon: the row and column sums
TREE_FRACTION = 0.2      # of epsilon: the split decisions (docs/decisions/few-lines.md: 0.15-0.35 swept)
MIN_SHARE = 0.04         # a heavy line holds at least this share of the noisy total


def select_lines(hist: np.ndarray, eps_select: float, rnd: Randomness, ledger: Ledger,
                 min_share: float) -> tuple[int, np.ndarray]:
    """(axis, heavy lines) from noisy row and column sums of ``hist`` (rows y, columns x): axis 0 = rows (lines
    along x), 1 = columns. Two ledger lines of eps_select / 2, sensitivity 1 each."""
    half = eps_select / 2
    sums = []
    for axis, what in ((1, "row"), (0, "column")):
        ledger.spend(f"line selection: {what} sums", half, "geometric", nodes=hist.shape[1 - axis],
                     note=f"every {what} of cells once; a point lies in one {what} (sensitivity 1)")
        exact = hist.sum(axis=axis)
        sums.append(exact + geometric_noise(rnd.rng, exact.shape, half))
    total = max(float(sums[0].sum()), 1.0)
    axis = 0 if sums[0].max() >= sums[1].max() else 1
    noisy = sums[axis]
    floor = max(min_share * total, 3 * math.sqrt(float(geometric_variance(half))))
    heavy = np.flatnonzero(noisy >= floor)
    heavy = heavy[np.argsort(-noisy[heavy], kind="stable")][:MAX_LINES]
    return axis, np.sort(heavy)


def parts(m: int, heavy: np.ndarray) -> np.ndarray:
    """The lines and the bands between them as [lo, hi) ranges of cell indices across the axis, in order."""
    cuts = np.unique(np.r_[0, heavy, heavy + 1, m])
    return np.column_stack([cuts[:-1], cuts[1:]])


def grow_binary(hist: np.ndarray, boxes: np.ndarray, eps_t: float, rng: np.random.Generator) -> dict:
    """Binary PrivTrees over cell boxes [ix0, iy0, ix1, iy1) of ``hist`` (rows y), one per box, grown depth by
    depth together (their depths counted from their box): a box splits across its longer side at the middle
    cell while its biased count plus Laplace noise exceeds theta = 0; single cells are leaves.

    Returns per depth (from 1: the boxes) the cell boxes, the parents' indices in the whole tree, the leaf
    mask and the exact counts."""
    lam, delta = privtree_parameters(eps_t, fanout=2)
    cum = np.pad(hist, ((1, 0), (1, 0))).cumsum(0).cumsum(1)
    level, parent = boxes.astype(np.int64), np.zeros(boxes.shape[0], np.int64)
    out: dict[str, list[np.ndarray]] = {"boxes": [], "parents": [], "leaf": [], "counts": []}
    offset, total = 1, 1 + boxes.shape[0]
    for d in range(64):
        x0, y0, x1, y1 = level.T
        counts = cum[y1, x1] - cum[y0, x1] - cum[y1, x0] + cum[y0, x0]
        biased = np.maximum(counts - d * delta, -delta)
        single = (x1 - x0 == 1) & (y1 - y0 == 1)
        split = ~single & (biased + laplace_draw(rng, lam, counts.size) > 0)
        out["boxes"].append(level)
        out["parents"].append(parent)
        out["leaf"].append(~split)
        out["counts"].append(counts)
        if not split.any():
            break
        total += 2 * int(split.sum())
        check_node_count(total, "the lines tree", "lower the resolution")
        sp = np.flatnonzero(split)
        parent = np.repeat(offset + sp, 2)
        offset += level.shape[0]
        level = _halves(level[sp])
    return out


def _halves(b: np.ndarray) -> np.ndarray:
    """Each box cut across its longer side (x on ties) at its middle cell: two children, in order."""
    x0, y0, x1, y1 = b.T
    wide = (x1 - x0) >= (y1 - y0)
    xm, ym = (x0 + x1) // 2, (y0 + y1) // 2
    first = np.column_stack([x0, y0, np.where(wide, xm, x1), np.where(wide, y1, ym)])
    second = np.column_stack([np.where(wide, xm, x0), np.where(wide, y0, ym), x1, y1])
    return np.stack([first, second], axis=1).reshape(-1, 4)


def build_lines(ps: PointSet, domain: Domain, epsilon: float, rnd: Randomness, *, grid_size: int | None = None,
                select_fraction: Share = SELECT_FRACTION, tree_fraction: Share = TREE_FRACTION,
                min_share: float = MIN_SHARE) -> Release:
    """Heavy lines found from noisy row and column sums, each partitioned along itself by a binary PrivTree,
    the bands between them by the same in two dimensions, the leaves measured with the rest of epsilon (module
    docstring: the rule and the privacy argument)."""
    fs, ft = check_fraction(select_fraction, "select_fraction"), check_fraction(tree_fraction, "tree_fraction")
    if fs + ft >= 1:
        raise ParameterError(f"select_fraction + tree_fraction must leave epsilon for the leaves (got {fs + ft:g})")
    if not (isinstance(min_share, (int, float)) and 0 < min_share < 1):
        raise ParameterError(f"min_share must lie in (0, 1) (got {min_share!r})")
    size = ps.grid.size
    m = CELLS if grid_size is None else check_int(grid_size, "grid_size", 1, 1 << 20)
    m, capped = cap_by_resolution(m, size, "grid_size", ps.grid.bits)
    m, lowered = cap_by_memory(m, lambda k: k * k + 1, "grid_size")
    check_node_count(m * m + 1, f"a {m} x {m} grid of cells", "lower grid_size")     # before any count is held
    hist = ps.counts(even_cells(size, m), m * m).reshape(m, m)        # rows y, columns x
    ledger = Ledger(epsilon)
    eps_s, eps_t = fs * epsilon, ft * epsilon
    axis, heavy = select_lines(hist, eps_s, rnd, ledger, float(min_share))
    ranges = parts(m, heavy)
    full = np.zeros(len(ranges), np.int64), np.full(len(ranges), m)
    boxes = (np.column_stack([full[0], ranges[:, 0], full[1], ranges[:, 1]]) if axis == 0
             else np.column_stack([ranges[:, 0], full[0], ranges[:, 1], full[1]]))
    g = grow_binary(hist, boxes, eps_t, rnd.rng)
    lam, delta = privtree_parameters(eps_t, fanout=2)
    ledger.spend("split decisions", eps_t, "laplace (PrivTree biased counts, fanout 2)",
                 nodes=int(sum(b.shape[0] for b in g["boxes"])),
                 note=f"one PrivTree per line and band (disjoint); lambda = {lam:.4g}, delta = {delta:.4g}, theta = 0")
    leaf = np.concatenate(g["leaf"])
    noisy, var = measure_counts(rnd, ledger, np.concatenate(g["counts"])[leaf], epsilon - eps_s - eps_t,
                                note="leaves (disjoint)")
    tree = _tree(g, leaf, noisy, var, epsilon - eps_s - eps_t, eps_s + eps_t, even_edges(0, size, m), ps, domain)
    params = {"grid_size": m, "select_fraction": fs, "tree_fraction": ft, "min_share": float(min_share),
              "axis": "rows" if axis == 0 else "columns", "lines": ",".join(str(v) for v in heavy.tolist()) or "none",
              "leaves": int(leaf.sum())}
    return make_release("lines", params, domain, tree, ledger, rnd, ps.report(), consistent=True, grid=ps.grid,
                        notes=(capped, lowered), query_model={"answer": "tree", "variance": "leaf"})


def _tree(g: dict, leaf: np.ndarray, noisy: np.ndarray, var: np.ndarray, eps_c: float, eps_root: float,
          cuts: np.ndarray, ps: PointSet, domain: Domain) -> FlatTree:
    """The flat tree: the root (the domain), then the grown boxes depth by depth (children of a node
    consecutive), rectangles on the public grid."""
    boxes = np.vstack(g["boxes"])
    n = boxes.shape[0] + 1
    parent = np.r_[-1, np.concatenate(g["parents"])].astype(np.int64)
    depth = np.r_[0, np.concatenate([np.full(b.shape[0], d + 1) for d, b in enumerate(g["boxes"])])].astype(np.int16)
    is_leaf = np.r_[False, leaf]
    kids = np.bincount(parent[1:], minlength=n)
    first = np.full(n, -1, np.int64)
    starts = np.flatnonzero(np.r_[True, parent[2:] != parent[1:-1]]) + 1
    first[parent[starts]] = starts
    xs, ys = ps.grid.coord(cuts, 0), ps.grid.coord(cuts, 1)
    rect = np.vstack([domain.as_rect(), np.column_stack([xs[boxes[:, 0]], ys[boxes[:, 1]], xs[boxes[:, 2]],
                                                          ys[boxes[:, 3]]])])
    values, variances = np.full(n, np.nan), np.full(n, np.inf)
    values[is_leaf], variances[is_leaf] = noisy, var
    split_eps = np.zeros(n)
    split_eps[0] = eps_root          # the selection and the split decisions, charged once at the root
    tree = FlatTree(rect=rect, depth=depth, parent=parent, first_child=first, n_children=kids.astype(np.int32),
                    noisy=values, count_eps=np.where(is_leaf, eps_c, 0.0), split_eps=split_eps, noise_var=variances)
    tree.est = tree.subtree_sum(np.where(tree.is_leaf, tree.noisy, 0.0))
    return tree


PARAMS = {
    "grid_size": doc("Cells per side of the grid the lines are found on (default 256, or the resolution's grid "
                     "if coarser); a line is one cell wide.", "", 1, None),
    "select_fraction": doc("Share of epsilon for the noisy row and column sums that find the heavy lines.", "",
                           **FRACTION),
    "tree_fraction": doc("Share of epsilon for the split decisions of the PrivTrees along the lines and in the "
                         "bands; the rest measures the leaves.", "PrivTree (SIGMOD'16), section 3", **FRACTION),
    "min_share": doc("A line is heavy when its noisy sum holds at least this share of the noisy total (and three "
                     "noise standard deviations).", "", **FRACTION),
}

SPEC = MethodSpec("lines", build_lines, params=PARAMS, rank=13,
                  interval_caveat="its cells follow the lines it finds, and on values heaped on a grid of readings "
                                  "this interval is too narrow more often than 1 time in 20")
