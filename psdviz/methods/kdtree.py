"""Private kd-trees flattened to fanout 4 (ICDE'12 sections 3.2, 6, 7, 8).

A kd-tree of ``height`` fanout-4 levels is a binary kd-tree of 2 * height levels whose every other
level releases no count ("flattening", section 6.2). Splits are private medians (section 6.1) along
x, then y, over each node's public region; counts get per-depth budgets (geometric by default,
Lemma 3). Pruning, default ``pruning="build"``: the section 7 rule applied while building
(:mod:`psdviz.methods.early_stop`), then GLS; ``pruning="after_ols"`` keeps the paper's text (OLS,
section 5, then pruning with m = 32).

Privacy (section 6.2): epsilon_count = count_fraction * epsilon (0.7) over the height + 1 count
levels; epsilon_median = the rest, uniform over the 2 * switch binary median levels. Each binary
level's medians act on disjoint nodes, so a level costs its epsilon once; along a path medians and
counts compose sequentially to exactly epsilon. A fanout-4 node's ``split_eps`` is the cost of the two
medians that produce its children.

kd-noisymean (Inan et al.) is this tree with noisy-mean splits; kd-pure (exact medians, exact counts)
and kd-true (exact medians, noisy counts) are non-private references. Passes over the data: one per
binary median level, then one for the leaf counts. Measurements: docs/decisions/kd-pruning.md.
"""
from __future__ import annotations

import numpy as np

from ..core.budget import STOP_SDS, Plan, level_epsilons
from ..core.domain import Domain, PointSet
from ..core.errors import ParameterError
from ..core.grid import MAX_RESOLUTION, cap_by_resolution
from ..core.ledger import Ledger
from ..core.measure import measure_levels
from ..core.memory import cap_by_memory
from ..core.parallel import TreeTiling
from ..core.params import Share
from ..core.rng import Randomness
from ..core.source import KeySource
from ..core.tree import FlatTree, check_node_count
from ..core.validation import check_fraction, check_int
from ..core.workload import Workload
from ..inference.prune import prune_tree
from ..publish.factory import make_release
from ..publish.release import Release
from ..splits.coarse_grid import coarse_first
from ..splits.kdsplit import exact_median_splits, kd_partition
from ..splits.medians import MECHANISM, MedianMethod, check_median_method, check_sample_rate, expand, private_medians
from .complete_tree import finish_complete_tree
from .early_stop import Pruning, effective_pruning, measure_with_stops, stop_floor
from .gls_finish import finish_gls_tree
from .quadtree import quad_nodes, quad_structure
from .spec import MethodSpec
from .workload_budget import workload_counts, workload_plan

MAX_HEIGHT = 10
DEFAULT_HEIGHT = 8          # section 8: h = 8 with fanout 4
DEFAULT_PRUNE = 32.0        # section 8: m = 32
DEFAULT_COUNT_FRACTION = 0.7


def level_counts_from_leaves(leaf_counts: np.ndarray, height: int) -> list[np.ndarray]:
    """Counts per fanout-4 depth (root first) from the leaf counts (children of j: 4j..4j+3)."""
    counts = [np.asarray(leaf_counts, dtype=np.int64)]
    for _ in range(height):
        counts.append(counts[-1].reshape(-1, 4).sum(axis=1))
    return counts[::-1]


def complete_tree(rects: list[np.ndarray], domain: Domain, height: int) -> dict:
    """Complete fanout-4 structure (the quadtree's links) with the given rectangles per depth."""
    s = quad_structure(domain, height)
    s["rect"] = np.concatenate(rects)
    return s


def check_common(height: int, count_fraction: float, prune: float | None, bits: int) -> tuple[int, str | None]:
    """Checked height, capped at the resolution (a kd level halves a cell on each axis at best, so
    more than ``bits`` levels would ask for cells finer than the grid), and the cap's note."""
    height, capped = cap_by_resolution(check_int(height, "height", 1, MAX_HEIGHT), bits, "height", bits)
    height, lowered = cap_by_memory(height, quad_nodes, "height")
    if lowered:
        capped = lowered if capped is None else f"{capped}; {lowered}"
    check_node_count(quad_nodes(height), f"a kd-tree of height {height}")
    check_fraction(count_fraction, "count_fraction")
    if prune is not None and not (isinstance(prune, (int, float)) and np.isfinite(prune)):
        raise ParameterError(f"prune must be a finite number or None (got {prune!r})")
    return height, capped


