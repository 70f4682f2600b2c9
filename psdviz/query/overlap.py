"""How much of each rectangular cell a polygon covers: the weights of a region's answer under the
uniformity assumption (a region takes each cell's estimate in proportion to the overlapped share of
the cell's area). Vectorised in shapely: one spatial-index query and one batch of intersections."""
from __future__ import annotations

import numpy as np


def cell_shares(rects: np.ndarray, geometry: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(region, cell, share): the share of each cell's area that each region covers, for every pair
    that overlaps (sparse; vectorised in shapely). A zero-area cell takes share 1 where it touches."""
    import shapely
    boxes = shapely.box(rects[:, 0], rects[:, 1], rects[:, 2], rects[:, 3])
    tree = shapely.STRtree(boxes)
    reg, cell = tree.query(geometry, predicate="intersects")
    area = (rects[cell, 2] - rects[cell, 0]) * (rects[cell, 3] - rects[cell, 1])
    inter = shapely.area(shapely.intersection(geometry[reg], boxes[cell]))
    share = np.where(area > 0, inter / np.where(area > 0, area, 1.0), 1.0)
    keep = share > 0
    return reg[keep], cell[keep], np.minimum(share[keep], 1.0)


def rect_shares(cells: np.ndarray, rects: np.ndarray, chunk: int = 1 << 22) -> tuple[np.ndarray, np.ndarray,
                                                                                    np.ndarray]:
    """:func:`cell_shares` for axis-aligned query rectangles, in numpy (no polygons): (query, cell, share)
    for every overlapping pair, the queries taken a few at a time so that queries x cells stays below
    ``chunk``."""
    out = []
    step = max(1, chunk // max(len(cells), 1))
    area = (cells[:, 2] - cells[:, 0]) * (cells[:, 3] - cells[:, 1])
    for s in range(0, len(rects), step):
        r = rects[s:s + step]
        w = np.minimum(r[:, None, 2], cells[None, :, 2]) - np.maximum(r[:, None, 0], cells[None, :, 0])
        h = np.minimum(r[:, None, 3], cells[None, :, 3]) - np.maximum(r[:, None, 1], cells[None, :, 1])
        q, c = np.nonzero((w > 0) & (h > 0))
        out.append((q + s, c, np.minimum(w[q, c] * h[q, c] / np.where(area[c] > 0, area[c], 1.0), 1.0)))
    if not out:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
    return tuple(np.concatenate(parts) for parts in zip(*out))
