"""``method="auto"``: the recommended private method, chosen from public facts and a few noisy ones.

A small plan: facts -> choice -> build. :func:`measure_facts` buys the noisy facts (one pass over a public
256 x 256 grid, coarser if the resolution is), in the order the rules read them and only those a rule still to be
read needs; :func:`choose` reads them against the rules of :mod:`.auto_rules` (first match wins; each rule declares
the facts it reads, what it picks and its evidence); the pick is built with the rest of epsilon. The release says
in one plain sentence what was chosen and why, and in a second note what auto measured and what that cost.

Facts: N (public if declared, else a noisy count); *spread* (noisy occupied cells over C (1 - exp(-N / C)), the
cells a uniform spread would occupy; from N eps = 10^4); *corner share* (three noise scales below the noisy fullest
corner cell's share of N on the release's grid) and on finer grids the same on the 256 x 256 grid; below N eps =
10^5 the fullest row or column of cells (for long thin queries over data that change across them, up to 10^6);
given a workload, the points in the cells its queries touch, or the excess variation across them (long thin ones
over spread data from N eps = 10^5) or along the edges through a corner.

Privacy: the facts cost at most ``FEATURE_FRACTION`` (2 %) of epsilon, half for N (a quarter of that given a
workload) and half shared by the cell facts (a share not bought goes to the others, decided from the noisy N), the
coarse corner, line, fine and edge facts each at most as much again as a cell fact; geometric noise with
sensitivity 1 each (a point lies in one cell, one corner cell, one row and one column), the fine and edge facts
(real sums, :mod:`.fine_structure`: sensitivity 2 an axis, 2) geometric noise on the public lattice of 2^-6
(:mod:`psdviz.core.lattice`); a ledger line "auto feature: ..." each. Which facts are bought and the choice read
only released values (post-processing, adaptive sequential composition); the pick gets the rest of epsilon and
reuses the noisy N. The release keeps method = "auto" with ``params["chosen"]`` and the facts.

Given a workload, the pick plans for it when it can (the strategy and the quadtree always, the hybrid from N eps =
``HYBRID_PLAN_N_EPS``: :func:`workload_unused`); the others do not (a release note says so).
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from ..core.domain import Domain, PointSet
from ..core.grid import even_edges
from ..core.lattice import REAL_BITS, noisy_statistic, statistic_steps
from ..core.ledger import Ledger
from ..core.noise import geometric_noise
from ..core.population import PopulationSize, noisy_population, resolve_n
from ..core.rng import Randomness
from ..core.workload import Workload, as_workload
from ..publish.nonnegative import nonnegative
from ..publish.release import Release
from ..splits.keyers import cells_and_corners, split_cells_and_corners
from .auto_rules import (
    CELL_SNR_MIN,
    CORNER_SHARE_MIN,
    CORNER_THIN_N_EPS_MIN,
    FEATURE_SIDE,
    FINE_LINE_MAX,
    FINE_MIN,
    FINE_N_EPS_MIN,
    FINE_SPREAD_MIN,
    HEAPED_MIN,
    HEAPED_N_EPS_MIN,
    HYBRID_PLAN_N_EPS,
    LINE_SHARE_MIN,
    LINES_N_EPS_MAX,
    N_EPS_MIN,
    NNLS_STOP_SDS,
    QUAD_N_EPS_MIN,
    ROUGH_LINE_MAX,
    ROUGH_MIN,
    ROUGH_SNR_MIN,
    RULES,
    SMALL_SIDE,
    SPREAD_MIN,
    THIN_N_EPS_MIN,
    THIN_SIDE,
    THIN_SPREAD_MIN,
    Facts,
    Rule,
    reads_heaped,
    reads_rough,
    reads_spread,
    thin_shape,
)
from .fine_structure import SENSITIVITY, edge_excess, excess_variation
from .registry import accepts_workload, get_builder, parameters
from .spec import WORKLOAD_KINDS, MethodSpec

__all__ = [
    "CELL_SNR_MIN",
    "CORNER_SHARE_MIN",
    "CORNER_THIN_N_EPS_MIN",
    "FEATURE_SIDE",
    "FINE_LINE_MAX",
    "FINE_MIN",
    "FINE_N_EPS_MIN",
    "FINE_SPREAD_MIN",
    "HEAPED_MIN",
    "HEAPED_N_EPS_MIN",
    "HYBRID_PLAN_N_EPS",
    "LINES_N_EPS_MAX",
    "LINE_SHARE_MIN",
    "NNLS_STOP_SDS",
    "N_EPS_MIN",
    "QUAD_N_EPS_MIN",
    "ROUGH_LINE_MAX",
    "ROUGH_MIN",
    "ROUGH_SNR_MIN",
    "RULES",
    "SMALL_SIDE",
    "SPEC",
    "SPREAD_MIN",
    "THIN_N_EPS_MIN",
    "THIN_SIDE",
    "THIN_SPREAD_MIN",
    "Facts",
    "Rule",
    "build_auto",
    "candidates",
    "choose",
    "measure_facts",
]

FEATURE_FRACTION = 0.02    # of epsilon, for the noisy facts (N, occupied cells, largest corner cell)
CELL_FACTS = 2             # occupied cells and the largest corner cell share what N leaves of the slice
WORKLOAD_N_SHARE = 0.25    # given a workload N takes this part of its half of the slice, the rest going to the
                           # pick (the strategy does not read N; the rules read it against bounds only)
LINE_SCALES = 5.0          # the line fact's lower bound: five noise scales below the noisy count
MEASURED = "What auto measured"   # how the release's note on its facts starts
FINE_MARGIN = 0.01         # the fine fact's epsilon need put its three-scale margin no lower than this share of N


def candidates() -> dict[str, tuple[str, dict]]:
    """The plan's picks: label -> (method, build options), as auto builds them."""
    return {r.label: (r.method, r.options()) for r in RULES}


