"""``method="auto"``: the recommended private method, chosen by a rule learned offline (issue 16.2).

The rule reads epsilon, the public grid, and three noisy facts bought with a stated slice of epsilon
(``FEATURE_FRACTION`` = 2 %, recorded in the ledger), all from one pass that counts a public 256 x 256
grid (coarser if the resolution is coarser): N (public if the user declares it, else a noisy count with
half the slice); *spread*, the noisy number of occupied cells divided by the number a uniform spread of
N points would occupy, C (1 - exp(-N / C)); and *top share*, a lower bound of the largest cell's share
of N: (noisy largest count - 3 / eps_cell) / N, three noise scales below the noisy value, so that noise
alone rarely claims an atom. The two cell facts get half of the rest each. Each has sensitivity 1 (one
point changes N, the occupied count and the largest count by at most 1), geometric noise. The choice
depends only on these released values, so it is post-processing; the chosen method gets the rest of
epsilon and, when it needs N (AG), reuses the noisy N instead of buying its own.

Evidence (``benchmarks/bench_dpbench.py`` protocol: resolution 8, the 200 DPBench queries, MRE):

* PrivTree is the minimax choice without features: psdviz's best method in 8 of the 12 DPBench cells
  (BJ-CABS-E, SF-CABS-S, GOWALLA, STROKE at both epsilons) and within 1.35x of AG on the synthetic set
  (5 runs, docs/reproduction/dpbench.md); only ADULT-2D, the file with an atom, has a far better method
  (kd-privtree, 6-10x), which the first row catches. AG as a single rule is up to 5.6x behind (SF-CABS-S
  at 1).
* kd-privtree on data with an atom. In ``benchmarks/bench_auto_rule.py``'s zero-inflated family (an
  atom cell holding 30-87 % of N and lines through it, like ADULT-2D) it is best of the four candidates
  in 11 of the row's 24 cells and beats PrivTree in 14 (median kd-privtree / PrivTree 0.88; 0.09-0.6x
  with the atom in the corner, 1.2-1.8x behind with an interior atom), AG in 19, the kd-tree in 17.
  Every other set, mixtures and all five DPBench files included, has its largest cell below 0.08 of
  N (SF-CABS-S 0.073, GOWALLA 0.059, the rest < 0.01), the atom family at least 0.30; 0.2 sits in
  that gap. On ADULT-2D (0.87) auto had 1.59 / 0.21 with PrivTree (5 runs) and has 1.00 / 0.018 with
  kd-privtree (10 runs of bench_dpbench, PrivTree itself 1.62 / 0.18; at 0.1 heavy-tailed: median 0.30,
  one run in ten at 7.2).
* AG beats PrivTree on spread data. ``benchmarks/bench_auto_rule.py`` regenerates the evidence
  (docs/reproduction/auto_rule.md): uniform; gaussian mixtures k = 3 / 5 / 10, spreads .02-.3; mixtures
  with outliers; zero-inflated pairs (an atom cell and lines through it, like ADULT-2D); N = 3k, 30k,
  300k (2M with --large); both epsilons; 3 runs; rows of the rule on the exact facts:

  ======================================  =====  ==============================================  ===========
  rule row                                cells  row's method against the others (median ratio)  auto / best
  ======================================  =====  ==============================================  ===========
  largest cell >= 0.2 N: kd-privtree      24     PrivTree 0.88, AG 0.60, kd-tree 0.64            median 1.41
  spread >= 0.6 and N eps >= 10^4: AG     7      PrivTree 0.88 (AG beats it in all 7)            median 1.01
  any other data: PrivTree                35     AG 0.99, kd-tree 0.22, kd-privtree 0.48         median 1.07
  ======================================  =====  ==============================================  ===========

  (auto / best is high in the atom row where the atom holds 30 % of a small N: the lower bound then
  misses the atom at N eps = 300-3,000 and auto keeps PrivTree, up to 4.9x behind kd-privtree.)

  (The first run, with N = 2M added and no zero-inflated family: AG won 14 of 15 cells of the AG row,
  PrivTree 19 of 24 with spread < 0.6.) The kd-tree (continuous medians since session 9) is best in 4
  of the 66 cells, all in the atom row, where kd-privtree is best in 11, so no row sends data to it.
  The DPBench files sit far from the threshold: BJ-CABS-E 0.19, STROKE 0.15, GOWALLA 0.05,
  SF-CABS-S 0.03, ADULT-2D 0.004 (PrivTree's files) against synthetic1M 0.78 (AG's: PrivTree 1.11x /
  1.35x behind). 0.6 is the middle of the gap between the families' classes, not a value fitted to
  one file; N eps >= 10^4 keeps small, noisy releases (N eps = 3,000) on PrivTree, where the two tie
  and the feature's noise (scale 4 / (0.02 eps)) is a sizeable share of the count.
* With the rule (bench_dpbench, 10 runs; docs/reproduction/dpbench.md), auto against the best peer:
  BJ-CABS-E 0.86x at 0.1, SF-CABS-S 0.56x / 0.42x, STROKE 0.96x / 0.96x, synthetic1M 1.19x / 0.96x (was
  1.34x / 1.29x with PrivTree), ADULT-2D 5.6x / 0.12x (kd-privtree, heavy-tailed at 0.1; was 8.9x / 1.33x
  with PrivTree).
* Cost of the slice: PrivTree with 98 % of epsilon is about 2 % worse where it is chosen; AG, with N
  already bought, spends 98 % on its counts instead of its default 95 %.

The release records the facts, the rule that fired, and what they cost (three ledger lines "auto
feature: ..."), and keeps method = "auto". Passes over the data: one for the facts, then those of the
chosen method. A rule is one row of ``RULES``, read top to bottom, first match wins.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from ..core.domain import Domain, PointSet
from ..core.ledger import Ledger
from ..core.noise import geometric_noise
from ..core.population import PopulationSize, noisy_population, resolve_n
from ..core.rng import Randomness
from ..publish.release import Release
from ..splits.keyers import even_cells

FEATURE_FRACTION = 0.02    # of epsilon, for the noisy facts (N, occupied cells, largest cell)
FEATURE_SIDE = 256         # cells per axis of the public grid the cell facts are read from
SPREAD_MIN = 0.6
N_EPS_MIN = 1e4
TOP_SHARE_MIN = 0.2


@dataclass(frozen=True)
class Facts:
    """What the rule may read: public values and noisy facts (post-processing of released counts)."""

    epsilon: float
    resolution: int
    n: float          # public N or a noisy count
    spread: float     # noisy occupied cells / cells a uniform spread of n points would occupy
    top_share: float = 0.0   # (noisy largest cell count - 3 noise scales) / n: a lower bound of the atom's share


@dataclass(frozen=True)
class Rule:
    when: str
    applies: Callable[[Facts], bool]
    method: str
    why: str


RULES = (
    Rule(f"largest cell >= {TOP_SHARE_MIN:g} of N", lambda f: f.top_share >= TOP_SHARE_MIN, "kd-privtree",
         "one cell holds a large share of the points (an atom, as in tabular pairs like capital gain x loss), "
         "where kd-privtree cuts the empty space away from the atom and its lines (docs/reproduction/auto_rule.md)"),
    Rule(f"spread >= {SPREAD_MIN:g} and N eps >= {N_EPS_MIN:g}",
         lambda f: f.spread >= SPREAD_MIN and f.n * f.epsilon >= N_EPS_MIN, "ag",
         "the points fill most of the domain (like a smooth mixture), where AG's adaptive grid beat "
         "PrivTree in all 7 synthetic cells of this row (median 1.14x, docs/reproduction/auto_rule.md) and on the "
         "DPBench synthetic set"),
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


def measure_facts(ps: PointSet, epsilon: float, rnd: Randomness, ledger: Ledger,
                  n_public: int | None) -> tuple[Facts, PopulationSize]:
    """One pass (the counts of a public side x side grid), three noisy facts, all in ``ledger``."""
    eps_f = FEATURE_FRACTION * epsilon
    side = min(FEATURE_SIDE, ps.grid.size)
    counts = ps.counts(even_cells(ps.grid.size, side), side * side)
    pop = noisy_n(int(counts.sum()), eps_f / 2, rnd, ledger, n_public)
    eps_cells = (eps_f - pop.epsilon) / 2
    occupied = _noisy_fact(int((counts > 0).sum()), eps_cells, rnd, ledger, "occupied cells",
                           f"cells of a public {side} x {side} grid holding at least one point")
    top = _noisy_fact(int(counts.max(initial=0)), eps_cells, rnd, ledger, "largest cell",
                      f"the largest count of the same {side} x {side} grid")
    n = max(pop.value, 1.0)
    spread = max(occupied, 0) / max(uniform_occupancy(pop.value, side * side), 1.0)
    top_share = max(top - 3.0 / eps_cells, 0.0) / n
    return Facts(float(epsilon), int(ps.grid.bits), pop.value, spread, top_share), pop


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
    rel.ledger.budget = float(epsilon)
    rel.ledger.spends[:0] = ledger.spends
    rel.tree.split_eps[0] += cost      # the facts are spent once, on every root-to-leaf path
    why = (f"auto chose {rule.method} ({rule.when}; N {pop.source}: {facts.n:,.0f}, spread "
           f"{facts.spread:.2f}, largest cell >= {facts.top_share:.2f} of N): {rule.why}; the facts cost epsilon {cost:g}")
    rel.params = {"chosen": rule.method, "why": rule.why, "rule": rule.when, "choice_epsilon": cost,
                  "spread": round(facts.spread, 4), "top_share": round(facts.top_share, 4), **rel.params}
    rel.notes.insert(0, why)
    rel.method = "auto"
    return rel

