"""A region layer as a quadtree's workload: its canonical nodes per depth, counted top down.

Rule. A region answered from a consistent quadtree release is the sum of the nodes wholly inside it
(the largest ones, none inside another) plus its area share of each leaf its border cuts
(``Release.answer_regions`` takes shares of the leaves; least squares makes a node's estimate the sum of
its leaves', so the two agree). That is the canonical decomposition the rectangle workload counts
(:mod:`.workload_budget`), with polygons for rectangles: N_l is the number of (region, node) pairs at
depth l where the node is inside the region and its parent is not, and at the leaves each cut pair adds
its share squared. Every region of every level of the layer is one query.

Counting without visiting every node: start from the root paired with every region; at each depth a
pair is cut (a ring of the region crosses the node's inside), inside (not cut, the region covers the node)
or apart, and only the cut pairs are split into their four children for the next depth, so the work
follows the borders. Each pair's rings are its parent's pieces clipped to its node on flat arrays
(:mod:`psdviz.query.clipping`): a small node clips a few vertices, not its region's whole outline, and the
pieces give the cut pairs' areas at the last depth. A region's area in the nodes its border cuts is its
area in the domain less that of the nodes found inside it, so the height rule reads no other area.

Height. A rectangle workload can only cut a tree short (:func:`.workload_budget.deepest_used`); a layer
asks for depth: a region's answer takes the leaves its border cuts by area, spreading their points evenly
over them, and on county-sized regions that error, not the count noise, is most of it. The planned tree
for a layer is therefore at least as deep as the first depth at which on average at most half of a
region's area lies in leaves its border cuts (:func:`layer_plan`, which counts the nodes in the same pass),
within the node cap and the release grid; pruning during the build keeps it shallow
where the data are sparse. Measured: docs/decisions/workload-budget.md.

Privacy: the layer is public input and the counts are a function of it, the domain and the height; the
plan they give is then exactly a rectangle workload's (:func:`.workload_budget.workload_epsilons`).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..core.domain import Domain
from ..core.errors import InputDataError
from ..core.memo import PublicMemo
from ..core.optional import require
from ..core.progress import report
from ..core.workload import layer_digest
from ..query.clipping import clip_pieces, crossed, piece_areas, ring_pieces

CUT_SHARE = 0.5     # a layer's tree is deep enough when at most this share of a region's area lies in cut leaves
CHILD_X = np.array([0, 1, 0, 1])
CHILD_Y = np.array([0, 0, 1, 1])


def _rects(ix: np.ndarray, iy: np.ndarray, depth: int, domain: Domain) -> tuple[np.ndarray, float]:
    w, h = domain.width / (1 << depth), domain.height / (1 << depth)
    x0, y0 = domain.xmin + ix * w, domain.ymin + iy * h
    return np.column_stack([x0, y0, x0 + w, y0 + h]), w * h


class Depth(NamedTuple):
    """One depth of the top-down count: the open (region, node) pairs' regions, the node area, which pairs
    are inside and which cut, and the area of each pair's region in its node."""
    depth: int
    reg: np.ndarray
    area: float
    inside: np.ndarray
    cut: np.ndarray
    covered: np.ndarray


def _pairs(geometry: np.ndarray, domain: Domain, height: int):
    """Top down to ``height``: per depth, the (region, node) pairs still open (the node's parent was cut by
    the region), as a :class:`Depth`. Each pair's rings are its parent's pieces clipped to its node; a pair
    is cut where a ring crosses the node's inside, else inside where its region covers the node, else apart
    (it may touch the node's boundary: nothing of the region lies in the node or below it)."""
    pieces = ring_pieces(geometry)
    if pieces is None:
        raise InputDataError("a region layer as a workload takes polygons and multipolygons only")
    reg = parent = np.arange(geometry.size)
    ix = iy = np.zeros(geometry.size, np.int64)
    for d in range(height + 1):
        rects, area = _rects(ix, iy, d, domain)
        pieces = clip_pieces(pieces, parent, rects)
        covered = piece_areas(pieces)
        cut = crossed(pieces, rects)
        inside = ~cut & (covered > 0.5 * area)
        yield Depth(d, reg, area, inside, cut, covered)
        if d == height:
            return
        k = int(cut.sum())
        parent = np.repeat(np.flatnonzero(cut), 4)
        reg = np.repeat(reg[cut], 4)
        ix = 2 * np.repeat(ix[cut], 4) + np.tile(CHILD_X, k)
        iy = 2 * np.repeat(iy[cut], 4) + np.tile(CHILD_Y, k)


_PLANS: PublicMemo[tuple[int, np.ndarray]] = PublicMemo()


def layer_plan(geometry: np.ndarray, domain: Domain, height: int, limit: int,
               share: float = CUT_SHARE) -> tuple[int, np.ndarray]:
    """One top-down pass for a layer: the tree's depth, at least ``height`` and at most ``limit``, the
    first at which on average at most ``share`` of a region's area lies in nodes its border cuts
    (``share`` < 0: ``limit``), and the layer's N_l for that depth (module docstring). A function of public
    inputs alone: kept per layer (its outlines' digest), domain, heights and share for the process, so a
    rebuild with new noise or another epsilon does not count again."""
    key = (layer_digest(geometry), domain.xmin, domain.ymin, domain.xmax, domain.ymax, height, limit, share)
    depth, counts = _PLANS.get(key, lambda: _layer_plan(geometry, domain, height, limit, share))
    return depth, counts.copy()


def _layer_plan(geometry: np.ndarray, domain: Domain, height: int, limit: int,
                share: float) -> tuple[int, np.ndarray]:
    shapely = require("shapely", "region layers")
    region_area = np.maximum(shapely.area(geometry), 1e-300)
    uncovered = np.zeros(geometry.size)
    n = np.zeros(limit + 1)
    for step in _pairs(geometry, domain, limit):
        report(step.depth + 1, limit + 1, "depths planned for the regions")   # public: the layer's own passes
        if step.depth == 0:
            uncovered = step.covered.copy()                      # each region's area in the domain
        n[step.depth] += step.inside.sum()
        # a region's area in the nodes its border cuts is its area in the domain less that of the nodes inside it
        uncovered -= np.bincount(step.reg[step.inside], minlength=geometry.size) * step.area
        if step.depth < height:
            continue
        if step.depth == limit or (np.maximum(uncovered, 0.0) / region_area).mean() <= share:
            in_cut = step.covered[step.cut]
            n[step.depth] += float((np.minimum(in_cut / step.area, 1.0) ** 2).sum())
            return step.depth, n[:step.depth + 1]
    raise AssertionError("unreachable: the pass ends at its limit")


def region_canonical_counts(geometry: np.ndarray, domain: Domain, height: int) -> np.ndarray:
    """N_l per depth l = 0..height for the regions ``geometry`` (shapely polygons in the domain's
    coordinates): (region, node) pairs with the node inside the region and its parent not, and at the
    leaves the cut pairs' area shares squared (module docstring)."""
    return layer_plan(geometry, domain, height, height, share=-1.0)[1]

