"""Hybrid kd-tree (ICDE'12 sections 3.2, 6.2, 8): private-median splits on the first ``switch``
fanout-4 levels, quadtree (midpoint) splits below.

Rule: the median budget is uniform over the data-dependent levels only (section 6.2); midpoint splits
depend only on the node's public region and cost nothing. Defaults: switch = height // 4; height by the
quadtree's rule h = ceil(log4(N eps / 10)), at most the paper's 8, with N public or a noisy count bought
with ``n_fraction`` of epsilon (the root's split cost); pruning during the build
(:mod:`psdviz.methods.early_stop`; ``pruning="after_ols"`` keeps the paper's text).

Privacy: as the kd-tree (:mod:`psdviz.methods.kdtree`): medians of one binary level act on disjoint
nodes, levels compose sequentially with the counts to exactly epsilon.

Given a workload (public queries), the count levels' share of epsilon is split over the depths in proportion
to the cube root of the workload's canonical nodes at each depth of the quadtree of the same height (ICDE'12
section 4.2 given the queries, :mod:`psdviz.methods.workload_budget`, with its floor on every level); the
medians' share is unchanged. The plan is a function of the workload, the domain and the height (public or from
the noisy N), so the privacy argument is the same. Why the quadtree's counts: below the ``switch`` levels the
tree is a quadtree, and the medians' levels are few (docs/decisions/workload-strategy.md, "The hybrid").

Passes over the data: one per median level (2 * switch), one for the leaf counts. The sweeps behind
the defaults: docs/decisions/hybrid-defaults.md.
"""
from __future__ import annotations

from ..core.budget import STOP_SDS, Plan
from ..core.domain import Domain, PointSet
from ..core.ledger import Ledger
from ..core.params import Share
from ..core.population import DEFAULT_N_FRACTION
from ..core.rng import Randomness
from ..core.workload import Workload, as_workload
from ..publish.release import Release
from ..splits.medians import MedianMethod
from .early_stop import Pruning
from .kdtree import DEFAULT_COUNT_FRACTION, DEFAULT_HEIGHT, DEFAULT_PRUNE, build_private_kd
from .kdtree import MAX_HEIGHT as KD_MAX_HEIGHT
from .quadtree import height_from_n
from .spec import WORKLOAD_KINDS, MethodSpec, doc


def default_switch(height) -> int:
    """The switch level used when ``switch`` is None: height // 4 (at least 1), see the module docstring."""
    return max(1, int(height) // 4) if isinstance(height, (int, float)) else 1


def suggested_switch(chosen: dict) -> int | None:
    """The switch a form prefills once the user turns it on: height // 4 when the height is set; None when the
    height is derived from N (the data)."""
    height = chosen.get("height")
    return default_switch(height) if height is not None else None


def build_hybrid(ps: PointSet, domain: Domain, epsilon: float, rnd: Randomness, *, height: int | None = None,
                 switch: int | None = None, count_fraction: Share = DEFAULT_COUNT_FRACTION,
                 budget: Plan = "geometric", median: MedianMethod = "em", sample_rate: float = 1.0, delta: float = 1e-5,
                 postprocess: bool = True, prune: float | None = DEFAULT_PRUNE, n_public: int | None = None,
                 n_fraction: Share = DEFAULT_N_FRACTION, pruning: Pruning = "build",
                 split_grid: int | None = None, stop_sds: float = STOP_SDS,
                 workload: Workload | None = None) -> Release:
    """``height`` None: min(8, ceil(log4(N eps / 10))) from a public or noisy N (module docstring);
    ``switch`` = number of fanout-4 levels split by private medians (default height // 4);
    ``split_grid``: medians and midpoints on that coarser public grid first (:mod:`psdviz.splits.coarse_grid`);
    ``stop_sds``: the floor of the build's stop in noise sds (:mod:`psdviz.methods.early_stop`);
    ``workload`` (public rectangles or a region layer, checked by ``pv.build``): the count levels' plan for those
    queries in place of the geometric plan (module docstring)."""
    ledger, eps_n, n_note = Ledger(epsilon), 0.0, None
    if height is None:
        height, eps_n, n_note = height_from_n(ps.n, epsilon, rnd, ledger, n_public, n_fraction,
                                              cap=DEFAULT_HEIGHT)
    if switch is None:
        switch = default_switch(height)
    return build_private_kd(ps, domain, epsilon, rnd, "hybrid", height=height, switch=switch,
                            count_fraction=count_fraction, budget=budget, median=median,
                            sample_rate=sample_rate, delta=delta, postprocess=postprocess, prune=prune,
                            pruning=pruning, ledger=ledger, eps_n=eps_n, n_note=n_note, split_grid=split_grid,
                            stop_sds=stop_sds, workload=None if workload is None else as_workload(workload))


# what this module declares (psdviz/methods/spec.py): parameters whose meaning is its own, then the method
PARAMS = {
    "height": doc("Levels below the root. None: the quadtree's rule h = ceil(log4(N epsilon / 10)), at "
                  "most the paper's 8 (its lower levels are quadtree levels); N public or estimated.",
                  "ICDE'12 section 8", 1, KD_MAX_HEIGHT),
    "switch": doc("Hybrid tree: the top levels split at private medians, the levels below at midpoints (free). "
                  "None: a quarter of the height.", "ICDE'12 sections 6.2, 8", 1, KD_MAX_HEIGHT,
                  when_none="a quarter of the height"),
}

SPEC = MethodSpec("hybrid", build_hybrid, paper="ICDE'12 (Cormode et al.), sections 6.2 and 8", params=PARAMS,
                  suggest={"switch": suggested_switch}, workloads=WORKLOAD_KINDS, rank=4,
                  interval_caveat="its first levels cut at data medians, and on check-ins at epsilon 1 this interval "
                                  "was too narrow more often than 1 time in 20")
