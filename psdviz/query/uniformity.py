"""The error of the uniformity assumption in the cells a region's border cuts: a model from released values.

A region takes each cell it cuts in proportion to the covered share a of the cell's area. Were the cell's c
points placed independently and uniformly inside it, the covered part would hold Bin(c, a) points: variance
c a (1 - a). Real points clump, and the release shows by how much: kappa, the overdispersion of the children's
raw noisy counts around their area shares of their parents', in every family of a depth (:func:`overdispersion`),
scales that variance (quasi-binomial). It is read as an upper bound, two standard deviations of its noise above
its moment estimate: where the noise swamps the deviations (sparse data) the release shows nothing of how even
the points are and the model takes them as uneven; at most a cell's own count (one clump). A cell whose edges the
data placed (a private median) hides how its points sit: one clump, kappa = c (:func:`data_placed`).

The cells one edge of a query cuts share their clumps where points line up along the edge (a road, a row of
values recorded in whole units): the release shows it as alike imbalances of stacked families, read as a growth
factor of the edge's variance (:func:`edge_coherence`), at most fully coherent; data-placed cells are fully
coherent. The four edges add as variances. The interval (:mod:`psdviz.kernel.intervals`) then holds this
part to what the cut cells could hold. Rules, figures and what was tried: docs/decisions/whole-interval.md.

It is a model, not a bound: coverage is measured (benchmarks/bench_coverage.py). Privacy: it reads released
values (raw noisy counts, estimates, the cut depths of the query model) and public noise variances only
(post-processing, no budget).
"""
from __future__ import annotations

import numpy as np

from ..core.tree import FlatTree

UPPER_SDS = 2.0      # kappa is read two standard deviations of the noise's part above its moment estimate


def overdispersion(tree: FlatTree) -> np.ndarray:
    """kappa per node (module docstring): over every family, one figure per depth of its parent (a node takes its
    parent depth's, else the figure over all depths; none: inf, one clump). A child not measured reads as the sum
    of the measured leaves below it. Not only the families whose children are all leaves: in a tree a noisy
    count's threshold grew (PrivTree, kd-privtree; a pruned quadtree), a family is last because both children
    fell below the threshold, which caps how unevenly its count could split (a heap larger than the threshold is
    never in one), so the figure read there alone takes heaps for even spreads.

    A leaf i of area share s_i of its parent (c points) has E (c_i - s_i c)^2 = c s_i (1 - s_i) when its points
    are uniform; kappa = max(1, (sum of (d_i^2 - var d_i) + 2 sd) / sum of c s_i (1 - s_i)), the deviations
    of the raw measurements d_i = y_i - s_i y (y the parent's own noisy count, var d_i = v_i + s_i^2 v; where the
    parent was not measured, the sum of its children's, var d_i = (1 - s_i)^2 v_i + s_i^2 sum_j!=i v_j), sd the
    noise's part of the numerator (about 5 v_i^2 + 4 (d_i^2 - var d_i) v_i a term: heavy-tailed counts). The
    noise is not weighted by 1 / s_i as in Pearson's form, which thin cells would swamp. A family with an
    unmeasured leaf below it is left out."""
    out = np.ones(tree.n_nodes)
    child = np.flatnonzero(tree.parent >= 0)
    if child.size == 0:
        return out
    parent = tree.parent[child]
    y_own, v_own = _raw(tree)
    y, v = _summed(tree, y_own, v_own)
    blind_kids = np.bincount(parent, weights=~np.isfinite(y[child]), minlength=tree.n_nodes)
    family = (tree.n_children > 1) & (blind_kids == 0)
    kids = child[family[parent]]
    up = tree.parent[kids]
    r = tree.rect
    area = (r[:, 2] - r[:, 0]) * (r[:, 3] - r[:, 1])
    share = np.where(area[up] > 0, area[kids] / np.where(area[up] > 0, area[up], 1.0), 0.0)
    ok = share > 0
    kids, up, share = kids[ok], up[ok], share[ok]
    own = np.isfinite(y_own[up])                               # the parent measured: independent noise
    y_up = np.where(own, y_own[up], np.bincount(up, weights=y[kids], minlength=tree.n_nodes)[up])
    v_sum = np.bincount(up, weights=v[kids], minlength=tree.n_nodes)[up]
    noise = np.where(own, v[kids] + share ** 2 * v_own[up],                      # v is 0 where unmeasured
                     (1.0 - share) ** 2 * v[kids] + share ** 2 * (v_sum - v[kids]))
    excess = (y[kids] - share * y_up) ** 2 - noise                                  # per child
    expected = np.maximum(y_up, 0.0) * share * (1.0 - share)
    spread = 5.0 * noise ** 2 + 4.0 * np.maximum(excess, 0.0) * noise              # var of excess from the noise
    depths = tree.depth.max() + 1
    num = (np.bincount(tree.depth[up], weights=excess, minlength=depths)
           + UPPER_SDS * np.sqrt(np.bincount(tree.depth[up], weights=spread, minlength=depths)))
    den = np.bincount(tree.depth[up], weights=expected, minlength=depths)
    overall = max(1.0, num.sum() / den.sum()) if den.sum() > 0 else np.inf
    by_depth = np.where(den > 0, np.maximum(1.0, num / np.where(den > 0, den, 1.0)), overall)
    out[child] = by_depth[tree.depth[parent]]
    return out


