"""Hierarchical consistency (slides of Kuo et al., VLDB 2018, "Consistency Solution", "Optimal
Matching Algorithm", "Top-down Consistency", "Merge Estimates"), and bottom-up aggregation.

Top-down, one level at a time and vectorised over all nodes of the level:

1. every node's estimate is in the unattributed form (ascending sizes) with a variance per entry;
2. each parent's groups are matched to the union of its children's groups smallest-to-smallest (the
   slides' least-cost bipartite matching): sort the parent side by (parent, value) and the child side
   by (parent of child, value); both sides then list each parent's G groups in one block, so the
   k-th entries are matched. Every order of tied child entries has the same matching cost, but not
   the same bias: taking tied children in child order always gives the first child the parent's
   smallest values. Tied entries (same parent, same value) are therefore interleaved in proportion to
   each child's share of the tie, as the authors' batch matching does: the j-th of a child's c tied
   entries sorts at fraction (j + 1/2) / c of the tie block (:func:`child_order`);
3. each matched pair is merged by inverse-variance weighting (slides, eq. (1)) with variance eq. (2),
   or, for the comparison in the slides' "Weighted average estimation comparison", by the plain
   average (variance (v1 + v2) / 4);
4. the merged values and variances become the child's estimates for the next level;
5. at the leaves the merged sizes are rounded to the nearest integer and clipped to [0, K] (K is
   public), giving leaf histograms; every other node's histogram is the sum of its children's
   ("back substitution"), so each node sums to its G and equals the sum of its children exactly.

Only released quantities (the level estimates and their variance estimates) are used: this is
post-processing and costs no budget.
"""
from __future__ import annotations

from typing import Literal, cast, get_args

import numpy as np

from ..core.errors import ParameterError
from ..core.ragged import run_starts
from .estimate import LevelEstimate
from .hierarchy import Hierarchy
from .representations import from_unattributed, segment_ids

Merge = Literal["weighted", "average"]   # how a parent's estimate and its children's sum are merged
MERGES: tuple[str, ...] = get_args(Merge)


def merge(a: np.ndarray, va: np.ndarray, b: np.ndarray, vb: np.ndarray, how: str) -> tuple[np.ndarray, np.ndarray]:
    """Combine two independent estimates of the same group size (slides, eqs. (1) and (2))."""
    if how == "average":
        return (a + b) / 2.0, (va + vb) / 4.0
    wa, wb = 1.0 / va, 1.0 / vb
    return (a * wa + b * wb) / (wa + wb), 1.0 / (wa + wb)


def _entry_nodes(hierarchy: Hierarchy, level: int, est: LevelEstimate) -> np.ndarray:
    """Global node id of every entry of a level's concatenated unattributed estimate."""
    return hierarchy.level_nodes(level)[segment_ids(est.hist.sum(axis=1))]


def aggregate_up(hierarchy: Hierarchy, leaf_hist: np.ndarray) -> np.ndarray:
    """All nodes' histograms from the leaves' (rows in ``hierarchy.leaves`` order) by summation."""
    out = np.zeros((hierarchy.n_nodes, leaf_hist.shape[1]), np.int64)
    out[hierarchy.leaves] = leaf_hist
    for level in range(hierarchy.n_levels - 1, 0, -1):
        ids = hierarchy.level_nodes(level)
        np.add.at(out, hierarchy.parent[ids], out[ids])
    return out


def child_order(parent: np.ndarray, value: np.ndarray, child: np.ndarray) -> np.ndarray:
    """Order of child entries by (parent, value), tied entries of several children interleaved in
    proportion: within a run of equal (parent, value, child), entry j of c sorts at (j + 1/2) / c."""
    o = np.lexsort((child, value, parent))
    p, v, c = parent[o], value[o], child[o]
    n = p.size
    start = np.flatnonzero(run_starts(p, v, c))
    length = np.diff(np.r_[start, n])
    rank = np.arange(n) - np.repeat(start, length)
    frac = (rank + 0.5) / np.repeat(length, length)
    return o[np.lexsort((c, frac, v, p))]


def top_down(hierarchy: Hierarchy, estimates: list[LevelEstimate], max_size: int,
             how: str = "weighted") -> np.ndarray:
    """Consistent histograms of every node (n_nodes, K + 1) from per-level estimates."""
    if how not in MERGES:
        raise ParameterError(f"merge must be one of {MERGES} (got {how!r})")
    if len(estimates) != hierarchy.n_levels:
        raise ParameterError(f"need one estimate per level ({hierarchy.n_levels}), got {len(estimates)}")
    if any(e.hg_var is None for e in estimates):
        raise ParameterError("top-down consistency needs the 'hg' or 'hc' method at every level (no variance for "
                             "'naive')")
    variances = [cast(np.ndarray, e.hg_var) for e in estimates]   # none is None (checked above)
    val = estimates[0].hg.astype(float)
    var = variances[0]
    node = _entry_nodes(hierarchy, 0, estimates[0])
    for level in range(1, hierarchy.n_levels):
        est = estimates[level]
        child_node = _entry_nodes(hierarchy, level, est)
        parent_of = hierarchy.parent[child_node]
        op = np.lexsort((val, node))
        oc = child_order(parent_of, est.hg, child_node)
        if not np.array_equal(node[op], parent_of[oc]):
            raise ValueError("children's group counts must add up to their parent's")
        m_val, m_var = merge(val[op], var[op], est.hg[oc].astype(float), variances[level][oc], how)
        val = np.empty_like(m_val)
        var = np.empty_like(m_var)
        val[oc], var[oc] = m_val, m_var
        node = child_node
    sizes = np.clip(np.rint(val), 0, max_size).astype(np.int64)
    leaves = hierarchy.leaves
    leaf_hist = from_unattributed(sizes, node - leaves[0], leaves.size, max_size)
    return aggregate_up(hierarchy, leaf_hist)
