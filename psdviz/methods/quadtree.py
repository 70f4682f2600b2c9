"""Private quadtree (ICDE'12 sections 3.3, 4, 5, 7).

Fanout 4, height h, data-independent splits at midpoints of the public domain, so only the counts
are private: geometric noise per level with a per-level budget plan (sequential composition along
a path, parallel within a level). Nodes are stored level by level in Morton order, so leaf counts
come from one ``bincount`` and every coarser level from ``reshape(-1, 4).sum(1)``.
"""
from __future__ import annotations

import numpy as np

from ..splits import morton
from ..core.budget import level_epsilons
from ..core.domain import Domain, PointSet
from ..core.ledger import Ledger
from ..core.measure import measure_counts
from .complete_tree import finish_complete_tree
from ..publish.release import Release
from ..core.rng import Randomness
from ..core.tree import FlatTree, check_node_count, complete_links
from ..core.grid import cap_by_resolution
from ..core.validation import check_int

MAX_HEIGHT = 11  # the largest height under the node cap (tree.MAX_NODES)


def quad_nodes(height: int) -> int:
    return (4 ** (height + 1) - 1) // 3


def level_counts(keys: np.ndarray, bits: int, height: int) -> list[np.ndarray]:
    """Counts of every level in Morton order, root first, from grid keys (height <= bits): the leaf
    cell of a key is its top ``height`` bits."""
    side = 1 << height
    shift = bits - height
    counts = [np.bincount(morton.encode(keys[:, 0] >> shift, keys[:, 1] >> shift), minlength=side * side)]
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


def build_quadtree(ps: PointSet, domain: Domain, epsilon: float, rnd: Randomness, *, height: int = 10,
                   budget: str = "geometric", postprocess: bool = True, prune: float | None = None) -> Release:
    """Private quadtree of the given height (paper default h = 10, geometric budget, OLS)."""
    height, capped = cap_by_resolution(check_int(height, "height", 1, 64), ps.grid.bits, "height", ps.grid.bits)
    check_node_count(quad_nodes(height), f"a quadtree of height {height} (at most {MAX_HEIGHT} fits)")
    eps = level_epsilons(epsilon, height, budget)
    ledger = Ledger(epsilon)
    noisy, var = [], []
    for d, c in enumerate(level_counts(ps.keys, ps.grid.bits, height)):
        y, v = measure_counts(rnd, ledger, c, eps[d], level=d)
        noisy.append(y)
        var.append(v)
    s = quad_structure(domain, height)
    tree = FlatTree(noisy=np.concatenate(noisy), noise_var=np.concatenate(var),
                    count_eps=eps[s["depth"]], split_eps=np.zeros(s["depth"].size), **s)
    params = {"height": height, "budget": budget, "postprocess": bool(postprocess), "prune": prune}
    return finish_complete_tree(tree, eps, 4, ps, domain, ledger, rnd, "quadtree", params,
                                regular=True, postprocess=postprocess, prune=prune,
                                notes=(capped,))
