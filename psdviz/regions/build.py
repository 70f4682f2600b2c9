"""``build_regions``: noisy counts for every region of a public layer, made consistent.

Rule. Level l's counts get geometric noise with epsilon / L (L levels; uniform across levels), top
down. With ``pooling="sparse"`` (the default) a region whose noisy count is at most its number of
children times one noise standard deviation of a child's count (``STOP_SDS``, the one-sd reading of
the trees' early stop: its children would hold on average less than their own noise) is not split:
its descendants are not measured, it is measured a second time with the budget of the levels below
it, and its descendants get area shares of its estimate (uniform density in the layer's coordinates,
the assumption every leaf of a spatial release makes). With ``pooling="none"`` every region of every
level is measured. Counts come from one grouped pass over the public grid: each occupied cell goes to
the leaf region holding its centre (:mod:`.assign`), a leaf's count is the sum of its cells' and a
parent's the sum of its children's. Then least squares over the measured regions, area shares below
the stopped ones, non-negativity and integer rounding (:mod:`.consistency`).

Privacy. One point changes at most one leaf's count by one, hence at most one count per level (the
regions of a level do not overlap: checked when the layer is made, :mod:`.layer`), so level l's
counts have L1 sensitivity 1 and cost epsilon / L in parallel. The stop decision reads only a
released noisy count and public facts (the number of children, the noise's variance), so it is
post-processing; a region stopped at level d pays eps_d, then eps_{d+1} + ... + eps_{L-1} once for
its second count, what its descendants would have cost (it is disjoint from the regions still
measured at those levels, so each level's ledger line covers both). Every root-to-leaf path costs
epsilon. Which cell goes to which region depends only on public inputs (the layer and the grid).
Everything after the noise reads released values only. Points in no leaf region are not counted (the
owner's audit says how many).
"""
from __future__ import annotations

import numpy as np

from ..core.budget import STOP_SDS
from ..core.errors import ParameterError
from ..core.ledger import Ledger
from ..core.noise import geometric_noise, geometric_variance
from ..core.rng import Randomness
from ..core.source import KeySource
from .assign import leaf_counts, misplacement
from .consistency import area_shares, integer_counts, least_squares, region_tree, up_sums
from .layer import Regions
from .release import MEASURED, SHARED, STOPPED, RegionRelease

POOLINGS = ("sparse", "none")   # pool the descendants of sparse regions, or measure every region


def check_pooling(pooling: str) -> str:
    """``pooling`` if it is one of :data:`POOLINGS`, else a ValueError naming them."""
    if pooling not in POOLINGS:
        raise ParameterError(f"pooling must be one of {POOLINGS} (got {pooling!r})")
    return pooling


def true_counts(source: KeySource, regions: Regions) -> tuple[np.ndarray, int]:
    """(count of every region, points in no leaf region) from one grouped pass over the grid."""
    parent = regions.parent_index()
    rows, cnt, outside = leaf_counts(source, regions.raster(source.grid))
    counts = np.bincount(rows, weights=cnt, minlength=parent.size)
    return up_sums(counts, parent, regions.levels).astype(np.int64), outside