def choose(facts: Facts) -> Rule:
    """The first rule of ``RULES`` whose condition holds (the last always does)."""
    return next(r for r in RULES if r.applies(facts))


def uniform_occupancy(n: float, cells: int) -> float:
    """Expected occupied cells when n points fall independently and uniformly into ``cells`` cells."""
    return cells * -math.expm1(-max(n, 0.0) / cells)


def noisy_n(n_true: int, epsilon: float, rnd: Randomness, ledger: Ledger,
            n_public: int | None) -> PopulationSize:
    """N for the rule (and for the chosen method): declared public, or a noisy count with ``epsilon``."""
    if n_public is not None:
        return resolve_n(n_true, epsilon, rnd, ledger, n_public)
    return noisy_population(n_true, epsilon, rnd, ledger, "auto feature: N",
                            "noisy total count for the method choice (and the chosen method's sizes, if it needs N)",
                            f"estimated by auto with epsilon {epsilon:g}")


def _noisy_fact(value: int, epsilon: float, rnd: Randomness, ledger: Ledger, what: str, note: str) -> int:
    """One sensitivity-1 fact with geometric noise, recorded as "auto feature: <what>"."""
    ledger.spend(f"auto feature: {what}", epsilon, "geometric", nodes=1, note=f"{note} (sensitivity 1)")
    return value + int(geometric_noise(rnd.rng, 1, epsilon)[0])


def _statistic_floor(value: float, sensitivity: float, epsilon: float, n: float, rnd: Randomness, ledger: Ledger,
                     what: str, note: str) -> float:
    """A real-valued fact rounded to the public lattice of 2^-6 and given two-sided geometric noise in those steps
    (:func:`psdviz.core.lattice.noisy_statistic`: no float carries the noise), recorded as "auto feature:
    <what>" with its sensitivity in steps, released as (noisy value - three noise scales) / ``n``: a lower bound
    of its share of N."""
    scale = statistic_steps(sensitivity) / 2 ** REAL_BITS      # the sensitivity the noise is drawn for
    ledger.spend(f"auto feature: {what}", epsilon, "geometric", nodes=1, sensitivity=scale,
                 note=f"{note} (sensitivity {sensitivity:g}); rounded to steps of 2^-{REAL_BITS}, noise for {scale:g}")
    noisy = noisy_statistic(value, sensitivity, epsilon, rnd.rng)
    return (noisy - 3 * scale / epsilon) / n


def feature_counts(ps: PointSet, side: int) -> tuple[np.ndarray, np.ndarray]:
    """One pass: the counts of a public side x side grid and of the four corner cells of the release's
    own grid (its resolution: the data's declared precision), which lie inside the coarse corner cells."""
    return split_cells_and_corners(ps.counts(cells_and_corners(ps.grid.size, side), side * side + 4), side)


