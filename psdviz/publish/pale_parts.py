"""Finer parts of a viewed cell that the release tells apart from the cell and cannot tell from empty.

A view above a tree's leaves paints each cell the colour of its average density, a claim that the
cell is evenly filled. Where a finer node inside it is within noise of zero
(:func:`psdviz.publish.cells.within_noise`) and its estimate lies more than ``k`` noise standard
deviations below its area's share of the cell's estimate, the release itself contradicts that claim
there: the part is drawn pale over its cell (docs/decisions/honest-colours.md, "Pale parts"). So a
kd-tree strip that holds a few islands does not carry their colour over the ocean beside them, while
a part whose finer count is merely noisy keeps its cell's colour.

Only trees whose children tile their parent (not the Hilbert R-tree, whose boxes overlap) and only nodes
down to the deepest level whose view has at most ``max_cells`` cells, so a map never draws more than
that many parts. Reads released values only (rectangles, estimates, noisy counts, noise variances):
post-processing, no privacy cost.
"""
from __future__ import annotations

import numpy as np

from ..core.ragged import runs
from .cells import deepest_fitting, within_noise
from .spatial import SpatialRelease

PARTS_CELLS = 5000   # parts are looked for down to the deepest level whose view has at most this many cells


def pale_parts(release: SpatialRelease, nodes: np.ndarray, k: float = 2.0,
               max_cells: int = PARTS_CELLS) -> np.ndarray:
    """Node ids of the largest finer parts of the view's cells ``nodes`` to be drawn pale over them.

    Parameters
    ----------
    release : SpatialRelease
        The release viewed.
    nodes : numpy.ndarray
        The cells of the view (:func:`psdviz.publish.cells.frontier`).
    k : float
        Standard deviations of both tests: the part's estimate below ``k`` noise sds of its own noisy
        count, and ``k`` sds (of the difference, the part's noise and its share of the cell's) below
        the cell's estimate times the part's share of the cell's area.
    max_cells : int
        Parts are looked for down to the deepest level whose view has at most this many cells.

    Returns
    -------
    numpy.ndarray
        Node ids, none inside another; empty for a view of leaves, a tree whose boxes overlap, or one
        without noise variances.
    """
    t = release.tree
    nodes = np.asarray(nodes, dtype=np.int64)
    if release.curve is not None or t.noise_var is None or nodes.size == 0:
        return np.zeros(0, np.int64)
    bottom = min(deepest_fitting(t, max_cells), t.height)
    owner = np.full(t.parent.size, -1, np.int64)      # the viewed cell each node lies in
    owner[nodes] = nodes
    pale = np.zeros(t.parent.size, bool)
    covered = np.zeros(t.parent.size, bool)           # inside a pale part already
    starts = t.level_bounds()                         # nodes are stored level by level
    for d in range(1, bottom + 1):                    # one vectorised step per level
        level = np.arange(starts[d], starts[d + 1])
        parent = t.parent[level]
        below = owner[level] < 0
        owner[level] = np.where(below, owner[parent], owner[level])
        covered[level] = covered[parent] | pale[parent]
        part = level[below & (owner[level] >= 0)]
        pale[part] = _emptier_than_cell(t, part, owner[part], k)
    return np.flatnonzero(pale & ~covered)


def _emptier_than_cell(t, part: np.ndarray, cell: np.ndarray, k: float) -> np.ndarray:
    """Within noise of zero and ``k`` sds below the part's area share of its cell's estimate."""
    def area(ids: np.ndarray) -> np.ndarray:
        r = t.rect[ids]
        return (r[:, 2] - r[:, 0]) * (r[:, 3] - r[:, 1])
    cell_area = area(cell)
    share = np.divide(area(part), cell_area, out=np.zeros(part.size), where=cell_area > 0)
    sd = np.sqrt(t.noise_var[part] + share ** 2 * t.noise_var[cell])   # NaN where either was not measured
    with np.errstate(invalid="ignore"):
        below = t.est[part] + k * sd < np.maximum(t.est[cell], 0.0) * share
    return within_noise(t, part, k) & below


def cell_pieces(release: SpatialRelease, nodes: np.ndarray, parts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The disjoint nodes a map draws for the cells ``nodes`` that hold pale ``parts``.

    Every such cell is drawn as the parts inside it and, around them, the largest nodes that hold no part
    (the children of each strict ancestor of a part that are not ancestors themselves), so a part is never
    drawn over its cell's colour. Returns (node ids, index into ``nodes`` of the cell each lies in); the
    parts are among the ids, drawn pale, the others take their cell's class."""
    t = release.tree
    nodes = np.asarray(nodes, dtype=np.int64)
    parts = np.asarray(parts, dtype=np.int64)
    if parts.size == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    above = np.zeros(t.parent.size, bool)            # strict ancestors of a part, up to its cell
    in_view = np.zeros(t.parent.size, bool)
    in_view[nodes] = True
    cur = t.parent[parts]
    while cur.size:
        above[cur] = True
        cur = t.parent[cur[~in_view[cur]]]
        cur = cur[cur >= 0]
    opened = np.flatnonzero(above)
    kids = runs(t.first_child[opened], t.n_children[opened])   # children are stored together
    pieces = kids[~above[kids]]
    pos = np.full(t.parent.size, -1, np.int64)
    pos[nodes] = np.arange(nodes.size)
    cell = pos[pieces]
    hops = pieces.copy()
    while (cell < 0).any():                          # climb to the viewed cell (one step per level)
        hops = np.where(cell < 0, t.parent[hops], hops)
        cell = np.where(cell < 0, pos[hops], cell)
    return pieces, cell
