"""Private quadtree (ICDE'12 sections 3.3, 4, 5, 7).

Fanout 4, height h, data-independent splits at midpoints of the public domain, so only the counts
are private: geometric noise per level with a per-level budget plan (sequential composition along
a path, parallel within a level). Nodes are stored level by level in Morton order, so leaf counts
come from one ``bincount`` and every coarser level from ``reshape(-1, 4).sum(1)``.

Defaults: geometric budget and least squares (section 7's quad-opt), the height chosen from N and
epsilon: h = ceil(log4(N eps / c)), c = 10, so that the expected count of a leaf is about c / eps, a
few noise standard deviations (the same balance as the uniform grid's m = sqrt(N eps / c), Qardaji et
al.); N is the declared public value or a noisy count bought with ``n_fraction`` of epsilon. Pruning
m = 32 (section 7) applies during the build (``pruning="build"``, :mod:`psdviz.methods.early_stop`,
as the ICDE'12 authors' code applies it): a node whose noisy count is small is not split and is
measured again with the budget of the levels below it, then the stopped tree is post-processed by the
general GLS. ``pruning="after_ols"`` keeps the paper's text (the complete tree, OLS, then pruning).
The height rule's sweeps and why the build, with the DPBench figures against the prototype's
Quad-opt: docs/decisions/early-stop.md ("The quadtree").
Giving ``height`` explicitly needs no N and spends nothing on it.
Passes over the data (:mod:`psdviz.core.source`): one, the leaf cells' counts; coarser levels are sums of four.
"""
from __future__ import annotations

from functools import partial

import numpy as np

from ..core.budget import STOP_SDS, Plan, level_epsilons
from ..core.domain import Domain, PointSet
from ..core.grid import cap_by_resolution
from ..core.ledger import Ledger
from ..core.measure import measure_levels
from ..core.memory import cap_by_memory, cap_cells, memory_limit
from ..core.parallel import TreeTiling
from ..core.params import Share
from ..core.population import DEFAULT_N_FRACTION, resolve_n
from ..core.rng import Randomness
from ..core.source import KeySource
from ..core.tree import FlatTree, check_node_count, complete_links
from ..core.validation import check_int, check_positive
from ..core.workload import RegionLayer, Workload, as_workload
from ..publish.release import Release
from ..splits import morton
from ..splits.keyers import morton_cells
from .complete_tree import finish_complete_tree
from .early_stop import Pruning, effective_pruning, measure_with_stops, stop_floor
from .gls_finish import finish_gls_tree
from .spec import POSITIVE, WORKLOAD_KINDS, MethodSpec, doc
from .workload_budget import deepest_used, workload_counts, workload_plan
from .workload_regions import layer_plan

MAX_HEIGHT = 11  # the largest height under the node cap (tree.MAX_NODES)
QUAD_C = 10.0    # height rule constant: expected leaf count about c / eps
DEFAULT_PRUNE = 32.0   # ICDE'12 section 5.3, m = 32 as in its experiments (the kd-tree uses the same)
# a build that stops (early_stop) holds the complete levels' exact counts (8 bytes a node, and the leaf pass's
# work) and only the measured nodes: 24 bytes a node of the complete tree, against a complete tree's 400
BYTES_PER_COUNT = 24


def quad_height(n: float, epsilon: float, c: float = QUAD_C) -> int:
    """h = ceil(log4(N eps / c)), at least 1 and at most MAX_HEIGHT."""
    cells = max(n, 1.0) * epsilon / c
    return int(min(MAX_HEIGHT, max(1, np.ceil(np.log(max(cells, 1.0)) / np.log(4)))))


def height_from_n(n_true: int, epsilon: float, rnd: Randomness, ledger: Ledger, n_public: int | None,
                  n_fraction: float, c: float = QUAD_C, cap: int = MAX_HEIGHT) -> tuple[int, float, str]:
    """The height rule with N public or a noisy count (``resolve_n``, recorded in ``ledger``):
    min(cap, quad_height(N, epsilon left, c)). Returns (height, epsilon spent on N, where N came from).
    Used by the quadtree and by the hybrid kd-tree (cap = the paper's h = 8)."""
    pop = resolve_n(n_true, epsilon, rnd, ledger, n_public, n_fraction)
    return min(cap, quad_height(pop.value, epsilon - pop.epsilon, c)), pop.epsilon, pop.source


