"""``method="auto"``: the recommended private method, chosen by a rule learned offline (issue 16.2).

The rule may use only what is public or paid for: epsilon, the domain and resolution, and at most a
small stated slice of epsilon for noisy features. It was read from ``benchmarks/bench_dpbench.py``
(five DPBench files at two epsilons and the synthetic 1M set, every psdviz method, 5 runs; table in
docs/reproduction/dpbench.md):

* PrivTree had the lowest mean error of all psdviz methods in 8 of the 12 (dataset, epsilon) cells
  (BJ-CABS-E, SF-CABS-S, GOWALLA, STROKE at both epsilons) and was within 1.43x of the best psdviz
  method in all 12 (ADULT-2D 1.43x / 1.11x behind the h-tree and kd-standard, synthetic1M 1.11x /
  1.35x behind AG; remeasured 2026-11-23 with PrivTree's tree_fraction 0.4 and AG's whole-step
  cells). The runner-up as a single rule, AG, is up to 5.6x behind (SF-CABS-S, epsilon 1: 0.0353
  against 0.0063; before AG's fix 13.7x on GOWALLA). PrivTree is the minimax choice; its structure
  adapts through its own noisy counts.
* The cells it loses are a very sparse real file (32k points in 0.2 % of the cells) and a smooth
  Gaussian mixture; STROKE (19k points, 3.9 % of the cells) sits between them and PrivTree wins it. No
  public value (N, epsilon, N * epsilon) separates these, and a noisy sparsity or smoothness feature
  would pay epsilon on every release for gains of at most 1.4x seen on two cells, so the rule
  spends nothing on features.

* Checked again after AG's whole-step cells (2026-11-23) on synthetic families (uniform and gaussian
  mixtures, 30k and 300k points, resolution 8, DPBench queries, 3 runs) against one candidate paid
  feature, the share of N in the top 16 of a 16 x 16 histogram ("top16"): AG beats PrivTree on spread
  data (top16 0.07-0.47: PrivTree 1.24-2.04x behind) and PrivTree wins on concentrated data (top16
  >= 0.75: AG up to 3.7x behind). But STROKE (top16 0.55, PrivTree 0.82x / 0.88x of AG) and
  synthetic1M (top16 0.66, PrivTree 1.40x / 1.65x of AG) sit in the wrong order, so no top16
  threshold moves a DPBench cell the right way, while the feature would tax every release (a 5 %
  slice). A rule "AG below top16 0.5" would help uniform-like data only; it is not adopted until a
  feature separates STROKE from smooth dense sets.

So the table has one row today; it is a table so that a rule found later (with its evidence) is
one more row, read top to bottom, first match wins. The release records the choice, the reason and
its cost (a zero-epsilon "method choice" line in the ledger), and keeps method = "auto".
Passes over the data: those of the method it picks.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..core.domain import Domain, PointSet
from ..core.ledger import Spend
from ..core.rng import Randomness
from ..publish.release import Release


@dataclass(frozen=True)
class Facts:
    """What the rule may read: public values only (no noisy features are bought today)."""

    epsilon: float
    resolution: int


@dataclass(frozen=True)
class Rule:
    when: str
    applies: Callable[[Facts], bool]
    method: str
    why: str


RULES = (
    Rule("any data", lambda f: True, "privtree",
         "best psdviz method in 8 of 12 DPBench cells and within 1.43x of the best in all 12 "
         "(docs/reproduction/dpbench.md); adapts to the data through its own noisy counts"),
)


def choose(facts: Facts) -> Rule:
    return next(r for r in RULES if r.applies(facts))


def build_auto(ps: PointSet, domain: Domain, epsilon: float, rnd: Randomness) -> Release:
    """Build the method the rule picks, with its defaults and the whole epsilon."""
    from .registry import get_builder   # the registry lists this module too: import at call time

    rule = choose(Facts(epsilon, ps.grid.bits))
    rel = get_builder(rule.method)(ps, domain, epsilon, rnd)
    rel.ledger.spends.insert(0, Spend("method choice", 0.0, "none (public facts only)", nodes=0,
                                      note=f"auto chose {rule.method} ({rule.when}): {rule.why}"))
    rel.params = {"chosen": rule.method, "why": rule.why, "choice_epsilon": 0.0, **rel.params}
    rel.notes.insert(0, f"auto chose {rule.method}: {rule.why}; choosing cost epsilon 0 (public facts only)")
    rel.method = "auto"
    return rel
