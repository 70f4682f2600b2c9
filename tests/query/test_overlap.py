"""The area of a polygon inside a rectangle, clipped on flat arrays, against shapely's intersection."""
from __future__ import annotations

import numpy as np
import pytest
import shapely
from shapely.geometry import MultiPolygon, Polygon, box

from psdviz.query.overlap import box_overlap_areas, boxes, cell_shares


def _star(cx: float, cy: float, k: int, rng) -> Polygon:
    """A concave star-shaped ring of k points (every third one pulled in)."""
    a = np.sort(rng.uniform(0, 2 * np.pi, k))
    r = rng.uniform(0.3, 1.0, k) * np.where(np.arange(k) % 3 == 0, 0.4, 1.0)
    return Polygon(np.column_stack([cx + r * np.cos(a), cy + r * np.sin(a)]))


def _layer(rng) -> np.ndarray:
    shapes = [_star(0, 0, 40, rng), _star(3, 1, 9, rng),
              Polygon([(-2, -2), (2, -2), (2, 2), (-2, 2)], [[(-1, -1), (1, -1), (1, 1), (-1, 1)]]),   # a hole
              MultiPolygon([box(5, 5, 6, 6), box(7, 5, 8, 7), _star(6, 8, 12, rng)]),
              box(-3, 4, -1, 4.5), Polygon()]
    return np.array([shapely.make_valid(s) if not s.is_empty else s for s in shapes], dtype=object)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_clipped_areas_equal_shapely_intersections(seed):
    rng = np.random.default_rng(seed)
    geometry = _layer(rng)
    k = 3_000
    reg = rng.integers(0, geometry.size, k)
    b = shapely.bounds(geometry[reg])
    near = np.nan_to_num((b[:, :2] + b[:, 2:]) / 2)
    lo = near + rng.uniform(-2.5, 1.0, (k, 2))
    rects = np.column_stack([lo, lo + rng.uniform(0.0, 3.0, (k, 2))])
    rects[:50, 2] = rects[:50, 0]                              # zero width: no area
    want = shapely.area(shapely.intersection(geometry[reg], shapely.box(*rects.T)))
    got = box_overlap_areas(geometry, reg, rects)
    np.testing.assert_allclose(got, want, atol=1e-12, rtol=1e-10)
    assert (want > 0).mean() > 0.3 and (want == 0).any()    # both kinds of pair were tried


def test_cell_shares_cover_a_region_split_into_cells():
    rng = np.random.default_rng(3)
    geometry = _layer(rng)[:4]
    edges = np.linspace(-4, 10, 15)
    x0, y0 = np.meshgrid(edges[:-1], edges[:-1])
    step = edges[1] - edges[0]
    rects = np.column_stack([x0.ravel(), y0.ravel(), x0.ravel() + step, y0.ravel() + step])
    reg, cell, share = cell_shares(rects, geometry)
    covered = np.bincount(reg, weights=share * step * step, minlength=geometry.size)
    np.testing.assert_allclose(covered, shapely.area(geometry), rtol=1e-12)
    assert (share > 0).all() and (share <= 1).all()


def test_boxes_are_shapelys_own_rings():
    rects = np.column_stack([np.random.default_rng(0).random((500, 2)) * 10, np.zeros((500, 2))])
    rects[:, 2:] = rects[:, :2] + np.random.default_rng(1).random((500, 2))
    rects[0] = [1.0, 1.0, 1.0, 3.0]                     # a zero-width box too
    got, want = boxes(rects), shapely.box(*rects.T)
    assert shapely.equals_exact(got, want, tolerance=0).all()
    assert boxes(np.zeros((0, 4))).size == 0
