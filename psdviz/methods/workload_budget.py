"""A quadtree's per-level budget for a known workload (ICDE'12 section 4.2's derivation, given the queries).

Rule. A query's answer from the complete tree without consistency is the sum of its canonical nodes
(the largest nodes inside it, none inside another) plus a share f of each leaf it cuts; with count
noise of variance 2 / eps_l^2 at depth l its variance is sum_l n_l 2 / eps_l^2, n_l the canonical nodes
at depth l (the cut leaves counting f^2 each). Summed over the workload, sum_l N_l / eps_l^2 under
sum_l eps_l = epsilon is smallest at eps_l proportional to N_l^(1/3) (Lagrange). The paper does this
for every query at random, where N_l grows as 2^l and the answer is its geometric plan; here N_l is
counted on the publisher's own queries, which DAWA's second stage also does for its hierarchy (its
greedy weights). Least squares then runs as usual; the plan is only where the epsilon goes.

Counting, per query and depth, without visiting nodes: F_l, the depth-l cells inside the query, is a
product of whole cell spans per axis; the canonical ones are F_l - 4 F_(l-1) (the children of a cell
inside are inside). The cut leaves' f^2 sum to S_x S_y - F_h, S_x the sum over the leaf columns the
query meets of (its share of the column's width)^2.

Privacy: the workload is public input and the plan is a function of it, the domain and the height
(itself from public values or the noisy N); the counts are measured exactly as under any other plan
(geometric noise per level, sequential along a path, the plan summing to epsilon). Every level keeps a
floor (:func:`floor_shares`): its counts also decide where the build stops.
"""
from __future__ import annotations

import numpy as np

from ..core.domain import MAX_WORKLOAD_RECTS, Domain, validate_rects
from ..core.errors import ParameterError
from ..core.optional import require
from ..core.validation import check_epsilon
from ..core.workload import Rectangles, RegionLayer, Workload, as_workload

FLOOR_SHARE = 0.05       # every level keeps at least this share of the plan's largest level ...
GEOMETRIC_FLOOR = 0.5    # ... and the top levels at least this fraction of the geometric plan's shape ...
TOP_LEVELS = 3           # ... at depths 0-2, whose stopped nodes would be leaves of 1/16 of the domain or more


def check_workload(workload, domain: Domain) -> Workload:
    """The workload checked against the domain, a ValueError naming what to fix: rectangles clipped to the
    domain, or a region layer (:class:`psdviz.regions.Regions`, every region of every level one query) that
    meets the domain."""
    workload = as_workload(workload)
    if isinstance(workload, RegionLayer):
        return _check_layer(workload, domain)
    arr = validate_rects(workload.rects)
    if not 1 <= arr.shape[0] <= MAX_WORKLOAD_RECTS:
        raise ParameterError(f"workload must hold between 1 and {MAX_WORKLOAD_RECTS:,} rectangles (got "
                             f"{arr.shape[0]:,})")
    lo, hi = [domain.xmin, domain.ymin] * 2, [domain.xmax, domain.ymax] * 2
    clipped = np.clip(arr, lo, hi)
    empty = (clipped[:, 2] <= clipped[:, 0]) | (clipped[:, 3] <= clipped[:, 1])
    if empty.any():
        raise ParameterError(f"workload rectangle {int(np.flatnonzero(empty)[0])} has no area inside the domain "
                             f"[{domain.xmin:g}, {domain.xmax:g}] x [{domain.ymin:g}, {domain.ymax:g}]; drop it or fix "
                             "its corners")
    return Rectangles(clipped)


def _check_layer(regions: RegionLayer, domain: Domain) -> RegionLayer:
    """A region layer as a workload: at most MAX_WORKLOAD_RECTS regions, all of them meeting the domain."""
    shapely = require("shapely", "region layers")
    if not 1 <= len(regions.geometry) <= MAX_WORKLOAD_RECTS:
        raise ParameterError(f"a region workload must hold between 1 and {MAX_WORKLOAD_RECTS:,} regions "
                             f"(got {len(regions.geometry):,})")
    box = shapely.box(domain.xmin, domain.ymin, domain.xmax, domain.ymax)
    outside = ~shapely.intersects(regions.geometry, box)
    if outside.any():
        raise ParameterError(f"workload region {regions.ids[np.flatnonzero(outside)[0]]!r} lies outside the domain "
                             f"[{domain.xmin:g}, {domain.xmax:g}] x [{domain.ymin:g}, {domain.ymax:g}]; use a layer in "
                             "the release's coordinates or a domain that covers it")
    return regions


def workload_counts(workload: Workload, domain: Domain, height: int) -> np.ndarray:
    """N_l per depth for either kind of workload (:func:`canonical_counts` or
    :func:`psdviz.methods.workload_regions.region_canonical_counts`)."""
    workload = as_workload(workload)
    if isinstance(workload, RegionLayer):
        from .workload_regions import region_canonical_counts
        return region_canonical_counts(workload.geometry, domain, height)
    return canonical_counts(workload.rects, domain, height)


