"""Private Hilbert R-tree (ICDE'12 sections 3.2, 6, 8).

Points are mapped to their cell's position on a Hilbert curve of order ``order`` (default 18, as
in section 8, capped at the resolution so that every box is on the public grid) over the public domain. A binary tree of
private medians over these positions (a
one-dimensional kd-tree) is built level by level and flattened to fanout 4 like the kd-tree
(section 6.2); each node owns a range [lo, hi) of curve positions and the private median s
(an integer curve position: the medians work on the grid of curve positions) sends positions >= s
to the right child. A node's
rectangle is the bounding box of the Hilbert cells in its range, so it depends only on the
private split values, never on the points (section 3.2); parents are the union of their
children's boxes. Sibling rectangles may overlap; counts still partition the points, and the
canonical range decomposition of :mod:`psdviz.query.decompose` handles the overlap.

Budget as for kd-trees: count_fraction * epsilon on counts (per-depth plan ``budget``), the rest
uniformly over the 2 * height binary median levels.
Passes over the data (:mod:`psdviz.core.source`): one, the count of every occupied curve position (a
position fixes its node at every level); the levels then work on the sorted positions in memory.
"""
from __future__ import annotations

from functools import partial

import numpy as np

from ..core.budget import Plan
from ..core.domain import Domain, PointSet
from ..core.grid import cap_by_resolution
from ..core.ledger import Ledger
from ..core.memory import cap_cells
from ..core.parallel import CurveRanges
from ..core.params import Share
from ..core.progress import report
from ..core.rng import Randomness
from ..core.source import KeySource
from ..core.tree import FlatTree
from ..core.validation import check_int
from ..publish.release import Release
from ..splits import hilbert_curve
from ..splits.medians import MECHANISM, MedianMethod, private_medians
from .complete_tree import finish_complete_tree
from .kdtree import (
    DEFAULT_COUNT_FRACTION,
    DEFAULT_HEIGHT,
    DEFAULT_PRUNE,
    check_common,
    complete_tree,
    measure_tree,
    median_count_budget,
)
from .spec import MethodSpec, doc

MAX_ORDER = 26   # 4^26 positions: smooth sensitivity still computes them exactly in float64
DEFAULT_ORDER = 18
# its arrays over the occupied curve positions (positions, weights, the level's offsets and medians' work)
# at their peak: about 50 bytes a position, measured (docs/decisions/memory-limit.md)
BYTES_PER_POSITION = 64


def hilbert_positions(kx: np.ndarray, ky: np.ndarray, memo: dict, bits: int, order: int) -> np.ndarray:
    """Keyer: curve positions of grid keys (order <= bits: a curve cell is a block of grid cells)."""
    shift = bits - order
    return hilbert_curve.encode(order, kx >> shift, ky >> shift) if shift else hilbert_curve.encode(order, kx, ky)


def distinct_positions(ps: KeySource, order: int) -> tuple[np.ndarray, np.ndarray]:
    """The occupied curve positions, sorted, with their point counts, from one pass. A curve position
    determines its node at every level (nodes own ranges of positions), so this one pass holds all the
    level passes would read; the levels then work in memory on the distinct positions, the counts
    weighting the medians (memory: occupied positions, not points)."""
    return ps.grouped(partial(hilbert_positions, bits=ps.grid.bits, order=order))


