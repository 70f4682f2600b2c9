"""``method="auto"``: the recommended private method, chosen by a rule learned offline.

The rule reads epsilon, the public grid, and noisy facts bought with a stated slice of epsilon
(``FEATURE_FRACTION`` = 2 %, recorded in the ledger), all from one pass that counts a public 256 x 256
grid (coarser if the resolution is coarser): N (public if the user declares it, else a noisy count with
half the slice); *spread*, the noisy number of occupied cells divided by the number a uniform spread of
N points would occupy, C (1 - exp(-N / C)); and *corner share*, a lower bound of the share of N in the
fullest of the four corner cells of the release's own grid (one position each at its resolution, the
data's declared precision: both coordinates at an extreme, where zero-inflated pairs put their atom; the
same pass counts them): (noisy count - 3 / eps_cell) / N, three noise scales below the noisy value, so
that noise alone rarely claims an atom. The two cell facts get half of the rest each. Session 12 read the
corners of the 256 x 256 grid instead; that is the same at resolution 8 (every DPBench and lab figure
below) but at finer resolutions it also fired on a dense cluster hugging a corner of a wide public
domain (benchmarks/repro_grids.py's 100x outlier setting: hybrid+NNLS 0.707 / 0.384 against PrivTree's
0.055 / 0.013), which is not an atom (session 13).
Each has sensitivity 1 (one point changes N, the occupied count and the largest corner count by at most
1), geometric noise. The choice depends only on these released values, so it is post-processing; the
chosen method gets the rest of epsilon and, when it needs N (AG, the hybrid tree), reuses the noisy N
instead of buying its own. A row may also ask for non-negative least squares over the chosen method's
released counts (``Rule.nonnegative``; :mod:`psdviz.publish.nonnegative`, post-processing).

Evidence (``benchmarks/bench_dpbench.py`` protocol: resolution 8, the 200 DPBench queries, MRE):

* PrivTree is the minimax choice without features: psdviz's best method in 8 of the 12 DPBench cells
  (BJ-CABS-E, SF-CABS-S, GOWALLA, STROKE at both epsilons) and within 1.45x of AG on the synthetic set;
  only ADULT-2D, the file with an atom, has a far better method.
* The hybrid kd-tree with NNLS for an atom in a corner. ``benchmarks/bench_auto_rule.py``'s
  zero-inflated families (an atom cell holding 30-87 % of N, lines through it, with or without a
  uniform rest; the atom in the corner or inside) show where an atom sits decides the method: with the
  atom in a corner (both attributes at their minimum, where zero-inflated pairs of non-negative values
  put it) hybrid+NNLS is best of the five candidates in 17 of the 32 cells and beats kd-privtree in 20
  (median ratio 0.82), PrivTree in 28 (0.30), the kd-tree in 23 (0.66); its largest wins are on pure
  axes (no point off the lines, as in ADULT-2D: 0.08-0.67x kd-privtree, median 0.21, at N eps >= 3,000). With the atom inside, PrivTree
  beats kd-privtree in 23 of the 24 cells, so those go to the last row (the previous row, "largest cell
  >= 0.2 N -> kd-privtree", owed its wins to corner atoms and is gone). Every other set has no corner
  cell above 0.01 of N (mixtures at most 0.003, the other DPBench files 0, interior atoms 0), the corner
  families at least 0.30; 0.2 sits in that gap. On ADULT-2D (corner share 0.87) auto had 1.00 / 0.018 with
  kd-privtree and has 0.137 / 0.0080 with hybrid+NNLS (10 runs; median 0.013 at 0.1, one run in ten at
  1.1: a chain of falsely split empty nodes in the interior, see docs/accuracy-notes.md).
* AG beats PrivTree on spread data: the row "spread >= 0.6 and N eps >= 10^4" holds 10 lab cells, AG
  best in 8 and ahead of PrivTree in 9 (median 0.81; session 13's AG sizes). The DPBench files sit far from the threshold:
  BJ-CABS-E 0.19, STROKE 0.15, GOWALLA 0.05, SF-CABS-S 0.03, ADULT-2D 0.004 (PrivTree's files) against
  synthetic1M 0.78 (AG's: PrivTree 1.24x / 1.45x behind). 0.6 is the middle of the gap between the
  families' classes, not a value fitted to one file; N eps >= 10^4 keeps small, noisy releases on
  PrivTree, where the two tie and the feature's noise is a sizeable share of the count.
* Rows of the rule on the exact facts (``benchmarks/bench_auto_rule.py``, 10 runs, N = 3k, 10k, 30k,
  300k, both epsilons; docs/reproduction/auto_rule.md):

  ======================================  =====  ==============================================  ===========
  rule row                                cells  row's method against the others (median ratio)  auto / best
  ======================================  =====  ==============================================  ===========
  a corner cell >= 0.2 N: hybrid+NNLS     32     PrivTree 0.30, AG 0.25, kd-tree 0.66,            median 1.34
                                                 kd-privtree 0.82
  spread >= 0.6 and N eps >= 10^4: AG     10     PrivTree 0.81 (AG ahead in 9)                   median 1.03
  any other data: PrivTree                70     AG 0.89, kd-tree 0.47, kd-privtree 0.54         median 1.06
  ======================================  =====  ==============================================  ===========

  (auto / best is high in the corner row where the noisy lower bound misses the corner, N eps = 300-1,000:
  the bound is the share less 600 / (N eps), so auto keeps PrivTree there, up to 41x behind hybrid+NNLS
  on a pure-axes corner at N eps = 1,000.)
* With the rule (bench_dpbench, 10 runs; docs/reproduction/dpbench.md), auto against the best peer:
  BJ-CABS-E 0.86x at 0.1, SF-CABS-S 0.56x / 0.42x, STROKE 0.96x / 0.96x, synthetic1M 1.03x / 0.80x,
  ADULT-2D 0.77x / 0.05x (was 5.6x / 0.12x with kd-privtree).
* Cost of the slice: PrivTree with 98 % of epsilon is about 2 % worse where it is chosen; AG, with N
  already bought, spends 98 % on its counts instead of its default 95 %.

The release records the facts, the rule that fired, and what they cost (three ledger lines "auto
feature: ..."), and keeps method = "auto"; ``params["chosen"]`` names the method and
``params["nonnegative"]`` says whether NNLS was applied. Passes over the data: one for the facts, then
those of the chosen method. A rule is one row of ``RULES``, read top to bottom, first match wins.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..core.domain import Domain, PointSet
from ..core.ledger import Ledger
from ..core.noise import geometric_noise
from ..core.population import PopulationSize, noisy_population, resolve_n
from ..core.rng import Randomness
from ..publish.nonnegative import nonnegative
from ..publish.release import Release
from ..splits.keyers import cells_and_corners, split_cells_and_corners

FEATURE_FRACTION = 0.02    # of epsilon, for the noisy facts (N, occupied cells, largest corner cell)
FEATURE_SIDE = 256         # cells per axis of the public grid the cell facts are read from
CELL_FACTS = 2             # occupied cells and the largest corner cell share what N leaves of the slice
SPREAD_MIN = 0.6
N_EPS_MIN = 1e4
CORNER_SHARE_MIN = 0.2


@dataclass(frozen=True)
class Facts:
    """What the rule may read: public values and noisy facts (post-processing of released counts)."""

    epsilon: float
    resolution: int
    n: float          # public N or a noisy count
    spread: float     # noisy occupied cells / cells a uniform spread of n points would occupy
    corner_share: float = 0.0   # (noisy largest corner cell - 3 noise scales) / n: a lower bound of its share


@dataclass(frozen=True)
class Rule:
    when: str
    applies: Callable[[Facts], bool]
    method: str
    why: str
    nonnegative: bool = False   # apply NNLS over the chosen method's released counts (post-processing)

    @property
    def label(self) -> str:
        return self.method + ("+nnls" if self.nonnegative else "")


RULES = (
    Rule(f"a corner cell >= {CORNER_SHARE_MIN:g} of N", lambda f: f.corner_share >= CORNER_SHARE_MIN, "hybrid",
         "an atom in a corner of the domain (both attributes at their minimum, where zero-inflated pairs of "
         "non-negative values such as capital gain x loss put it): the hybrid kd-tree's quadtree levels isolate "
         "the corner and its two edges, and non-negative least squares over its counts removes the noise spread "
         "over the empty rest (docs/reproduction/auto_rule.md)", nonnegative=True),
    Rule(f"spread >= {SPREAD_MIN:g} and N eps >= {N_EPS_MIN:g}",
         lambda f: f.spread >= SPREAD_MIN and f.n * f.epsilon >= N_EPS_MIN, "ag",
         "the points fill most of the domain (like a smooth mixture), where AG's adaptive grid is ahead of "
         "PrivTree in 9 of the 10 synthetic cells of this row (median ratio 0.81, docs/reproduction/auto_rule.md) "
         "and on the DPBench synthetic set"),
    Rule("any other data", lambda f: True, "privtree",
         "best psdviz method in 8 of 12 DPBench cells (the four files without an atom, both epsilons; "
         "docs/reproduction/dpbench.md); adapts to concentrated data through its own noisy counts"),
)


def choose(facts: Facts) -> Rule:
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


def feature_counts(ps: PointSet, side: int) -> tuple[np.ndarray, np.ndarray]:
    """One pass: the counts of a public side x side grid and of the four corner cells of the release's
    own grid (its resolution: the data's declared precision), which lie inside the coarse corner cells."""
    return split_cells_and_corners(ps.counts(cells_and_corners(ps.grid.size, side), side * side + 4), side)


def share_bound(noisy: int, epsilon: float, n: float) -> float:
    """(noisy count - 3 noise scales) / n: a lower bound of a cell's share of n, so that noise alone
    rarely claims an atom."""
    return max(noisy - 3.0 / epsilon, 0.0) / n


def measure_facts(ps: PointSet, epsilon: float, rnd: Randomness, ledger: Ledger,
                  n_public: int | None) -> tuple[Facts, PopulationSize]:
    """One pass (:func:`feature_counts`), three noisy facts, all in ``ledger``."""
    eps_f = FEATURE_FRACTION * epsilon
    side = min(FEATURE_SIDE, ps.grid.size)
    counts, corners = feature_counts(ps, side)
    pop = noisy_n(int(counts.sum()), eps_f / 2, rnd, ledger, n_public)
    eps_cells = (eps_f - pop.epsilon) / CELL_FACTS
    occupied = _noisy_fact(int((counts > 0).sum()), eps_cells, rnd, ledger, "occupied cells",
                           f"cells of a public {side} x {side} grid holding at least one point")
    corner = _noisy_fact(int(corners.max()), eps_cells, rnd, ledger, "largest corner cell",
                         f"the largest count of the four corner cells of the resolution-{ps.grid.bits} grid "
                         f"(one position: both coordinates at an extreme)")
    n = max(pop.value, 1.0)
    spread = max(occupied, 0) / max(uniform_occupancy(pop.value, side * side), 1.0)
    return Facts(float(epsilon), int(ps.grid.bits), pop.value, spread, share_bound(corner, eps_cells, n)), pop


def build_auto(ps: PointSet, domain: Domain, epsilon: float, rnd: Randomness, *,
               n_public: int | None = None) -> Release:
    """Buy the facts, build the method the rule picks with its defaults and the rest of epsilon."""
    from .registry import get_builder, parameters   # the registry lists this module too

    ledger = Ledger(epsilon)
    facts, pop = measure_facts(ps, epsilon, rnd, ledger, n_public)
    cost = ledger.total()
    rule = choose(facts)
    kw = {"n_public": pop} if "n_public" in parameters(rule.method) else {}
    rel = get_builder(rule.method)(ps, domain, epsilon - cost, rnd, **kw)
    if rule.nonnegative:
        rel = nonnegative(rel)
    rel.ledger.budget = float(epsilon)
    rel.ledger.spends[:0] = ledger.spends
    rel.tree.split_eps[0] += cost      # the facts are spent once, on every root-to-leaf path
    why = (f"auto chose {rule.label} ({rule.when}; N {pop.source}: {facts.n:,.0f}, spread "
           f"{facts.spread:.2f}, largest corner cell >= {facts.corner_share:.2f} of N): {rule.why}; "
           f"the facts cost epsilon {cost:g}")
    rel.params = {"chosen": rule.method, "nonnegative": rule.nonnegative, "why": rule.why, "rule": rule.when,
                  "choice_epsilon": cost, "spread": round(facts.spread, 4),
                  "corner_share": round(facts.corner_share, 4), **rel.params}
    rel.notes.insert(0, why)
    rel.method = "auto"
    return rel