def share_bound(noisy: int, epsilon: float, n: float, scales: float = 3.0) -> float:
    """(noisy count - ``scales`` noise scales) / n: a lower bound of a cell's share of n, so that noise alone
    rarely claims an atom (three scales: about 2.5 % of the time; the line fact takes five, 0.3 %)."""
    return max(noisy - scales / epsilon, 0.0) / n


def coarse_corners(counts: np.ndarray, side: int) -> np.ndarray:
    """The four corner counts of the side x side grid (row-major: the corners are the same four entries
    whichever axis runs fastest)."""
    return counts[[0, side - 1, side * (side - 1), side * side - 1]]


def measure_facts(ps: PointSet, epsilon: float, rnd: Randomness, ledger: Ledger, n_public: int | None,
                  workload: tuple[float, float, np.ndarray, int] | None = None
                  ) -> tuple[Facts, PopulationSize | None]:
    """One pass (:func:`feature_counts`), one to seven noisy facts, all in ``ledger``, bought in the order the
    rows read them; when a workload row applies, the facts only later rows read are not bought (NaN; N too, then
    None). Given a workload of small queries (public: :func:`workload_cells`), the points in the cells they touch
    come first, with half a cell fact's epsilon (the small-queries row reads nothing else). Then N (half the
    slice, a quarter of that given a workload, or public); given small or thin queries at N eps in [10^4, 10^5)
    the facts of the row for structure finer than the leaves (:func:`buy_rough`); each cell fact gets half of
    what N's half leaves: the occupied cells from N eps = 10^4 (half of that after the density; below, the spread
    is NaN and its share goes to the corner facts), the corner cell (as much again for the coarse corner on grids
    finer than 256). Given long thin queries from N eps = 10^5, the excess variation across them
    (:func:`fine_fact`), and below 10^6, where it reaches 0.15 of N over spread data, the fullest line of cells;
    given them over a corner cell at N eps in [5 x 10^3, 1.5 x 10^5), the excess variation along the edges
    (:func:`edge_fact`); and below N eps = 10^5 when neither corner row applies the fullest row or column of cells
    (bought once); each with at most a cell fact's epsilon beyond the slice."""
    eps_f = FEATURE_FRACTION * epsilon
    side = min(FEATURE_SIDE, ps.grid.size)
    counts, corners = feature_counts(ps, side)
    eps_cells = (eps_f - (eps_f / 2 if n_public is None else 0.0)) / CELL_FACTS   # what N leaves of the slice
    side_w, thin = (math.nan, math.nan) if workload is None else (workload[0], workload[1])
    small = workload is not None and side_w <= SMALL_SIDE   # only the small-queries row reads its fact
    density = math.nan
    if workload is not None and small:                      # that row reads nothing else: it is read first
        density = density_fact(counts, workload[2], side, eps_cells / 2, rnd, ledger)
        early = Facts(float(epsilon), int(ps.grid.bits), math.nan, corner_share=math.nan,
                      coarse_corner_share=math.nan, workload_side=side_w, workload_thin=thin, workload_density=density)
        if workload_row_applies(early):
            return early, None
    eps_n = eps_f / 2 * (1.0 if workload is None else WORKLOAD_N_SHARE)   # the rows read N against bounds only
    pop = noisy_n(int(counts.sum()), eps_n, rnd, ledger, n_public)
    facts = Facts(float(epsilon), int(ps.grid.bits), pop.value, corner_share=math.nan, coarse_corner_share=math.nan,
                  workload_side=side_w, workload_thin=thin, workload_density=density)
    shop = Shop(ps, counts, corners, counts.reshape(side, side), eps_cells, eps_cells / 2 if small else eps_cells,
                None if workload is None else workload[3], rnd, ledger)
    for buy in (buy_rough, buy_spread, buy_fine, buy_corners, buy_edges, buy_line):   # the rough row reads no spread
        if workload_row_applies(facts):
            return facts, pop
        facts = buy(facts, shop)
    return facts, pop