def median_chooser(rnd: Randomness, ledger: Ledger, eps_binary: float, switch: int, median: str,
                   sample_rate: float, delta: float):
    """Split rule: private medians on binary depths < 2 * switch (recorded), midpoints below."""
    def choose(t, axis, vals, offsets, rect, weights):
        lo, hi = rect[:, axis], rect[:, axis + 2]
        if t >= 2 * switch:
            return (lo + hi) // 2
        # noisy mean: the sum of (x - lo) has sensitivity = the node's width in grid steps (the widest
        # is recorded), the count 1; rank-based medians (em, smooth) have sensitivity 1 in rank
        sens = float((hi - lo).max()) if median == "noisymean" else 1.0
        ledger.spend("median", eps_binary, MECHANISM[median], level=t // 2, nodes=lo.size,
                     sensitivity=sens, delta=delta if median == "smooth" else 0.0,
                     note=f"{'xy'[axis]} split on the public grid, binary depth {t}"
                     + (f", Bernoulli sample p={sample_rate:g} (Theorem 7)" if sample_rate < 1 else "")
                     + (": noisy sum (geometric, sensitivity = node width in grid steps) and noisy "
                        "count (geometric, sensitivity 1), epsilon/2 each" if median == "noisymean" else ""))
        return private_medians(rnd.rng, vals, offsets, lo, hi, eps_binary, median,
                               sample_rate=sample_rate, delta=delta, weights=weights)
    return choose


def check_split_grid(split_grid: int | None) -> int | None:
    """Bits of the coarse split grid (None: the release grid); a power of two from 2 to 2^MAX_RESOLUTION."""
    if split_grid is None:
        return None
    g = check_int(split_grid, "split_grid", 2, 1 << MAX_RESOLUTION)
    if g & (g - 1):
        raise ParameterError(f"split_grid must be a power of two (cells per side of a coarser public grid), got {g}")
    return g.bit_length() - 1


def grid_partition(ps: KeySource, levels: int, choose,
                   reads_data=lambda t: True) -> tuple[list[np.ndarray], np.ndarray]:
    """kd partition of the source's grid keys; rectangles of every binary depth as grid coordinates.
    Passes over the data: one per binary depth where ``reads_data(t)``, plus one for the leaf counts."""
    size = ps.grid.size
    jrects, leaf_counts, _ = kd_partition(ps, np.array([0, 0, size, size]), levels, choose, reads_data)
    return [ps.grid.rects(r) for r in jrects], leaf_counts


def measure_tree(rnd: Randomness, ledger: Ledger, leaf_counts: np.ndarray, height: int, eps: np.ndarray):
    return measure_levels(rnd, ledger, level_counts_from_leaves(leaf_counts, height), eps)


def median_count_budget(epsilon: float, height: int, median_levels: int, count_fraction: float,
                        budget: str, median: str, sample_rate: float) -> tuple[np.ndarray, float]:
    """Section 6.2's split: count_fraction * epsilon over the height + 1 count levels by ``budget``,
    the rest uniformly over the ``median_levels`` binary levels that choose private medians.
    Returns (count epsilon per depth, median epsilon per binary level)."""
    check_median_method(median)
    check_sample_rate(sample_rate)
    eps_count = level_epsilons(count_fraction * epsilon, height, budget)
    return eps_count, (1.0 - count_fraction) * epsilon / median_levels