def quad_nodes(height: int) -> int:
    return (4 ** (height + 1) - 1) // 3


def level_counts(ps: KeySource, height: int) -> list[np.ndarray]:
    """Counts of every level in Morton order, root first, from one pass over the source (height <=
    bits): the leaf cell of a key is its top ``height`` bits; coarser levels are sums of four."""
    counts = [ps.counts(morton_cells(ps.grid.bits, height), 4 ** height)]
    for _ in range(height):
        counts.append(counts[-1].reshape(-1, 4).sum(axis=1))
    return counts[::-1]


def quad_rects(domain: Domain, depth: int, codes: np.ndarray) -> np.ndarray:
    """Rectangles of the quadtree nodes ``codes`` (Morton codes within their level) of ``depth``."""
    ix, iy = morton.decode(codes)
    w, h = domain.width / (1 << depth), domain.height / (1 << depth)   # exact: powers of two
    # each corner is xmin + i * w with one rounding: exactly the public grid's coordinate
    return np.column_stack([domain.xmin + ix * w, domain.ymin + iy * h,
                            domain.xmin + (ix + 1) * w, domain.ymin + (iy + 1) * h])


def quad_structure(domain: Domain, height: int) -> dict:
    """Rectangles, depths and links of the complete quadtree (Morton order within each level)."""
    rects = [quad_rects(domain, d, np.arange(4 ** d)) for d in range(height + 1)]
    return {"rect": np.concatenate(rects), **complete_links(height, 4)}


def build_quadtree(ps: PointSet, domain: Domain, epsilon: float, rnd: Randomness, *, height: int | None = None,
                   budget: Plan = "geometric", postprocess: bool = True, prune: float | None = DEFAULT_PRUNE,
                   n_public: int | None = None, n_fraction: Share = DEFAULT_N_FRACTION, c: float = QUAD_C,
                   pruning: Pruning = "build", workload: Workload | None = None, stop_sds: float = STOP_SDS) -> Release:
    """Private quadtree: geometric budget, pruning m = 32 during the build, least squares, height from N.
    ``pruning="after_ols"`` is the paper's text (the complete tree, OLS, then pruning). A ``workload``
    (public query rectangles or a region layer, checked by ``pv.build``) replaces the geometric plan by the
    plan for those queries (:mod:`psdviz.methods.workload_budget`); a layer also deepens the rule's tree
    (:mod:`psdviz.methods.workload_regions`). ``stop_sds``: the floor of the build's stop in noise sds
    (:mod:`psdviz.methods.early_stop`)."""
    ledger = Ledger(epsilon)
    c = check_positive(c, "c")
    eps_n, n_note, by_rule = 0.0, "not needed (height given)", height is None
    if by_rule:
        height, eps_n, n_note = height_from_n(ps.n, epsilon, rnd, ledger, n_public, n_fraction, c)
    assert height is not None   # given, or from the height rule
    asked = check_int(height, "height", 1, 64)
    height, capped = cap_by_resolution(asked, ps.grid.bits, "height", ps.grid.bits)
    counts: np.ndarray | None = None
    workload = None if workload is None else as_workload(workload)
    if by_rule and isinstance(workload, RegionLayer):
        height, counts, capped = _layer_depth(height, workload, domain, ps.grid.bits, capped)
    elif workload is not None:
        counts = workload_counts(workload, domain, height)
        if by_rule:
            height, capped = _workload_depth(height, counts, capped)   # the deepest level used
    stops = pruning == "build" and prune is not None    # the complete tree then stays implicit
    height, lowered = (cap_cells(height, quad_nodes, "height", BYTES_PER_COUNT) if stops
                       else cap_by_memory(height, quad_nodes, "height"))
    counts = None if counts is None else counts[:height + 1]   # no query cuts a leaf above the height kept
    if not (stops and memory_limit()):     # its complete levels' counts were sized to the limit just above
        shown = f"{asked}, {height} at this resolution" if asked != height else f"{height}"
        check_node_count(quad_nodes(height), f"a quadtree of height {shown} (at most {MAX_HEIGHT} fits)")
    plan: str = budget              # the plan's name: a Plan, or "workload"
    if workload is None:
        eps, plan_note = level_epsilons(epsilon - eps_n, height, budget), None
    else:
        assert counts is not None   # counted above for every workload
        eps, plan, plan_note = workload_plan(epsilon - eps_n, height, budget, workload, counts, domain)
    when, pruning_note = effective_pruning(pruning, eps, prune)
    params = {"height": height, "budget": plan, "postprocess": bool(postprocess), "prune": prune, "N": n_note,
              "pruning": when}
    floor, floor_note = stop_floor(when, prune, stop_sds)
    params.update(floor)
    if workload is not None:
        params.update(workload.record())   # public input: the queries planned for
    if when == "build" and prune is not None:   # the complete tree stays implicit: only measured nodes are made
        tree = measure_with_stops(rnd, ledger, level_counts(ps, height), eps, float(prune), np.zeros(height + 1),
                                  partial(quad_rects, domain), root_split=eps_n, sds=float(stop_sds),
                                  progress="quadtree levels")
        return finish_gls_tree(tree, ps, domain, ledger, rnd, "quadtree", params, postprocess=postprocess,
                               answer="tree",   # GLS: the stopped tree
                               notes=(capped, lowered, pruning_note, plan_note, floor_note),
                               parallel=TreeTiling.of_stopped(tree, ps.grid, height))
    if stops:   # a plan without levels above the leaves builds the complete tree after all
        check_node_count(quad_nodes(height), f"a quadtree of height {height} (its plan measures the leaves only)")
    s = quad_structure(domain, height)
    split_eps = np.zeros(s["depth"].size)
    split_eps[0] = eps_n   # the noisy N chose the height: a structural spend at the root
    noisy, var = measure_levels(rnd, ledger, level_counts(ps, height), eps, progress="quadtree levels")
    tree = FlatTree(noisy=noisy, noise_var=var, count_eps=eps[s["depth"]], split_eps=split_eps, **s)
    return finish_complete_tree(tree, eps, 4, ps, domain, ledger, rnd, "quadtree", params,
                                regular=True, postprocess=postprocess, prune=prune,
                                notes=(capped, lowered, pruning_note, plan_note, floor_note))