@dataclass
class Shop:
    """What the purchases after N share: the feature pass (grid rows y, columns x), the grid axis the workload's
    queries are thin across (None: no workload), a cell fact's epsilon and the spread's, the noise and the ledger;
    the fullest line's noisy count once bought."""

    ps: PointSet
    counts: np.ndarray
    corners: np.ndarray
    grid: np.ndarray
    eps_cells: float
    eps_spread: float                   # the density, when bought, took the other half
    across: int | None
    rnd: Randomness
    ledger: Ledger
    line_noisy: int | None = None

    def fullest(self) -> int:
        return int(max(self.grid.sum(axis=0).max(), self.grid.sum(axis=1).max()))

    def line(self) -> int:
        """The fullest line's noisy count (:func:`line_fact`), bought the first time a row asks for it and reused
        after: the rows that read it (rough, middle fine, lines) share one ledger line."""
        if self.line_noisy is None:
            self.line_noisy = line_fact(self.fullest(), self.grid.shape[0], self.eps_cells, self.rnd, self.ledger)
        return self.line_noisy

    def line_ceiling(self, n: float) -> float:
        """The fullest line's share of ``n`` read as an upper bound, three noise scales above its noisy count."""
        return (self.line() + 3 / self.eps_cells) / n


def density_fact(counts: np.ndarray, mask: np.ndarray, side: int, epsilon: float, rnd: Randomness,
                 ledger: Ledger) -> float:
    """The noisy points in the cells the workload's queries touch, per such cell (sensitivity 1)."""
    inside = _noisy_fact(int(counts[mask].sum()), epsilon, rnd, ledger, "points in the workload's cells",
                         f"points in the cells of the public {side} x {side} grid the workload's queries touch")
    return max(inside, 0) / max(int(mask.sum()), 1)


def buy_spread(facts: Facts, shop: Shop) -> Facts:
    """The occupied cells, from N eps = 10^4 (the only rows that read the spread start there)."""
    if not reads_spread(facts.n, facts.epsilon):
        return facts
    side = shop.grid.shape[0]
    occupied = _noisy_fact(int((shop.counts > 0).sum()), shop.eps_spread, shop.rnd, shop.ledger, "occupied cells",
                           f"cells of a public {side} x {side} grid holding at least one point")
    even = max(uniform_occupancy(facts.n, side * side), 1.0)
    return dataclasses.replace(facts, spread=max(occupied, 0) / even,
                               spread_floor=share_bound(occupied, shop.eps_spread, even))


def buy_fine(facts: Facts, shop: Shop) -> Facts:
    """The excess variation across long thin queries over spread data (the spread's lower bound at least
    ``FINE_SPREAD_MIN``, which both fine rows read), from N eps = 10^5; below 10^6, where its lower bound reaches
    ``FINE_MIN``, the fullest line of cells, read as an upper bound three noise scales above (the middle fine row
    reads it; bought once, kept for the lines row)."""
    n = max(facts.n, 1.0)
    if (shop.across is None or not thin_shape(facts.workload_side, facts.workload_thin)
            or n * facts.epsilon < QUAD_N_EPS_MIN or not facts.spread_floor >= FINE_SPREAD_MIN):
        return facts
    facts = dataclasses.replace(facts, fine_floor=fine_fact(shop.grid, (shop.across,), shop.eps_cells, n, shop.rnd,
                                                            shop.ledger))
    if n * facts.epsilon >= FINE_N_EPS_MIN or not facts.fine_floor >= FINE_MIN:
        return facts
    return dataclasses.replace(facts, line_ceiling=shop.line_ceiling(n))


def buy_corners(facts: Facts, shop: Shop) -> Facts:
    """The corner facts, with the spread's share when the spread was not bought."""
    n_corner_facts = 1 + (shop.ps.grid.size > shop.grid.shape[0])
    eps = (shop.eps_cells if not math.isnan(facts.spread)
           else shop.eps_cells * (1 + (shop.eps_spread / shop.eps_cells) / n_corner_facts))
    return with_corners(facts, corner_facts(shop.ps, shop.counts, shop.corners, shop.grid.shape[0], eps,
                                            max(facts.n, 1.0), shop.rnd, shop.ledger))


def buy_edges(facts: Facts, shop: Shop) -> Facts:
    """The excess variation along the edges through a corner, where the row for heaped lines can apply."""
    if not reads_heaped(facts):
        return facts
    return dataclasses.replace(facts, edge_floor=edge_fact(shop.grid, shop.eps_cells, max(facts.n, 1.0), shop.rnd,
                                                           shop.ledger))


def buy_line(facts: Facts, shop: Shop) -> Facts:
    """The fullest row or column of cells below N eps = 10^5 when neither corner row applies (the lines row reads
    it; bought once: the rough row's count is reused)."""
    n = max(facts.n, 1.0)
    if n * facts.epsilon >= LINES_N_EPS_MAX or max(facts.corner_share, facts.coarse_corner_share) >= CORNER_SHARE_MIN:
        return facts
    return dataclasses.replace(facts, line_share=share_bound(shop.line(), shop.eps_cells, n, LINE_SCALES))


