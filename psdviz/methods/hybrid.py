"""Hybrid kd-tree (ICDE'12 sections 3.2, 6.2, 8): private-median splits on the first ``switch``
fanout-4 levels, quadtree (midpoint) splits below.

The median budget is uniform over the data-dependent levels only (section 6.2: epsilon_i^m =
epsilon_median / l on the top l levels, 0 below); midpoint splits depend only on the node's
public region and cost nothing.

Default switch = height // 4 (2 for h = 8), from our sweeps, not the paper's: section 8 found
switching "about half-way down the tree (height 3 or 4)" best for h = 8 on its data, but on the DPBench
protocol (benchmarks/bench_dpbench.py datasets, resolution 8, 2 runs, mean relative error, switch 1/2/3/4)
switch 2 had the smallest worst-case loss against the best switch (1.64x, ADULT-2D at epsilon 1), while
half-way (4) lost up to 3.97x (SF-CABS-S at epsilon 1: 0.109 against 0.027; synthetic1M at 1: 0.0165
against 0.0048). Figures: STROKE 1.94 / 0.162 (eps 0.1 / 1), ADULT-2D 2.50 / 0.267, SF-CABS-S 0.317 /
0.027, synthetic1M 0.046 / 0.0048 with switch 2; 1.70 / 0.194, 2.52 / 0.163, 0.321 / 0.109,
0.048 / 0.0165 with switch 4.
Passes over the data (:mod:`psdviz.core.source`): one per median level (2 * switch), none for the
midpoint levels, one for the leaf counts.
"""
from __future__ import annotations

from ..core.domain import Domain, PointSet
from .kdtree import DEFAULT_COUNT_FRACTION, DEFAULT_HEIGHT, DEFAULT_PRUNE, build_private_kd
from ..publish.release import Release
from ..core.rng import Randomness


def default_switch(height) -> int:
    """The switch level used when ``switch`` is None: height // 4 (at least 1), see the module docstring."""
    return max(1, int(height) // 4) if isinstance(height, (int, float)) else 1


def build_hybrid(ps: PointSet, domain: Domain, epsilon: float, rnd: Randomness, *, height: int = DEFAULT_HEIGHT,
                 switch: int | None = None, count_fraction: float = DEFAULT_COUNT_FRACTION,
                 budget: str = "geometric", median: str = "em", sample_rate: float = 1.0, delta: float = 1e-4,
                 postprocess: bool = True, prune: float | None = DEFAULT_PRUNE) -> Release:
    """``switch`` = number of fanout-4 levels split by private medians (default height // 4)."""
    if switch is None:
        switch = default_switch(height)
    return build_private_kd(ps, domain, epsilon, rnd, "hybrid", height=height, switch=switch,
                            count_fraction=count_fraction, budget=budget, median=median,
                            sample_rate=sample_rate, delta=delta, postprocess=postprocess, prune=prune)
