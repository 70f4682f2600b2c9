"""Cell-based kd-tree, kd-cell (Xiao, Xiong, Yuan 2010 [26], as compared in ICDE'12 section 8).

Phase 1: a fixed public grid of ``grid`` x ``grid`` cells over the domain (edges on the resolution
grid, :func:`psdviz.core.grid.even_edges`; at most one cell per grid step) gets noisy counts
(two-sided geometric, one spend: the cells are disjoint). Phase 2: a kd-tree whose splits are
medians of those noisy counts (negative counts clipped to 0), always on cell edges; this is
post-processing of the grid and costs nothing more. Phase 3: fresh noisy counts on the tree.

Readings (the paper gives few details): the grid takes the "median" share of the budget,
(1 - count_fraction) * epsilon, since it is what decides the splits; the tree's counts take
count_fraction * epsilon with the same per-depth plan, OLS and pruning as the other kd-trees,
because section 8 applies geometric budgets and post-processing to all PSDs it compares. Default
grid 1024 per axis (section 8 uses cells of 0.01 degrees on a ~20-degree domain, about 2000 per
axis; 1024 keeps the grid at 1M cells). A node's median along an axis is the first cell edge
where the cumulative noisy count of the node's cells reaches half its total (found for all nodes
of a level at once by bisection on a 2-D prefix table); a node with noisy total 0 splits at its
middle cell edge.
Passes over the data (:mod:`psdviz.core.source`): one, the grid's cells (the splits come from the noisy
grid alone, on its cells' edges, so the leaf counts are sums of the grid's true counts).
"""
from __future__ import annotations

import numpy as np

from ..core.budget import Plan, level_epsilons
from ..core.cells import CellTable
from ..core.domain import Domain, PointSet
from ..core.grid import cap_by_resolution, even_edges
from ..core.ledger import Ledger
from ..core.measure import measure_counts
from ..core.memory import cap_cells
from ..core.params import Share
from ..core.rng import Randomness
from ..core.tree import FlatTree
from ..core.validation import check_int
from ..publish.release import Release
from ..query.pyramid import prefix_2d
from ..splits.keyers import even_cells
from .complete_tree import finish_complete_tree
from .kdtree import (
    DEFAULT_COUNT_FRACTION,
    DEFAULT_HEIGHT,
    DEFAULT_PRUNE,
    check_common,
    complete_tree,
    grid_partition,
    measure_tree,
)
from .spec import MethodSpec, doc

MAX_GRID = 2048
# its noisy grid's arrays at their peak (counts, noise, prefix sums, the splits' work): about 60 bytes a cell,
# measured (docs/decisions/memory-limit.md)
BYTES_PER_GRID_CELL = 64


def grid_median_edges(prefix: np.ndarray, axis: int, c0, c1, r0, r1) -> np.ndarray:
    """Per node with cells [c0, c1) on ``axis`` and [r0, r1) on the other, the first edge c in
    [c0, c1] whose cumulative count from c0 reaches half the node's total (bisection)."""
    def cum(c):
        if axis == 0:   # prefix[row, col]
            return prefix[r1, c] - prefix[r0, c] - prefix[r1, c0] + prefix[r0, c0]
        return prefix[c, r1] - prefix[c, r0] - prefix[c0, r1] + prefix[c0, r0]
    half = cum(c1) / 2.0
    a, b = c0.copy(), c1.copy()         # invariant: cum(b) >= half; answer in [a, b]
    while (a < b).any():
        mid = (a + b) // 2
        ok = cum(mid) >= half
        b = np.where((a < b) & ok, mid, b)
        a = np.where((a < b) & ~ok, mid + 1, a)
    return np.where(half > 0, b, (c0 + c1) // 2)


def build_kd_cell(ps: PointSet, domain: Domain, epsilon: float, rnd: Randomness, *, height: int = DEFAULT_HEIGHT,
                  grid: int = 1024, count_fraction: Share = DEFAULT_COUNT_FRACTION, budget: Plan = "geometric",
                  postprocess: bool = True, prune: float | None = DEFAULT_PRUNE) -> Release:
    """kd-cell with a ``grid`` x ``grid`` noisy grid deciding the splits."""
    height, capped_height = check_common(height, count_fraction, prune, ps.grid.bits)
    grid = check_int(grid, "grid", 2, MAX_GRID)
    grid, lowered = cap_cells(grid, lambda k: k * k, "grid", BYTES_PER_GRID_CELL, least=2)
    # the grid is no tree: at most MAX_GRID^2 cells (below tree.MAX_NODES), and within the limit's share above
    ledger = Ledger(epsilon)
    eps_grid = (1.0 - count_fraction) * epsilon
    eps_count = level_epsilons(count_fraction * epsilon, height, budget)
    grid, capped = cap_by_resolution(grid, ps.grid.size, "grid", ps.grid.bits)
    edges = even_edges(0, ps.grid.size, grid)      # the noisy grid's cell edges, on the public grid
    cells = ps.counts(even_cells(ps.grid.size, grid), grid * grid)
    noisy_cells, _ = measure_counts(rnd, ledger, cells, eps_grid, what="cell counts",
                                    note=f"{grid} x {grid} grid deciding the kd splits (Xiao et al.)")
    prefix = prefix_2d(np.maximum(noisy_cells, 0.0).reshape(grid, grid))

    def choose(t, axis, vals, offsets, rect, weights):
        # node bounds are always cell edges: their cell indices are exact look-ups
        c0, c1 = np.searchsorted(edges, rect[:, axis]), np.searchsorted(edges, rect[:, axis + 2])
        r0, r1 = np.searchsorted(edges, rect[:, 1 - axis]), np.searchsorted(edges, rect[:, 3 - axis])
        return edges[grid_median_edges(prefix, axis, c0, c1, r0, r1)]

    # every split is an edge of the noisy grid, so a point's side of it, and its leaf, is its grid cell's:
    # the leaf counts are the grid's true counts carried down from each cell's lower corner (no second pass)
    occupied = np.flatnonzero(cells)
    corners = np.column_stack([edges[occupied % grid], edges[occupied // grid]])
    rects, leaf_counts = grid_partition(CellTable(ps, corners, cells[occupied]), 2 * height, choose, lambda t: False)
    noisy, var = measure_tree(rnd, ledger, leaf_counts, height, eps_count)
    s = complete_tree(rects[::2], domain, height)
    tree = FlatTree(noisy=noisy, noise_var=var, count_eps=eps_count[s["depth"]],
                    split_eps=np.zeros(s["depth"].size), **s)
    tree.split_eps[0] = eps_grid   # the grid is spent once on every path: booked at the root
    params = {"height": height, "grid": grid, "count_fraction": count_fraction, "budget": budget,
              "postprocess": bool(postprocess), "prune": prune}
    rel = finish_complete_tree(tree, eps_count, 4, ps, domain, ledger, rnd, "kd-cell", params, regular=False,
                               postprocess=postprocess, prune=prune, data_cuts=height)   # every cut a data median
    return rel.with_notes(capped_height, lowered, capped)


# what this module declares (psdviz/methods/spec.py): parameters whose meaning is its own, then the method
PARAMS = {
    "grid": doc("kd-cell: points are first counted on a grid x grid lattice; medians are then found on those "
                "cell counts instead of on the points.", "Xiao et al., as in ICDE'12 section 8", 2, MAX_GRID),
}

SPEC = MethodSpec("kd-cell", build_kd_cell, paper="Xiao et al., as compared in ICDE'12 section 8", params=PARAMS,
                  rank=6)