def with_corners(facts: Facts, shares: tuple[float, float]) -> Facts:
    """The facts with the corner shares (on the release's grid, on the 256 x 256 grid) filled in."""
    return dataclasses.replace(facts, corner_share=shares[0], coarse_corner_share=shares[1])


def fine_epsilon(epsilon: float, axes: int, n: float) -> float:
    """The fine fact's epsilon: a cell fact's, or less where that much already puts its three-scale margin
    (3 noise scales for sensitivity 2 ``axes`` on its lattice) under ``FINE_MARGIN`` of N: the rows read it against
    bounds of 0.15 and 0.6 of N, so more precision buys nothing and the rest goes to the pick."""
    return min(epsilon, 3 * statistic_steps(SENSITIVITY * axes) / 2 ** REAL_BITS / (FINE_MARGIN * n))


def line_fact(fullest: int, side: int, epsilon: float, rnd: Randomness, ledger: Ledger) -> int:
    """The noisy count of the fullest row or column of cells of the public side x side grid (sensitivity 1)."""
    return _noisy_fact(fullest, epsilon, rnd, ledger, "fullest line of cells",
                       f"the largest count of a row or column of the public {side} x {side} grid "
                       "(a point lies in one row and one column: the largest moves by at most 1)")


def buy_rough(facts: Facts, shop: Shop) -> Facts:
    """The facts the row for structure finer than the leaves reads, where it can apply (:func:`reads_rough`): the
    excess variation (:func:`fine_fact`) across the side long thin queries are narrow across or both sides of small
    ones, then, only when it reaches ``ROUGH_MIN``, the fullest line of cells, read as an upper bound three noise
    scales above (its noisy count is kept for the lines row to reuse); a cell fact's epsilon each at most."""
    if shop.across is None or not reads_rough(facts):
        return facts
    n = max(facts.n, 1.0)
    axes = (shop.across,) if thin_shape(facts.workload_side, facts.workload_thin) else (0, 1)
    facts = dataclasses.replace(facts, fine_floor=fine_fact(shop.grid, axes, shop.eps_cells, n, shop.rnd,
                                                            shop.ledger))
    if facts.fine_floor < ROUGH_MIN:
        return facts
    return dataclasses.replace(facts, line_ceiling=shop.line_ceiling(n))


def workload_row_applies(facts: Facts) -> bool:
    """Whether a workload row (the rows that read the workload, read first) applies to the facts bought so far:
    then no later row is read and the facts only they read are not bought."""
    return any(r.applies(facts) for r in RULES if r.workload_row)


def corner_facts(ps: PointSet, counts: np.ndarray, corners: np.ndarray, side: int, epsilon: float, n: float,
                 rnd: Randomness, ledger: Ledger) -> tuple[float, float]:
    """The corner share on the release's grid and, on grids finer than ``side``, on the side x side grid (else
    the same value): lower bounds three noise scales below the noisy counts, ``epsilon`` each."""
    corner = _noisy_fact(int(corners.max()), epsilon, rnd, ledger, "largest corner cell",
                         f"the largest count of the four corner cells of the resolution-{ps.grid.bits} grid "
                         f"(one position: both coordinates at an extreme)")
    fine = share_bound(corner, epsilon, n)
    if ps.grid.size <= side:
        return fine, fine
    noisy = _noisy_fact(int(coarse_corners(counts, side).max()), epsilon, rnd, ledger, "largest coarse corner cell",
                        f"the largest count of the four corner cells of the public {side} x {side} grid")
    return fine, share_bound(noisy, epsilon, n)


def edge_fact(grid: np.ndarray, epsilon: float, n: float, rnd: Randomness, ledger: Ledger) -> float:
    """The excess variation along the edges through a corner (:func:`.fine_structure.edge_excess`: the largest of
    the four corners', sensitivity 2) with geometric noise on its lattice (:func:`_statistic_floor`), less three
    noise scales, over ``n``: a lower bound of its share of N."""
    return _statistic_floor(edge_excess(grid), SENSITIVITY, epsilon, n, rnd, ledger, "heaped edges through a corner",
                          f"excess variation between neighbouring cells along the two edges through a corner of the "
                          f"public {grid.shape[0]} x {grid.shape[1]} grid, the largest of the four corners'")


