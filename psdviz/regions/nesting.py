"""Levels from several single-level layers: each region's parent is the region of the level above
that holds the largest part of its area (public geometry only).

A region is refused when less than ``within`` of its area lies inside that parent: a release counts
a parent as the sum of its children, so a child straddling its parent's border would put points that
lie outside the parent into the parent's count.
"""
from __future__ import annotations

import numpy as np

from ..core.errors import InputDataError
from ..core.optional import require
from ..core.ragged import run_starts

WITHIN = 0.99   # share of a region's area that must lie inside its parent (generalised outlines differ a little)


def parents_by_area(children: np.ndarray, parents: np.ndarray, child_ids, parent_ids, level: int,
                    within: float = WITHIN) -> np.ndarray:
    """For each polygon of ``children``, the row of the polygon of ``parents`` covering most of its
    area; a ValueError naming the first child with less than ``within`` of its area inside any one
    parent (level: the children's level, for the message)."""
    shapely = require("shapely", "region layers")
    tree = shapely.STRtree(parents)
    c, p = tree.query(children, predicate="intersects")
    inside = shapely.area(shapely.intersection(children[c], parents[p]))
    order = np.lexsort((-inside, c))                  # per child, the largest overlap first
    c, p, inside = c[order], p[order], inside[order]
    first = run_starts(c)
    best = np.full(children.size, -1, dtype=np.int64)
    share = np.zeros(children.size)
    area = shapely.area(children)
    best[c[first]] = p[first]
    share[c[first]] = inside[first] / np.maximum(area[c[first]], 1e-300)
    bad = np.flatnonzero(share < within)
    if bad.size:
        i = int(bad[0])
        where = (f"{share[i]:.1%} of its area inside {parent_ids[best[i]]!r}, the most of any region of level "
                 f"{level - 1}") if best[i] >= 0 else f"no part of it inside a region of level {level - 1}"
        raise InputDataError(f"region {child_ids[i]!r} of level {level} has {where}; each region must lie (at least "
                             f"{within:.0%}) inside one region of the level above: fix the layers or pass a lower "
                             "within=")
    return best