def build_private_kd(ps: PointSet, domain: Domain, epsilon: float, rnd: Randomness, method: str, *,
                     height: int, switch: int, count_fraction: float, budget: str, median: str,
                     sample_rate: float, delta: float, postprocess: bool, prune: float | None,
                     pruning: str = "after_ols", ledger: Ledger | None = None, eps_n: float = 0.0,
                     n_note: str | None = None, split_grid: int | None = None,
                     stop_sds: float = STOP_SDS, workload: Workload | None = None) -> Release:
    """Shared builder of kdtree, hybrid and kd-noisymean. ``ledger``/``eps_n``: a ledger that
    already holds the N estimate that chose the height (hybrid), and its epsilon; the counts and
    medians share the rest. ``pruning``: "after_ols" (section 7 as the paper applies it) or "build"
    (the noisy-count stop while building, :mod:`psdviz.methods.early_stop`, whose floor is ``stop_sds``
    noise sds). ``split_grid``: splits on that public grid first (:mod:`psdviz.splits.coarse_grid`).
    ``workload``: the count levels' plan for those queries (:func:`.workload_budget.workload_plan`)."""
    coarse_bits = check_split_grid(split_grid)
    switch = check_int(switch, "switch", 1, check_int(height, "height", 1, MAX_HEIGHT))
    height, capped = check_common(height, count_fraction, prune, ps.grid.bits)
    switch = min(switch, height)
    ledger = ledger if ledger is not None else Ledger(epsilon)
    eps_count, eps_binary = median_count_budget(epsilon - eps_n, height, 2 * switch, count_fraction, budget,
                                                median, sample_rate)
    plan_note = None
    if workload is not None:     # public input: the count levels' plan for it (the medians' share unchanged)
        eps_count, budget, plan_note = workload_plan(eps_count.sum(), height, budget, workload,
                                                     workload_counts(workload, domain, height), domain)
    pruning, pruning_note = effective_pruning(pruning, eps_count, prune)
    choose = coarse_first(median_chooser(rnd, ledger, eps_binary, switch, median, sample_rate, delta),
                          ps.grid.bits, coarse_bits)
    rects, leaf_counts = grid_partition(ps, 2 * height, choose, lambda t: t < 2 * switch)
    s = complete_tree(rects[::2], domain, height)
    split_by_depth = np.where(np.arange(height + 1) < switch, 2 * eps_binary, 0.0)
    split_eps = split_by_depth[s["depth"]]
    split_eps[0] += eps_n    # the noisy N chose the height: a structural spend at the root
    params = {"height": height, "switch": switch, "count_fraction": count_fraction, "budget": budget,
              "median": median, "sample_rate": sample_rate, "postprocess": bool(postprocess), "prune": prune,
              "pruning": pruning}
    if n_note is not None:
        params["N"] = n_note
    if split_grid is not None:
        params["split_grid"] = int(split_grid)
    floor, floor_note = stop_floor(pruning, prune, stop_sds)
    params.update(floor)
    if median == "smooth":
        params["delta"] = delta
    if workload is not None:
        params.update(workload.record())   # public input: the queries planned for
    if pruning == "build" and prune is not None:
        skeleton = FlatTree(noisy=np.zeros(s["depth"].size), count_eps=eps_count[s["depth"]],
                            split_eps=split_eps, **s)
        starts = skeleton.level_bounds()
        tree = measure_with_stops(rnd, ledger, level_counts_from_leaves(leaf_counts, height), eps_count, float(prune),
                                  split_by_depth, lambda d, i: skeleton.rect[starts[d] + i], root_split=eps_n,
                                  sds=float(stop_sds))
        return finish_gls_tree(tree, ps, domain, ledger, rnd, method, params, postprocess=postprocess,
                               answer="tree", notes=(capped, pruning_note, plan_note, floor_note),  # GLS: stopped
                               parallel=TreeTiling.of(skeleton, ps.grid),   # its levels were measured whole
                               data_cuts=switch)
    noisy, var = measure_tree(rnd, ledger, leaf_counts, height, eps_count)
    tree = FlatTree(noisy=noisy, noise_var=var, count_eps=eps_count[s["depth"]], split_eps=split_eps, **s)
    return finish_complete_tree(tree, eps_count, 4, ps, domain, ledger, rnd, method, params, regular=False,
                                postprocess=postprocess, prune=prune,
                                notes=(capped, pruning_note, plan_note, floor_note), data_cuts=switch)


def build_kdtree(ps: PointSet, domain: Domain, epsilon: float, rnd: Randomness, *, height: int = DEFAULT_HEIGHT,
                 count_fraction: Share = DEFAULT_COUNT_FRACTION, budget: Plan = "geometric",
                 median: MedianMethod = "em", sample_rate: float = 1.0, delta: float = 1e-5, postprocess: bool = True,
                 prune: float | None = DEFAULT_PRUNE, pruning: Pruning = "build",
                 split_grid: int | None = None, stop_sds: float = STOP_SDS) -> Release:
    """kd-standard of section 8: EM medians on every level, geometric counts, pruning m = 32 during the
    build (:mod:`psdviz.methods.early_stop`), then GLS; ``pruning="after_ols"`` is the paper's text.
    ``split_grid``: split on that coarser public grid first (:mod:`psdviz.splits.coarse_grid`); ``stop_sds``:
    the stop's floor in noise sds."""
    return build_private_kd(ps, domain, epsilon, rnd, "kdtree", height=height, switch=height,
                            count_fraction=count_fraction, budget=budget, median=median,
                            sample_rate=sample_rate, delta=delta, postprocess=postprocess, prune=prune,
                            pruning=pruning, split_grid=split_grid, stop_sds=stop_sds)


