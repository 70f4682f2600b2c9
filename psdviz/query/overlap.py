"""How much of each rectangular cell a polygon covers: the weights of a region's answer under the
uniformity assumption (a region takes each cell's estimate in proportion to the overlapped share of
the cell's area). Vectorised in shapely: one spatial-index query and one batch of intersections."""
from __future__ import annotations

import numpy as np

from ..core.optional import require


def cell_shares(rects: np.ndarray, geometry: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(region, cell, share): the share of each cell's area that each region covers, for every pair
    that overlaps (sparse; vectorised in shapely). A zero-area cell takes share 1 where it touches."""
    shapely = require("shapely", "region layers")
    boxes = shapely.box(rects[:, 0], rects[:, 1], rects[:, 2], rects[:, 3])
    tree = shapely.STRtree(boxes)
    reg, cell = tree.query(geometry, predicate="intersects")
    area = (rects[cell, 2] - rects[cell, 0]) * (rects[cell, 3] - rects[cell, 1])
    inter = shapely.area(shapely.intersection(geometry[reg], boxes[cell]))
    share = np.where(area > 0, inter / np.where(area > 0, area, 1.0), 1.0)
    keep = share > 0
    return reg[keep], cell[keep], np.minimum(share[keep], 1.0)