def fine_fact(grid: np.ndarray, axes: tuple[int, ...], epsilon: float, n: float, rnd: Randomness,
              ledger: Ledger) -> float:
    """The excess variation across the queries (grid rows [y, x]; axis 0: pairs of rows, the queries thin in y),
    summed over ``axes`` (one for long thin queries, both for small ones), with geometric noise on its lattice for
    sensitivity 2 len(axes) (2 an axis: a point lies in one pair on each, :mod:`.fine_structure`), eps
    :func:`fine_epsilon` of a cell fact's ``epsilon``, less three noise scales, over ``n``: a lower bound of its
    share of N."""
    sensitivity = SENSITIVITY * len(axes)
    epsilon = fine_epsilon(epsilon, len(axes), n)
    sides = "the workload's thin side" if len(axes) == 1 else "both sides of the workload's small queries, summed"
    exact = sum(excess_variation(grid, axis) for axis in axes)
    return _statistic_floor(exact, sensitivity, epsilon, n, rnd, ledger, "fine structure across the queries",
                          f"excess variation between neighbouring rows of cells across {sides}, on the public "
                          f"{grid.shape[0]} x {grid.shape[1]} grid")


def workload_cells(workload: Workload | None, ps: PointSet,
                   side: int) -> tuple[float, float, np.ndarray, int] | None:
    """The workload's median longer and shorter sides in cells of the public side x side grid, the row-major mask
    of the cells its queries touch (a region layer: its regions' bounding boxes) and the axis of the grid's rows
    [y, x] its queries are thin across (0: their median height is at most their median width); None without a
    workload. Public input only."""
    if workload is None:
        return None
    from ..inference.pidentity import axis_weights
    from .strategy import workload_rectangles
    r = workload_rectangles(as_workload(workload))
    cuts = even_edges(0, ps.grid.size, side)
    wx = axis_weights(r[:, 0], r[:, 2], ps.grid.coord(cuts, 0)) > 0
    wy = axis_weights(r[:, 1], r[:, 3], ps.grid.coord(cuts, 1)) > 0
    mask = (wy.T.astype(np.float64) @ wx.astype(np.float64) > 0).ravel()
    longer = np.maximum(wx.sum(axis=1), wy.sum(axis=1))
    shorter = np.minimum(wx.sum(axis=1), wy.sum(axis=1))
    across = 0 if np.median(wy.sum(axis=1)) <= np.median(wx.sum(axis=1)) else 1
    return float(np.median(longer)), float(np.median(shorter)), mask, across


def workload_unused(rule: Rule, facts: Facts) -> str | None:
    """Why auto's pick does not plan for the workload (None: it does). PrivTree, the lines method and AG measure
    each point once on their leaves or twice on fixed grids and have no plan to move; the hybrid's count levels
    are planned from N eps = ``HYBRID_PLAN_N_EPS`` (noisy or public N), below which planning them raised its error
    (docs/decisions/workload-strategy.md, "The hybrid")."""
    if not accepts_workload(rule.method):
        lead = (f"The workload chose {rule.label} but was not used by it: {rule.label} does not plan"
                if rule.workload_row else f"The workload was not used: auto chose {rule.label}, which does not plan")
        return f"{lead} its measurements for queries (build method='quadtree' or method='strategy' to plan for them)."
    if rule.method == "hybrid" and facts.n_eps < HYBRID_PLAN_N_EPS:
        return (f"The workload was not used: auto chose {rule.label}; below N x epsilon = {HYBRID_PLAN_N_EPS:g} "
                "planning its levels for the queries raises its error (build method='hybrid' with the workload to "
                "plan them anyway).")
    return None


