"""``build_regions``: noisy counts for every region of a public layer, made consistent.

Rule. Every region of every level is measured: level l's counts get geometric noise with epsilon / L
(L levels; uniform across levels). Counts come from one grouped pass over the public grid: each
occupied cell goes to the leaf region holding its centre (:mod:`.assign`), a leaf's count is the sum of
its cells' and a parent's the sum of its children's. Then least squares over the region tree,
non-negativity and integer rounding (:mod:`.consistency`).

Privacy. One point changes at most one leaf's count by one, hence at most one count per level (the
regions of a level do not overlap: checked when the layer is made, :mod:`.layer`), so level l's
counts have L1 sensitivity 1 and cost epsilon / L in parallel; the levels compose to epsilon along
every root-to-leaf path. Which cell goes to which region depends only on public inputs (the layer
and the grid). Everything after the noise reads released values only. Points in no leaf region are
not counted (the owner's audit says how many).
"""
from __future__ import annotations

import numpy as np

from ..core.ledger import Ledger
from ..core.noise import geometric_noise, geometric_variance
from ..core.rng import Randomness
from ..core.source import KeySource
from .assign import leaf_counts, misplacement
from .consistency import integer_counts, least_squares, region_tree
from .layer import Regions
from .release import RegionRelease


def true_counts(source: KeySource, regions: Regions) -> tuple[np.ndarray, int]:
    """(count of every region, points in no leaf region) from one grouped pass over the grid."""
    parent = regions.parent_index()
    rows, cnt, outside = leaf_counts(source, regions.raster(source.grid))
    counts = np.bincount(rows, weights=cnt, minlength=parent.size)
    for d in range(regions.n_levels - 1, 0, -1):          # children into parents, deepest level first
        at = np.flatnonzero((regions.levels == d) & (parent >= 0))
        counts += np.bincount(parent[at], weights=counts[at], minlength=parent.size)
    return counts.astype(np.int64), outside


def measure_regions(source: KeySource, regions: Regions, epsilon: float, rnd: Randomness) -> RegionRelease:
    """The region release of ``source`` over ``regions`` (rule and privacy in the module docstring)."""
    truth, outside = true_counts(source, regions)
    levels = regions.levels
    L = regions.n_levels
    eps = epsilon / L
    ledger = Ledger(epsilon)
    noisy = np.empty(truth.size)
    for d in range(L):
        at = np.flatnonzero(levels == d)
        ledger.spend("region counts", eps, "geometric", level=d, nodes=at.size,
                     note=f"every region of level {d} (disjoint: one point counts in at most one)")
        noisy[at] = truth[at] + geometric_noise(rnd.rng, at.size, eps)
    ledger.check_parallel(regions.disjointness)
    var = np.full(truth.size, float(geometric_variance(eps)))
    tree = region_tree(regions.parent_index(), levels, noisy, var)
    ls, se = least_squares(tree)
    est = integer_counts(tree, ls)
    step = misplacement(source.grid)
    params = {"resolution": source.grid.bits, "budget": f"epsilon / {L} per level", "epsilon_per_level": eps,
              "misplacement": step,
              "consistency": "least squares, then top-down non-negative integers (simplex projection, "
                             "largest remainder)"}
    notes = (f"points are placed by the centre of their cell of the resolution-{source.grid.bits} grid: one within "
             f"{step:.3g} (domain units) of a border may be counted in the neighbouring region",)
    report = {**source.report(), "rows_in_no_region": outside}
    return RegionRelease(regions.table(), noisy, est[1:], ls[1:], se[1:], params, ledger, rnd, notes,
                         input_report=report)