def _axis(lo: np.ndarray, hi: np.ndarray, cells: int) -> tuple[np.ndarray, np.ndarray]:
    """Per query on one axis (in cell units of a level with ``cells`` cells): whole cells inside, and the
    sum over the cells it meets of (its share of the cell)^2."""
    whole = np.maximum(np.floor(hi) - np.ceil(lo), 0.0)
    first, last = np.floor(lo), np.minimum(np.ceil(hi) - 1, cells - 1)
    same = first == last
    f_first = np.where(same, hi - lo, first + 1 - lo)
    f_last = np.where(same, 0.0, hi - last)
    inner = np.maximum(last - first - 1, 0.0)
    return whole, f_first ** 2 + f_last ** 2 + inner


def canonical_counts(rects: np.ndarray, domain: Domain, height: int) -> np.ndarray:
    """N_l per depth l = 0..height: canonical nodes of the workload at depth l, the cut leaves counting
    their share squared at the leaves (module docstring)."""
    x0 = (rects[:, 0] - domain.xmin) / domain.width
    x1 = (rects[:, 2] - domain.xmin) / domain.width
    y0 = (rects[:, 1] - domain.ymin) / domain.height
    y1 = (rects[:, 3] - domain.ymin) / domain.height
    inside = []
    for d in range(height + 1):
        m = 1 << d
        wx, sx = _axis(x0 * m, x1 * m, m)
        wy, sy = _axis(y0 * m, y1 * m, m)
        inside.append(wx * wy)
    n = np.array([inside[0].sum()] + [(inside[d] - 4 * inside[d - 1]).sum() for d in range(1, height + 1)])
    n[-1] += (sx * sy - inside[-1]).sum()          # sx, sy: the leaf level's, from the last round
    return n


def deepest_used(counts: np.ndarray) -> int:
    """The deepest depth with a canonical node or a cut leaf in a workload's ``counts`` (the last depth if
    none has): levels below it answer none of the queries, so a tree whose height came from the height rule
    stops there (its budget goes to the levels the queries use instead of a floor on unused ones). Cut
    there, the tree has no leaf a query cuts, so its counts are the first ``used + 1`` of these."""
    used = np.flatnonzero(counts > 1e-9)
    return int(used[-1]) if used.size else counts.size - 1


def workload_epsilons(epsilon: float, height: int, workload: Workload, domain: Domain,
                      counts: np.ndarray | None = None) -> np.ndarray:
    """eps per depth, proportional to N_l^(1/3), summing to ``epsilon`` (``counts``: the workload's N_l for
    this height when already counted).

    A level that few queries use directly would get little, though its counts also serve least squares
    and decide the build's early stop; every level keeps at least :func:`floor_shares` of the largest
    level's epsilon (the plan then still sums to epsilon)."""
    epsilon = check_epsilon(epsilon)
    counts = workload_counts(workload, domain, height) if counts is None else counts
    weight = np.cbrt(np.maximum(counts, 0.0))
    if weight.max() <= 0:
        weight = np.ones(height + 1)
    weight = np.maximum(weight, floor_shares(height) * weight.max())
    return epsilon * weight / weight.sum()


def workload_plan(epsilon: float, height: int, budget: str, workload: Workload, counts: np.ndarray,
                  domain: Domain) -> tuple[np.ndarray, str, str]:
    """The per-level plan for a workload whose counts at ``height`` are ``counts``: eps per depth (summing to
    ``epsilon``), the plan's name ("workload") and a note for the release. ``budget`` is the caller's named
    plan, which must be the default: the workload sets the plan."""
    if budget != "geometric":
        raise ParameterError(f"budget={budget!r} and a workload: the workload sets the budget plan; drop one of them")
    eps = workload_epsilons(epsilon, height, workload, domain, counts=counts)
    shares = ", ".join(f"{e / epsilon:.0%}" for e in eps)
    return eps, "workload", (f"budget planned for a workload of {workload.size_text()} (epsilon per level "
                             f"proportional to the cube root of its canonical nodes there; root to leaves: {shares})")


def floor_shares(height: int) -> np.ndarray:
    """Per depth 0..height, the least share of the plan's largest level a level keeps: ``FLOOR_SHARE``, and at
    depths below ``TOP_LEVELS`` ``GEOMETRIC_FLOOR`` times the geometric plan's shape 2^((l - height) / 3)
    (ICDE'12) when that is more.

    Why the top levels: the build stops below a node whose noisy count is at most max(m, one noise sd)
    (:mod:`psdviz.methods.early_stop`), so a level the plan starves stops nodes on its wide noise alone, and a
    node stopped at depth d is a leaf of 4^-d of the domain; random rectangles rarely hold a whole quadrant,
    so their plan would starve depths 0-1. The floor depends on the height only (public), so the plan stays
    a function of public input. Figures: docs/decisions/workload-budget.md, "The top levels keep half the
    geometric plan"."""
    depth = np.arange(height + 1)
    shape = GEOMETRIC_FLOOR * 2.0 ** ((depth - height) / 3)
    return np.maximum(FLOOR_SHARE, np.where(depth < TOP_LEVELS, shape, 0.0))