def facts_note(facts: Facts, pop: PopulationSize | None, cost: float, rule: Rule) -> str:
    """What auto measured, what it cost and the rule that fired, in words (the release's second note)."""
    size = (f"N {pop.source}: about {facts.n:,.0f} points" if pop is not None else
            "N was not measured, as the rule for small queries reads only the points in their cells")
    said = [size]
    if pop is not None:
        said.append("how evenly they fill the map was not measured, as no rule reads it at this N and epsilon"
                    if math.isnan(facts.spread) else f"they fill {facts.spread:.0%} of the cells an even spread would")
    if not math.isnan(facts.workload_density):
        said.append(f"about {facts.workload_density:,.0f} points per cell where the workload's queries lie")
    if not math.isnan(facts.fine_floor):
        said.append(f"neighbouring rows of cells across the queries differ beyond chance for at least "
                    f"{max(facts.fine_floor, 0.0):.0%} of them" if facts.thin else
                    f"neighbouring rows and columns of cells differ beyond chance by at least "
                    f"{max(facts.fine_floor, 0.0):.2f} N (both sides summed)")
    if not math.isnan(facts.line_ceiling):
        said.append(f"no row or column of cells holds more than {facts.line_ceiling:.0%} of them")
    if not math.isnan(facts.edge_floor):
        said.append(f"at least {max(facts.edge_floor, 0.0):.0%} of them sit on some cells along the edges "
                    "through a corner and not on their neighbours")
    said.append("the corner cells were not measured, as a rule for the workload applied first"
                if math.isnan(facts.corner_share) else
                "no corner cell holds a noticeable share of them" if facts.coarse_corner_share < 0.01 else
                f"one corner cell holds at least {facts.corner_share:.0%} of them"
                if facts.corner_share >= facts.coarse_corner_share else
                f"one corner cell of the {FEATURE_SIDE} x {FEATURE_SIDE} grid holds at least "
                f"{facts.coarse_corner_share:.0%} of them")
    return f"{MEASURED}, for epsilon {cost:g}: {'; '.join(said)}. Rule: {rule.when}."


def measured_note(notes: tuple[str, ...]) -> str:
    """A release's note on what auto measured, what it cost and the rule that fired (older files: their first
    note, which said it)."""
    return next((n for n in notes if n.startswith(MEASURED)), notes[0] if notes else "")


def build_auto(ps: PointSet, domain: Domain, epsilon: float, rnd: Randomness, *,
               n_public: int | None = None, workload: Workload | None = None) -> Release:
    """Buy the facts, build the method the rule picks with its defaults and the rest of epsilon (and the
    workload, when the pick plans for one)."""
    ledger = Ledger(epsilon)
    facts, pop = measure_facts(ps, epsilon, rnd, ledger, n_public,
                               workload_cells(workload, ps, min(FEATURE_SIDE, ps.grid.size)))
    cost = ledger.total()
    rule = choose(facts)
    kw: dict[str, object] = {"n_public": pop} if pop is not None and "n_public" in parameters(rule.method) else {}
    kw.update({k: v for k, v in rule.options().items() if k != "nonnegative"})
    unused = None if workload is None else workload_unused(rule, facts)
    if workload is not None and unused is None:
        kw["workload"] = workload
    rel = get_builder(rule.method)(ps, domain, epsilon - cost, rnd, **kw)
    if rule.nonnegative:
        rel = nonnegative(rel)
    split_eps = rel.tree.split_eps.copy()
    split_eps[0] += cost               # the facts are spent once, on every root-to-leaf path
    params = {"chosen": rule.method, "nonnegative": rule.nonnegative, "why": rule.plain, "rule": rule.when,
              "choice_epsilon": cost, "spread": _rounded(facts.spread), "corner_share": _rounded(facts.corner_share),
              "coarse_corner_share": _rounded(facts.coarse_corner_share), **rel.params}
    if not math.isnan(facts.workload_density):
        params["cell_snr"] = round(facts.cell_snr, 4)
    if not math.isnan(facts.fine_floor):
        params["fine_structure"] = round(facts.fine_floor, 4)
    if not math.isnan(facts.line_ceiling):
        params["line_ceiling"] = round(facts.line_ceiling, 4)
    if not math.isnan(facts.edge_floor):
        params["heaped_edges"] = round(facts.edge_floor, 4)
    if unused:
        params.update(as_workload(workload).record())
    said = (f"auto chose {rule.label}: {rule.plain}", facts_note(facts, pop, cost, rule))
    notes = (*said, *rel.notes) if unused is None else (*said, unused, *rel.notes)
    return rel.evolve(method="auto", params=params, notes=notes, ledger=ledger.then(rel.ledger),
                      tree=dataclasses.replace(rel.tree, split_eps=split_eps))


def _rounded(value: float) -> float | None:
    """A fact for the release's parameters: None when it was not bought."""
    return None if math.isnan(value) else round(value, 4)


# what this module declares (psdviz/methods/spec.py); n_public is the shared vocabulary's
SPEC = MethodSpec("auto", build_auto, workloads=WORKLOAD_KINDS, rank=0)
