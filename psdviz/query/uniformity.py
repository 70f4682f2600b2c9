"""The error of the uniformity assumption in the cells a region's border cuts: a model from released values.

A region takes each cell it cuts in proportion to the covered share a of the cell's area. Were the cell's
c points placed independently and uniformly at random inside it, the covered part would hold Bin(c, a)
points: variance c a (1 - a). Real points clump, and the release shows by how much one level up: under that
model a leaf i of area share s_i of its parent (whose children are all leaves, c points) has
E (c_i - s_i c)^2 = c s_i (1 - s_i). The factor kappa = max(1, sum of (d_i^2 - var d_i) / sum of c s_i (1 - s_i))
over the leaves whose parents lie at one depth (a moment estimate; the noise is not weighted by 1 / s_i as in
Pearson's form, which thin cells would swamp) scales the binomial variance of the leaves below that depth
(quasi-binomial: a leaf is taken to be as uneven inside as the leaves of its parent's depth are inside their
parents; larger cells are clumpier). The deviations are of the raw measurements, whose noise is independent
with public variances: d_i = y_i - s_i y, with y the parent's own noisy count (var d_i = v_i + s_i^2 v) or,
where the parent was not measured, the sum of its children's (var d_i = (1 - s_i)^2 v_i + s_i^2 sum_j!=i v_j).
(Estimates after least squares have less noise than the raw variances, and correlated: their deviations
cannot be corrected by them.)

A cell whose edges the data placed (a private median puts equal counts on both sides whatever the points do
inside) hides how its points sit: its siblings' deviations from their area shares stay small however
clumped they are, and the release holds nothing finer. For such cells the model takes the c points as one
clump at a random place, variance c^2 a (1 - a) (kappa = c). Medians also shape the cells after the data
(thin cells along a dense street or a row of values), so the cells one edge of a query cuts share their clumps:
their errors are taken as fully correlated, the sum of their standard deviations (the largest the sum's can
be), where other cells' variances add (measurements in docs/decisions/workload-budget.md).

It is a model, not a bound: points clumped more finely than the leaves make the error larger. Privacy:
it reads released values (raw noisy counts, estimates, the cut depths of the query model) and public noise
variances only (post-processing, no budget).
"""
from __future__ import annotations

import numpy as np

from ..core.tree import FlatTree


def overdispersion(tree: FlatTree) -> np.ndarray:
    """kappa of the module docstring per node: measured over the nodes whose children are all leaves, one
    figure per depth of those parents (a leaf takes its parent depth's, else the figure over all depths).
    A family with an unmeasured leaf is left out."""
    out = np.ones(tree.n_nodes)
    child = np.flatnonzero(tree.parent >= 0)
    if child.size == 0:
        return out
    parent = tree.parent[child]
    y, v = _raw(tree)
    inner_kids = np.bincount(parent, weights=~tree.is_leaf[child], minlength=tree.n_nodes)
    blind_kids = np.bincount(parent, weights=~np.isfinite(y[child]), minlength=tree.n_nodes)
    last = (tree.n_children > 1) & (inner_kids == 0) & (blind_kids == 0)
    kids = child[last[parent]]
    up = tree.parent[kids]
    r = tree.rect
    area = (r[:, 2] - r[:, 0]) * (r[:, 3] - r[:, 1])
    share = np.where(area[up] > 0, area[kids] / np.where(area[up] > 0, area[up], 1.0), 0.0)
    ok = share > 0
    kids, up, share = kids[ok], up[ok], share[ok]
    own = np.isfinite(y[up])                                   # the parent measured: independent noise
    y_up = np.where(own, y[up], np.bincount(up, weights=y[kids], minlength=tree.n_nodes)[up])
    v_sum = np.bincount(up, weights=v[kids], minlength=tree.n_nodes)[up]
    noise = np.where(own, v[kids] + share ** 2 * v[up],                          # v is 0 where unmeasured
                     (1.0 - share) ** 2 * v[kids] + share ** 2 * (v_sum - v[kids]))
    excess = (y[kids] - share * y_up) ** 2 - noise                                  # per child
    expected = np.maximum(y_up, 0.0) * share * (1.0 - share)
    depths = tree.depth.max() + 1
    num = np.bincount(tree.depth[up], weights=excess, minlength=depths)
    den = np.bincount(tree.depth[up], weights=expected, minlength=depths)
    overall = max(1.0, num.sum() / den.sum()) if den.sum() > 0 else 1.0
    by_depth = np.where(den > 0, np.maximum(1.0, num / np.where(den > 0, den, 1.0)), overall)
    out[child] = by_depth[tree.depth[parent]]
    return out


def data_placed(tree: FlatTree, data_cuts: int) -> np.ndarray:
    """Per node: whether the data placed its edges (a child of a node shallower than ``data_cuts``)."""
    return (tree.parent >= 0) & (tree.depth <= data_cuts)


def cut_factor(tree: FlatTree, values: np.ndarray, placed: np.ndarray) -> np.ndarray:
    """kappa per node: :func:`overdispersion`, and at least the cell's released count (one clump) for the
    cells ``placed`` (:func:`data_placed`)."""
    kappa = overdispersion(tree)
    c = np.maximum(np.nan_to_num(np.asarray(values, float)), 0.0)
    kappa[placed] = np.maximum(kappa[placed], c[placed])
    return kappa


def _raw(tree: FlatTree) -> tuple[np.ndarray, np.ndarray]:
    """Each node's raw noisy count and its noise variance (NaN and 0 where the node was not measured)."""
    measured = np.isfinite(tree.noisy) & np.isfinite(tree.noise_var)
    return np.where(measured, tree.noisy, np.nan), np.where(measured, tree.noise_var, 0.0)


def cut_cell_variance(region: np.ndarray, share: np.ndarray, cell_values: np.ndarray, kappa: np.ndarray,
                      n_regions: int, coherent: np.ndarray | None = None) -> np.ndarray:
    """Per region: the sum over the cells it covers of kappa c a (1 - a), c the cell's released estimate
    (at least 0), a the covered share (``region``, ``share``, ``cell_values``, ``kappa``: one entry per
    overlapping pair). The pairs marked ``coherent`` (cells the data placed) add as standard deviations, the
    square of their sum: their errors taken as fully correlated, the largest variance a sum of them can have."""
    c = np.maximum(np.nan_to_num(np.asarray(cell_values, float)), 0.0)
    var = kappa * c * share * (1.0 - share)
    if coherent is None or not coherent.any():
        return np.bincount(region, weights=var, minlength=n_regions)
    sd_sum = np.bincount(region, weights=np.where(coherent, np.sqrt(var), 0.0), minlength=n_regions)
    return np.bincount(region, weights=np.where(coherent, 0.0, var), minlength=n_regions) + sd_sum ** 2
