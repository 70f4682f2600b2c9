"""Private quadtree (ICDE'12 sections 3.3, 4, 5, 7).

Fanout 4, height h, data-independent splits at midpoints of the public domain, so only the counts
are private: geometric noise per level with a per-level budget plan (sequential composition along
a path, parallel within a level). Nodes are stored level by level in Morton order, so leaf counts
come from one ``bincount`` and every coarser level from ``reshape(-1, 4).sum(1)``.

Defaults are the paper's quad-opt (section 7: geometric budget, OLS, pruning after post-processing,
section 5.3) with the height chosen from N and epsilon: h = ceil(log4(N eps / c)), c = 10, so that
the expected count of a leaf is about c / eps, a few noise standard deviations (the same balance as
the uniform grid's m = sqrt(N eps / c), Qardaji et al.). N is the declared public value or a noisy
count bought with ``n_fraction`` of epsilon. Evidence (benchmarks/bench_dpbench.py protocol, mean
relative error, resolution 8): the old default (h = 10, no pruning) had 6.98 / 0.69 on STROKE at
epsilon 0.1 / 1 and 19.0 / 1.89 on ADULT-2D; quad-opt with this rule (h = 4 / 6, pruning m = 32)
0.39 / 0.10 and 3.09 / 0.46; the ICDE'12 prototype's Quad-opt (h = 8) 1.24 / 0.11 and 5.50 / 0.47.
The rule was read from sweeps of h = 4..8 on STROKE, ADULT-2D and SF-CABS-S, not fitted to one file.
Giving ``height`` explicitly needs no N and spends nothing on it.
Passes over the data (:mod:`psdviz.core.source`): one, the leaf cells' counts; coarser levels are sums of four.
"""
from __future__ import annotations

import numpy as np

from ..core.budget import level_epsilons
from ..core.domain import Domain, PointSet
from ..core.grid import cap_by_resolution
from ..core.ledger import Ledger
from ..core.measure import measure_counts
from ..core.population import DEFAULT_N_FRACTION, resolve_n
from ..core.progress import report
from ..core.rng import Randomness
from ..core.source import KeySource
from ..core.tree import FlatTree, check_node_count, complete_links
from ..core.validation import check_int, check_positive
from ..publish.release import Release
from ..splits import morton
from ..splits.keyers import morton_cells
from .complete_tree import finish_complete_tree

MAX_HEIGHT = 11  # the largest height under the node cap (tree.MAX_NODES)
QUAD_C = 10.0    # height rule constant: expected leaf count about c / eps
DEFAULT_PRUNE = 32.0   # ICDE'12 section 5.3, m = 32 as in its experiments (the kd-tree uses the same)


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


def quad_structure(domain: Domain, height: int) -> dict:
    """Rectangles, depths and links of the complete quadtree (Morton order within each level)."""
    rects = []
    for d in range(height + 1):
        ix, iy = morton.decode(np.arange(4 ** d))
        w, h = domain.width / (1 << d), domain.height / (1 << d)   # exact: powers of two
        # each corner is xmin + i * w with one rounding: exactly the public grid's coordinate
        rects.append(np.column_stack([domain.xmin + ix * w, domain.ymin + iy * h,
                                      domain.xmin + (ix + 1) * w, domain.ymin + (iy + 1) * h]))
    return {"rect": np.concatenate(rects), **complete_links(height, 4)}


def build_quadtree(ps: PointSet, domain: Domain, epsilon: float, rnd: Randomness, *, height: int | None = None,
                   budget: str = "geometric", postprocess: bool = True, prune: float | None = DEFAULT_PRUNE,
                   n_public: int | None = None, n_fraction: float = DEFAULT_N_FRACTION, c: float = QUAD_C) -> Release:
    """Private quadtree, quad-opt by default (geometric budget, OLS, pruning m = 32, height from N)."""
    ledger = Ledger(epsilon)
    c = check_positive(c, "c")
    eps_n, n_note = 0.0, "not needed (height given)"
    if height is None:
        height, eps_n, n_note = height_from_n(ps.n, epsilon, rnd, ledger, n_public, n_fraction, c)
    height, capped = cap_by_resolution(check_int(height, "height", 1, 64), ps.grid.bits, "height", ps.grid.bits)
    check_node_count(quad_nodes(height), f"a quadtree of height {height} (at most {MAX_HEIGHT} fits)")
    eps = level_epsilons(epsilon - eps_n, height, budget)
    noisy, var = [], []
    for d, c in enumerate(level_counts(ps, height)):
        y, v = measure_counts(rnd, ledger, c, eps[d], level=d)
        noisy.append(y)
        var.append(v)
        report(d + 1, height + 1, "quadtree levels")
    s = quad_structure(domain, height)
    tree = FlatTree(noisy=np.concatenate(noisy), noise_var=np.concatenate(var),
                    count_eps=eps[s["depth"]], split_eps=np.zeros(s["depth"].size), **s)
    tree.split_eps[0] = eps_n   # the noisy N chose the height: a structural spend at the root
    params = {"height": height, "budget": budget, "postprocess": bool(postprocess), "prune": prune, "N": n_note}
    return finish_complete_tree(tree, eps, 4, ps, domain, ledger, rnd, "quadtree", params,
                                regular=True, postprocess=postprocess, prune=prune,
                                notes=(capped,))