def build_hilbert(ps: PointSet, domain: Domain, epsilon: float, rnd: Randomness, *, height: int = DEFAULT_HEIGHT,
                  order: int = DEFAULT_ORDER, count_fraction: Share = DEFAULT_COUNT_FRACTION,
                  budget: Plan = "geometric", median: MedianMethod = "em", sample_rate: float = 1.0,
                  delta: float = 1e-5, postprocess: bool = True,
                  prune: float | None = DEFAULT_PRUNE) -> Release:
    """Hilbert R-tree with ``height`` fanout-4 levels over a curve of the given order."""
    order, capped = cap_by_resolution(check_int(order, "order", 1, MAX_ORDER), ps.grid.bits, "order",
                                      ps.grid.bits)
    order, lowered = cap_cells(order, lambda b: 4 ** b, "order", BYTES_PER_POSITION)   # 4^order positions at most
    height, capped_height = check_common(height, count_fraction, prune, order)   # 2 h halvings of 4^order
    ledger = Ledger(epsilon)
    eps_count, eps_binary = median_count_budget(epsilon, height, 2 * height, count_fraction, budget,
                                                median, sample_rate)
    h, weight = distinct_positions(ps, order)
    lo = np.zeros(1, dtype=np.int64)
    hi = np.full(1, 4 ** order, dtype=np.int64)
    offsets = np.array([0, h.size], dtype=np.int64)
    for t in range(2 * height):
        report(t, 2 * height, "Hilbert split levels")
        # noisy mean: the sum of (position - lo) has sensitivity = the range's length (widest recorded)
        ledger.spend("median", eps_binary, MECHANISM[median], level=t // 2, nodes=lo.size,
                     sensitivity=float((hi - lo).max()) if median == "noisymean" else 1.0,
                     delta=delta if median == "smooth" else 0.0, note=f"Hilbert split, binary depth {t}"
                     + (f", Bernoulli sample p={sample_rate:g} (Theorem 7)" if sample_rate < 1 else ""))
        split = private_medians(rnd.rng, h, offsets, lo, hi, eps_binary, median,
                                sample_rate=sample_rate, delta=delta, weights=weight)
        cut = np.searchsorted(h, split, side="left")
        lo, hi = np.column_stack([lo, split]).ravel(), np.column_stack([split, hi]).ravel()
        offsets = np.r_[np.column_stack([offsets[:-1], cut]).ravel(), h.size]
    noisy, var = measure_tree(rnd, ledger, np.diff(np.r_[0, np.cumsum(weight)][offsets]), height, eps_count)
    rects = hilbert_curve.range_rects(ps.grid, order, lo, hi)
    levels = [rects]
    for _ in range(height):
        r = levels[-1].reshape(-1, 4, 4)
        levels.append(np.column_stack([r[:, :, 0].min(1), r[:, :, 1].min(1), r[:, :, 2].max(1), r[:, :, 3].max(1)]))
    s = complete_tree(levels[::-1], domain, height)
    tree = FlatTree(noisy=noisy, noise_var=var, count_eps=eps_count[s["depth"]],
                    split_eps=np.where(s["depth"] < height, 2 * eps_binary, 0.0), **s)
    params = {"height": height, "order": order, "count_fraction": count_fraction, "budget": budget,
              "median": median, "sample_rate": sample_rate, "postprocess": bool(postprocess), "prune": prune}
    rel = finish_complete_tree(tree, eps_count, 4, ps, domain, ledger, rnd, "hilbert", params, regular=False,
                               postprocess=postprocess, prune=prune, parallel=CurveRanges.of(lo, hi), data_cuts=height)
    ranges = node_ranges(lo, hi, height)
    return rel.evolve(curve=ranges if rel.kept is None else ranges[rel.kept]).with_notes(capped, lowered, capped_height)


def node_ranges(lo: np.ndarray, hi: np.ndarray, height: int) -> np.ndarray:
    """(n, 2) curve range [lo, hi) of every node of the complete fanout-4 tree over the leaf ranges
    ``lo``, ``hi`` (in curve order), nodes in level order as :func:`complete_tree` numbers them: a node
    at depth d owns the run of 4^(height - d) consecutive leaf ranges below it. Saved with the release,
    so a loaded file's disjointness is checked from its ranges (:func:`psdviz.publish.release_checks
    .check_curve_ranges`), not believed."""
    return np.concatenate([np.column_stack([lo[::4 ** (height - d)], hi[4 ** (height - d) - 1::4 ** (height - d)]])
                           for d in range(height + 1)])


# what this module declares (psdviz/methods/spec.py): parameters whose meaning is its own, then the method
PARAMS = {
    "order": doc("Hilbert curve order: points are snapped to a 2^order x 2^order grid before the curve orders "
                 "them (capped by the resolution).", "ICDE'12 sections 3.3, 8", 1, MAX_ORDER),
}

SPEC = MethodSpec("hilbert", build_hilbert, paper="ICDE'12 (Cormode et al.), sections 3.3 and 8", params=PARAMS, rank=5)
