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
Default height: the quadtree's rule h = ceil(log4(N eps / 10)) (``quadtree.quad_height``), at most the
paper's h = 8, with N public (``n_public``) or a noisy count bought with ``n_fraction`` of epsilon (the
root's split cost, as in the quadtree). The hybrid's lower levels are quadtree levels, whose leaves
should hold a few noise deviations (c / eps) of points; the paper's fixed h = 8 asks for 65,536 leaves
whatever N is. Evidence (bench_dpbench protocol, resolution 8, 5 runs, MRE, h = 8 -> the rule; the
rule differs from 8 only where N eps < about 4 * 10^4): STROKE 1.89 -> 0.40 at epsilon 0.1 (h = 4) and
0.177 -> 0.155 at 1 (h = 6); ADULT-2D 3.75 -> 1.53 (h = 5) and 0.182 -> 0.211 (h = 6, within the runs'
spread, sd 0.14); SF-CABS-S 0.338 -> 0.242 at 0.1 (h = 7); synthetic1M 0.044 -> 0.036 at 0.1 (h = 7).
The plain kd-tree keeps h = 8: there the same rule was mixed (SF-CABS-S at 0.1: 0.41 at h = 8, 0.87 at
h = 7), since its leaves follow the data and deeper levels keep refining dense places.
Pruning during the build (``pruning="build"``, :mod:`psdviz.methods.early_stop`, as the kd-tree) since
session 11. Measured against pruning after OLS with the continuous medians and the height rule
(bench_dpbench protocol, 10 runs, MRE after_ols -> build at epsilon 0.1 / 1): SF-CABS-S 0.271 / 0.0328 ->
0.146 / 0.0196 (the prototype's kd-hybrid: 0.230 / 0.053), ADULT-2D 0.577 / 0.0374 -> 0.748 / 0.0057,
STROKE 0.578 / 0.146 -> 0.544 / 0.133, BJ-CABS-E 0.0249 / 0.0094 -> 0.0263 / 0.0089, GOWALLA 0.0356 /
0.0271 -> 0.0344 / 0.0270, synthetic1M 0.0341 / 0.0053 -> 0.0323 / 0.0051: better in 10 of 12 cells;
the two it loses (ADULT-2D and BJ-CABS-E at 0.1) stay below the prototype's figures (1.466, 0.0294).
(An earlier 3-run sweep, before the continuous medians, had it losing ADULT-2D at 0.1 badly: 1.61 ->
2.52.) ``pruning="after_ols"`` keeps the paper's text. With the stop threshold at least one noise
standard deviation (``early_stop.STOP_SDS``, same session) the build-pruned hybrid moves further at 0.1:
ADULT-2D 0.75 -> 0.30, STROKE 0.544 -> 0.407, SF-CABS-S 0.146 -> 0.087, BJ-CABS-E 0.026 -> 0.019.
Passes over the data (:mod:`psdviz.core.source`): one per median level (2 * switch), none for the
midpoint levels, one for the leaf counts.
"""
from __future__ import annotations

from ..core.domain import Domain, PointSet
from ..core.ledger import Ledger
from ..core.population import DEFAULT_N_FRACTION
from .kdtree import DEFAULT_COUNT_FRACTION, DEFAULT_HEIGHT, DEFAULT_PRUNE, build_private_kd
from .quadtree import height_from_n
from ..publish.release import Release
from ..core.rng import Randomness


def default_switch(height) -> int:
    """The switch level used when ``switch`` is None: height // 4 (at least 1), see the module docstring."""
    return max(1, int(height) // 4) if isinstance(height, (int, float)) else 1


def build_hybrid(ps: PointSet, domain: Domain, epsilon: float, rnd: Randomness, *, height: int | None = None,
                 switch: int | None = None, count_fraction: float = DEFAULT_COUNT_FRACTION,
                 budget: str = "geometric", median: str = "em", sample_rate: float = 1.0, delta: float = 1e-5,
                 postprocess: bool = True, prune: float | None = DEFAULT_PRUNE, n_public: int | None = None,
                 n_fraction: float = DEFAULT_N_FRACTION, pruning: str = "build") -> Release:
    """``height`` None: min(8, ceil(log4(N eps / 10))) from a public or noisy N (module docstring);
    ``switch`` = number of fanout-4 levels split by private medians (default height // 4)."""
    ledger, eps_n, n_note = Ledger(epsilon), 0.0, None
    if height is None:
        height, eps_n, n_note = height_from_n(ps.n, epsilon, rnd, ledger, n_public, n_fraction,
                                              cap=DEFAULT_HEIGHT)
    if switch is None:
        switch = default_switch(height)
    return build_private_kd(ps, domain, epsilon, rnd, "hybrid", height=height, switch=switch,
                            count_fraction=count_fraction, budget=budget, median=median,
                            sample_rate=sample_rate, delta=delta, postprocess=postprocess, prune=prune,
                            pruning=pruning, ledger=ledger, eps_n=eps_n, n_note=n_note)