def measure(truth: np.ndarray, parent: np.ndarray, levels: np.ndarray, epsilon: float, rnd: Randomness,
            ledger: Ledger, pooling: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(noisy count, its variance, status) of every region, measured top-down (module docstring).

    Unmeasured regions hold NaN and an infinite variance; a stopped region's two counts are combined
    with inverse-variance weights (both are released values)."""
    L = int(levels.max(initial=0)) + 1
    eps = epsilon / L
    v = float(geometric_variance(eps))
    n_kids = np.bincount(parent[parent >= 0], minlength=parent.size)
    noisy, var = np.full(parent.size, np.nan), np.full(parent.size, np.inf)
    status = np.full(parent.size, SHARED, dtype=np.int8)
    alive = levels == 0
    stopped_above = 0
    for d in range(L):
        at = np.flatnonzero(alive & (levels == d))
        ledger.spend("region counts", eps, "geometric", level=d, nodes=int(at.size) + stopped_above,
                     note=f"every region of level {d} still measured (disjoint: one point counts in at most one)"
                     + (f"; also {stopped_above} regions stopped above, measured once with the budget of the "
                        "levels below them" if stopped_above else ""))
        noisy[at] = truth[at] + geometric_noise(rnd.rng, at.size, eps)
        var[at], status[at] = v, MEASURED
        if d == L - 1:
            break
        stop = at[(n_kids[at] > 0) & (noisy[at] <= n_kids[at] * STOP_SDS * np.sqrt(v))] if pooling == "sparse" \
            else at[:0]
        rest = (L - 1 - d) * eps
        if stop.size:
            vr = float(geometric_variance(rest))
            second = truth[stop] + geometric_noise(rnd.rng, stop.size, rest)
            noisy[stop] = (noisy[stop] / v + second / vr) / (1 / v + 1 / vr)
            var[stop], status[stop] = 1 / (1 / v + 1 / vr), STOPPED
        stopped_above += stop.size
        grow = np.zeros(parent.size, bool)
        grow[np.setdiff1d(at, stop, assume_unique=True)] = True
        alive |= (parent >= 0) & grow[np.maximum(parent, 0)]
    return noisy, var, status


def measure_regions(source: KeySource, regions: Regions, epsilon: float, rnd: Randomness,
                    pooling: str = "sparse") -> RegionRelease:
    """The region release of ``source`` over ``regions`` (rule and privacy in the module docstring)."""
    check_pooling(pooling)
    truth, outside = true_counts(source, regions)
    levels, parent = regions.levels, regions.parent_index()
    L = regions.n_levels
    ledger = Ledger(epsilon)
    noisy, var, status = measure(truth, parent, levels, epsilon, rnd, ledger, pooling)
    ledger.check_parallel(regions.disjointness)
    ls, se = _estimates(parent, levels, noisy, var, status, regions)
    est = integer_counts(region_tree(parent, levels, np.where(np.isfinite(noisy), noisy, 0.0), var), np.r_[0.0, ls])
    step = misplacement(source.grid)
    n_shared = int((status == SHARED).sum())
    params = {"resolution": source.grid.bits, "budget": f"epsilon / {L} per level", "epsilon_per_level": epsilon / L,
              "pooling": pooling, "misplacement": step,
              "consistency": "least squares, then top-down non-negative integers (simplex projection, "
                             "largest remainder)"}
    near = np.format_float_positional(step, precision=3, fractional=False, trim="-")    # never 1.57e-05
    notes: tuple[str, ...] = (
        f"points are placed by the centre of their cell of the resolution-{source.grid.bits} grid: one within "
        f"{near} (domain units) of a border may be counted in the neighbouring region",)
    if n_shared:
        notes += (f"{int((status == STOPPED).sum()):,} regions held too few points for their children at this epsilon: "
                  f"their {n_shared:,} descendants were not measured and get area shares of their count (uniform "
                  "density assumed; the standard error covers the noise, not that assumption)",)
    report = {**source.report(), "rows_in_no_region": outside}
    return RegionRelease(regions.table(), noisy, est[1:], ls, se, params, ledger, rnd, notes,
                         input_report=report, status=status)


def _estimates(parent, levels, noisy, var, status, regions: Regions) -> tuple[np.ndarray, np.ndarray]:
    """(least-squares estimate, standard error) of every region: the weighted least squares over the
    measured regions, then area shares of a stopped ancestor's for the regions below it (a linear map
    of the same measurements, so the standard error scales by the share)."""
    measured = np.flatnonzero(status != SHARED)
    pos = np.full(parent.size, -1)
    pos[measured] = np.arange(measured.size)
    sub_parent = np.where(parent[measured] >= 0, pos[np.maximum(parent[measured], 0)], -1)
    ls_m, se_m = least_squares(region_tree(sub_parent, levels[measured], noisy[measured], var[measured]))
    ls, se = np.zeros(parent.size), np.zeros(parent.size)
    ls[measured], se[measured] = ls_m[1:], se_m[1:]
    share = area_shares(parent, levels, regions.leaf_areas())
    for d in range(1, int(levels.max(initial=0)) + 1):    # top-down: a shared region takes its parent's share
        at = np.flatnonzero((levels == d) & (status == SHARED))
        ls[at], se[at] = ls[parent[at]] * share[at], se[parent[at]] * share[at]
    return ls, se