def _workload_depth(height: int, counts: np.ndarray, capped: str | None) -> tuple[int, str | None]:
    """The height rule's tree cut at the deepest level the workload uses (its counts ``counts`` at the rule's
    height; :func:`.workload_budget.deepest_used`), and the note."""
    used = deepest_used(counts)
    if used >= height:
        return height, capped
    note = (f"height {height} (from N and epsilon) cut to {used}: no query of the workload uses a deeper level "
            "(its rectangles' edges lie on that level's lines)")
    return used, note if capped is None else f"{capped}; {note}"


def _layer_depth(height: int, layer: RegionLayer, domain: Domain, bits: int,
                 capped: str | None) -> tuple[int, np.ndarray, str | None]:
    """The height rule's tree deepened to resolve a region layer (:func:`.workload_regions.layer_plan`),
    within the node cap and the release grid: the height, the layer's counts for it, and the note."""
    limit = min(MAX_HEIGHT, bits)
    deep, counts = layer_plan(layer.geometry, domain, min(height, limit), limit)
    if deep == height:
        return height, counts, capped
    note = (f"height {height} (from N and epsilon) deepened to {deep} for the region workload, so that on average "
            "at most half of a region's area lies in leaves its border cuts" if deep < limit else
            f"height {height} (from N and epsilon) deepened to {deep}, the deepest tree that fits, for the region "
            "workload (its borders cut leaves at every depth above)")
    return deep, counts, note if capped is None else f"{capped}; {note}"


# what this module declares (psdviz/methods/spec.py): parameters whose meaning is its own, then the method
PARAMS = {
    "height": doc("Levels below the root. None: chosen from N and epsilon, h = ceil(log4(N epsilon / "
                  "c)) (quad-opt); deeper trees give smaller cells but more noise per cell.",
                  "ICDE'12 sections 4, 8", 1, 64, when_none="chosen from N and epsilon"),
    "c": doc("Constant of the height rule h = ceil(log4(N epsilon / c)); a leaf then holds about "
             "c / epsilon points, a few noise standard deviations.", "ICDE'12 section 8", **POSITIVE),
}

SPEC = MethodSpec("quadtree", build_quadtree, paper="ICDE'12 (Cormode et al.), sections 3-8",
                  workloads=WORKLOAD_KINDS, params=PARAMS, rank=1,
                  interval_caveat="on values heaped on a grid of readings (temperature and humidity) this "
                                  "interval was too narrow more often than 1 time in 20")
# (the quadtree's build stops on noisy counts: it is data-dependent)