def build_kd_noisymean(ps: PointSet, domain: Domain, epsilon: float, rnd: Randomness, *,
                       height: int = DEFAULT_HEIGHT, count_fraction: Share = DEFAULT_COUNT_FRACTION,
                       budget: Plan = "geometric", postprocess: bool = True,
                       prune: float | None = DEFAULT_PRUNE) -> Release:
    """kd-noisymean (Inan et al. [12] as compared in section 8): splits at noisy means."""
    return build_private_kd(ps, domain, epsilon, rnd, "kd-noisymean", height=height, switch=height,
                            count_fraction=count_fraction, budget=budget, median="noisymean",
                            sample_rate=1.0, delta=0.0, postprocess=postprocess, prune=prune)


def _exact_chooser(t, axis, vals, offsets, rect, weights):
    vals, offsets = expand(vals, offsets, weights)
    return exact_median_splits(vals, offsets, rect[:, axis], rect[:, axis + 2])


NOT_PRIVATE = "not private: exact medians{} (a reference for the cost of privacy; never publish)"


def build_kd_true(ps: PointSet, domain: Domain, epsilon: float, rnd: Randomness, *, height: int = DEFAULT_HEIGHT,
                  count_fraction: Share = DEFAULT_COUNT_FRACTION, budget: Plan = "geometric",
                  postprocess: bool = True, prune: float | None = DEFAULT_PRUNE) -> Release:
    """kd-true (section 8): exact medians, noisy counts with the same count budget as kdtree
    (count_fraction * epsilon), so kd-true vs kdtree isolates the cost of private medians."""
    height, capped = check_common(height, count_fraction, prune, ps.grid.bits)
    ledger = Ledger(epsilon)
    eps_count = level_epsilons(count_fraction * epsilon, height, budget)
    rects, leaf_counts = grid_partition(ps, 2 * height, _exact_chooser)
    noisy, var = measure_tree(rnd, ledger, leaf_counts, height, eps_count)
    s = complete_tree(rects[::2], domain, height)
    tree = FlatTree(noisy=noisy, noise_var=var, count_eps=eps_count[s["depth"]],
                    split_eps=np.zeros(s["depth"].size), **s)
    params = {"height": height, "count_fraction": count_fraction, "budget": budget,
              "postprocess": bool(postprocess), "prune": prune}
    rel = finish_complete_tree(tree, eps_count, 4, ps, domain, ledger, rnd, "kd-true", params, regular=False,
                               postprocess=postprocess, prune=prune, private=False, notes=(capped,), data_cuts=height)
    return rel.with_notes(NOT_PRIVATE.format(", noisy counts"))


def build_kd_pure(ps: PointSet, domain: Domain, epsilon: float, rnd: Randomness, *, height: int = DEFAULT_HEIGHT,
                  prune: float | None = DEFAULT_PRUNE) -> Release:
    """kd-pure (section 8): exact medians and exact counts; no noise at all (epsilon unused)."""
    height, capped = check_common(height, 0.5, prune, ps.grid.bits)
    rects, leaf_counts = grid_partition(ps, 2 * height, _exact_chooser)
    counts = np.concatenate(level_counts_from_leaves(leaf_counts, height)).astype(float)
    s = complete_tree(rects[::2], domain, height)
    zeros = np.zeros(counts.size)
    tree = FlatTree(noisy=counts, noise_var=zeros.copy(), count_eps=zeros.copy(), split_eps=zeros.copy(), **s)
    if prune is not None:
        tree, _ = prune_tree(tree, prune, use_estimate=True)
    rel = make_release("kd-pure", {"height": height, "prune": prune}, domain, tree, Ledger(epsilon), rnd,
                       ps.report(), consistent=True, private=False, grid=ps.grid,
                       query_model={"answer": "tree", "variance": "none", "data_cuts": height})
    return rel.with_notes(NOT_PRIVATE.format(", exact counts"), capped)


# what this module declares (psdviz/methods/spec.py): the kd family's methods and its two non-private references
SPECS = (
    MethodSpec("kdtree", build_kdtree, paper="ICDE'12 (Cormode et al.), sections 6 and 8", rank=3),
    MethodSpec("kd-noisymean", build_kd_noisymean, paper="Inan et al., as compared in ICDE'12 section 8", rank=7),
    MethodSpec("kd-pure", build_kd_pure, paper="ICDE'12 section 8", private=False, rank=0),
    MethodSpec("kd-true", build_kd_true, paper="ICDE'12 section 8", private=False, rank=1),
)