def data_placed(tree: FlatTree, data_cuts: int) -> np.ndarray:
    """Per node: whether the data placed its edges (a child of a node shallower than ``data_cuts``)."""
    return (tree.parent >= 0) & (tree.depth <= data_cuts)


def cut_factor(tree: FlatTree, values: np.ndarray, placed: np.ndarray) -> np.ndarray:
    """kappa per node: :func:`overdispersion`, at most the cell's released count (one clump, the most uneven
    a cell can be), and that count for the cells ``placed`` (:func:`data_placed`)."""
    c = np.maximum(np.nan_to_num(np.asarray(values, float)), 1.0)
    kappa = np.minimum(overdispersion(tree), c)
    kappa[placed] = c[placed]
    return kappa


def _summed(tree: FlatTree, y: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each node's raw noisy count and its noise variance, a node not measured reading as the sum of the leaves'
    below it (:meth:`FlatTree.subtree_sum`: independent noise, variances adding); NaN where a leaf below was not
    measured."""
    own = np.isfinite(y)
    return np.where(own, y, tree.subtree_sum(y)), np.where(own, v, tree.subtree_sum(v))


def _raw(tree: FlatTree) -> tuple[np.ndarray, np.ndarray]:
    """Each node's raw noisy count and its noise variance (NaN and 0 where the node was not measured)."""
    measured = np.isfinite(tree.noisy) & np.isfinite(tree.noise_var)
    return np.where(measured, tree.noisy, np.nan), np.where(measured, tree.noise_var, 0.0)


def cut_cell_variance(region: np.ndarray, share: np.ndarray, cell_values: np.ndarray, kappa: np.ndarray,
                      n_regions: int, coherent: np.ndarray | None = None, edge: np.ndarray | None = None,
                      rho: tuple[float, float] | None = None, along_edge: np.ndarray | None = None) -> np.ndarray:
    """Per region: the sum over the cells it covers of kappa c a (1 - a), c the cell's count (at least 0), a
    the covered share (``region``, ``share``, ``cell_values``, ``kappa``: one entry per overlapping pair). The
    pairs marked ``coherent`` (cells the data placed) add as standard deviations, the square of their sum: their
    errors taken as fully correlated, the largest variance a sum of them can have. With ``edge`` (which of a
    rectangle's four edges cuts the cell, -1 for none) and ``rho`` (the factors F of :func:`edge_coherence` for a
    vertical, then a horizontal edge), the cells one edge cuts have correlated errors (points on one row or
    column of values, a road along the edge, sit on the same side of it in many cells it cuts): an edge's
    variance is F sum var, at most (sum sd)^2 (fully coherent); the four edges add as variances, and the cells
    the data placed stay fully coherent with every other cell. ``along_edge`` (per pair, :func:`stacked_along`:
    n, the cells its family stacks along the edge that cuts it) stretches each cell's F to its own spacing:
    F_cell = 1 + (F - 1) max(n / 2, 1)."""
    c = np.maximum(np.nan_to_num(np.asarray(cell_values, float)), 0.0)
    var = kappa * c * share * (1.0 - share)
    if edge is not None:
        placed = np.zeros(region.size, bool) if coherent is None else coherent
        along = (edge >= 0) & ~placed
        group = region[along] * 4 + edge[along]
        sd_sums = np.bincount(group, weights=np.sqrt(var[along]), minlength=4 * n_regions).reshape(n_regions, 4)
        grow = np.repeat(np.asarray(rho if rho is not None else (np.inf, np.inf), float), 2)[edge[along]]
        if along_edge is not None:
            grow = 1.0 + (grow - 1.0) * np.maximum(np.asarray(along_edge, float)[along] / 2.0, 1.0)
        v = var[along]
        grown = np.multiply(v, grow, out=np.zeros_like(v), where=v > 0)      # an empty cell adds 0, whatever F
        chain = np.bincount(group, weights=grown, minlength=4 * n_regions).reshape(n_regions, 4)
        edge_sd = np.sqrt(np.minimum(chain, sd_sums ** 2))               # at most fully coherent
        placed_sd = np.bincount(region[placed], weights=np.sqrt(var[placed]), minlength=n_regions)
        rest = np.bincount(region[(edge < 0) & ~placed], weights=var[(edge < 0) & ~placed], minlength=n_regions)
        return (edge_sd ** 2).sum(axis=1) + rest + placed_sd * (placed_sd + 2.0 * edge_sd.sum(axis=1))
    if coherent is None or not coherent.any():
        return np.bincount(region, weights=var, minlength=n_regions)
    sd_sum = np.bincount(region, weights=np.where(coherent, np.sqrt(var), 0.0), minlength=n_regions)
    return np.bincount(region, weights=np.where(coherent, 0.0, var), minlength=n_regions) + sd_sum ** 2


def stacked_cells(tree: FlatTree) -> tuple[np.ndarray, np.ndarray]:
    """Per node: how many cells its family stacks in its column (itself and the siblings of its x-range: the cells a
    vertical edge meets in one family step), then in its row (the siblings of its y-range); 1 for the root.

    :func:`edge_coherence` reads correlations one family apart; the cells an edge cuts sit one cell apart. Were
    the correlation a slowly decaying function of distance, a sum over n cells to a family step is n / 2 times
    the sum over the quadtree's two (the spacing the rule was stated for): F - 1 grows by n / 2. A two-level grid
    (AG) stacks its m x m grid's m; a quadtree 2; a median split 1 across its axis, and 2 along it once the
    halves are split the other way."""
    child = np.flatnonzero(tree.parent >= 0)
    out = []
    for lo, hi in ((0, 2), (1, 3)):                   # a column shares the x-range, a row the y-range
        stacked = np.ones(tree.n_nodes)
        if child.size:
            up, a, b = tree.parent[child], tree.rect[child, lo], tree.rect[child, hi]
            order = np.lexsort((b, a, up))
            key = np.column_stack([up[order], a[order], b[order]])
            start = np.r_[True, np.any(key[1:] != key[:-1], axis=1)]
            group = np.cumsum(start) - 1
            stacked[child[order]] = np.bincount(group)[group]
        out.append(stacked)
    return out[0], out[1]


def stacked_along(edge: np.ndarray, in_column: np.ndarray, in_row: np.ndarray) -> np.ndarray:
    """Per (query, cell) pair: the cells its family stacks along the query edge that cuts it (``edge``, as
    :func:`cutting_edge`): a vertical edge (0 left, 1 right) runs along a column of cells, a horizontal one along a
    row; ``in_column`` and ``in_row`` are :func:`stacked_cells` of the pairs' cells."""
    return np.where(np.asarray(edge) < 2, in_column, in_row)


def edge_coherence(tree: FlatTree) -> tuple[float, float]:
    """(F_x, F_y): how much the cut cells' variances along one vertical (then horizontal) query edge grow from
    their errors' correlation, read from released counts (at least 1; inf: fully coherent).

    For the families whose children are all measured leaves (the finest reading of how points line up), a family's
    imbalance along x is its left children's raw counts less its right children's (children spanning the centre left
    out), with noise variance the sum of theirs. Families stacked on one another (the same x-range at the same
    depth) whose imbalances agree show points lined up along the columns: a vertical query edge then cuts every cell
    on the same side of their points. rho_k, the correlation of the imbalances of families k apart (their noise
    variances out of the denominators), is read two standard deviations of the product's noise above its estimate,
    for k = 1 and 4. The correlation of cells k apart is taken as rho_1 q^(k - 1), q the slower of rho_1 and
    rho_4^(1/4) (the decay a correlation of rho_4 four apart implies: a road or a row of values keeps its cells
    alike far along), so F = 1 + 2 rho_1 / (1 - q). With no stacked pair, or noise swamping them, nothing is known:
    F is inf, the cells one edge cuts fully coherent.
    """
    return _coherence(tree, 0), _coherence(tree, 1)


def _coherence(tree: FlatTree, axis: int) -> float:
    y, v = _raw(tree)
    child = np.flatnonzero(tree.parent >= 0)
    if child.size == 0:
        return np.inf
    parent = tree.parent[child]
    r = tree.rect
    inner_kids = np.bincount(parent, weights=~tree.is_leaf[child], minlength=tree.n_nodes)
    blind_kids = np.bincount(parent, weights=~np.isfinite(y[child]), minlength=tree.n_nodes)
    last = (tree.n_children > 1) & (inner_kids == 0) & (blind_kids == 0)
    kids = child[last[parent]]
    up = tree.parent[kids]
    lo, hi = (0, 2) if axis == 0 else (1, 3)
    centre = (r[up, lo] + r[up, hi]) / 2
    side = np.where(r[kids, hi] <= centre, 1.0, np.where(r[kids, lo] >= centre, -1.0, 0.0))
    imb = np.bincount(up, weights=side * y[kids], minlength=tree.n_nodes)
    var = np.bincount(up, weights=(side != 0) * v[kids], minlength=tree.n_nodes)
    fam = np.flatnonzero(last)
    across_lo, across_hi = (1, 3) if axis == 0 else (0, 2)        # families stacked across the other axis
    f = fam[np.lexsort((r[fam, across_lo], r[fam, hi], r[fam, lo], tree.depth[fam]))]
    rho1 = _lag_correlation(f, 1, imb, var, tree, lo, hi, across_lo, across_hi)
    if not np.isfinite(rho1):
        return np.inf
    rho4 = _lag_correlation(f, 4, imb, var, tree, lo, hi, across_lo, across_hi)
    q = rho1 if not np.isfinite(rho4) else max(rho1, max(rho4, 0.0) ** 0.25)
    return 1.0 + 2.0 * rho1 / max(1.0 - min(q, 1.0), 1e-12)


def _lag_correlation(f: np.ndarray, k: int, imb: np.ndarray, var: np.ndarray, tree: FlatTree, lo: int, hi: int,
                     across_lo: int, across_hi: int) -> float:
    """The upper-bound correlation of the imbalances of families k apart in one stack (``f`` sorted by stack,
    then position); NaN when there is no such pair or the noise swamps them."""
    if f.size <= k:
        return float("nan")
    r = tree.rect
    a, b = f[:-k], f[k:]
    size = r[a, across_hi] - r[a, across_lo]
    pair = ((tree.depth[a] == tree.depth[b]) & (r[a, lo] == r[b, lo]) & (r[a, hi] == r[b, hi])
            & np.isclose(r[b, across_lo] - r[a, across_lo], k * size))
    a, b = a[pair], b[pair]
    if a.size == 0:
        return float("nan")
    num = float((imb[a] * imb[b]).sum())
    spread = float(np.sqrt((imb[b] ** 2 * var[a] + imb[a] ** 2 * var[b] + var[a] * var[b]).sum()))
    den = float(np.sqrt(max((imb[a] ** 2 - var[a]).sum(), 0.0) * max((imb[b] ** 2 - var[b]).sum(), 0.0)))
    if den <= 0:
        return float("nan")
    return float(np.clip((num + UPPER_SDS * spread) / den, 0.0, 1.0))


def cutting_edge(rects: np.ndarray, query: np.ndarray, cells: np.ndarray) -> np.ndarray:
    """Per (query, cell) pair: which edge of the query rectangle passes through the cell's interior (0 left,
    1 right, 2 bottom, 3 top; the first that does), -1 when none does."""
    q, c = rects[query], cells
    inside = [(q[:, 0] > c[:, 0]) & (q[:, 0] < c[:, 2]), (q[:, 2] > c[:, 0]) & (q[:, 2] < c[:, 2]),
              (q[:, 1] > c[:, 1]) & (q[:, 1] < c[:, 3]), (q[:, 3] > c[:, 1]) & (q[:, 3] < c[:, 3])]
    out = np.full(query.size, -1, dtype=np.int64)
    for k in (3, 2, 1, 0):
        out[inside[k]] = k
    return out
