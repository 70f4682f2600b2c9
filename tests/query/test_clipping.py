"""Rings clipped level by level equal shapely's intersections, and a crossed window is shapely's cut pair."""
from __future__ import annotations

import numpy as np
import pytest
import shapely
from shapely.geometry import MultiPolygon, Polygon, box

from psdviz.query.clipping import clip_pieces, crossed, piece_areas, ring_pieces


def _layer(rng) -> np.ndarray:
    """Concave stars, a polygon with a hole, a multipolygon and boxes whose edges lie on the windows' lines."""
    def star(cx, cy, k):
        a = np.sort(rng.uniform(0, 2 * np.pi, k))
        r = rng.uniform(0.3, 1.0, k) * np.where(np.arange(k) % 3 == 0, 0.4, 1.0)
        return Polygon(np.column_stack([cx + r * np.cos(a), cy + r * np.sin(a)]))
    shapes = [star(2, 2, 60), star(5, 5, 15),
              Polygon([(0, 0), (4, 0), (4, 4), (0, 4)], [[(1, 1), (3, 1), (3, 3), (1, 3)]]),
              MultiPolygon([box(5, 0.5, 6, 1.5), box(6.5, 0.5, 7.5, 3.5), star(7, 6, 12)]),
              box(0, 4, 2, 6), box(4, 4, 8, 8)]
    return np.array([shapely.make_valid(s) for s in shapes], dtype=object)


def _quadrants(rects: np.ndarray) -> np.ndarray:
    x0, y0, x1, y1 = rects.T
    xm, ym = (x0 + x1) / 2, (y0 + y1) / 2
    return np.stack([np.column_stack(c) for c in ((x0, y0, xm, ym), (xm, y0, x1, ym), (x0, ym, xm, y1),
                                                   (xm, ym, x1, y1))], 1).reshape(-1, 4)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_clipping_level_by_level_equals_shapely(seed):
    rng = np.random.default_rng(seed)
    geometry = _layer(rng)
    reg = np.arange(geometry.size)
    rects = np.tile([0.0, 0.0, 8.0, 8.0], (geometry.size, 1))
    pieces = clip_pieces(ring_pieces(geometry), reg, rects)
    for _ in range(5):                                   # every region against every node, down five levels
        parent = np.repeat(np.arange(reg.size), 4)
        reg, rects = reg[parent], _quadrants(rects)
        pieces = clip_pieces(pieces, parent, rects)
        want = shapely.area(shapely.intersection(geometry[reg], shapely.box(*rects.T)))
        np.testing.assert_allclose(piece_areas(pieces), want, atol=1e-12, rtol=1e-10)
        once = piece_areas(clip_pieces(ring_pieces(geometry), reg, rects))   # the whole rings clipped at once
        np.testing.assert_allclose(once, want, atol=1e-12, rtol=1e-10)
    assert (want > 0).mean() > 0.05 and (want == 0).any()


@pytest.mark.parametrize("seed", [0, 1])
def test_a_crossed_window_is_a_cut_pair_and_the_others_are_inside_or_apart(seed):
    rng = np.random.default_rng(seed)
    geometry = _layer(rng)
    reg = np.arange(geometry.size)
    rects = np.tile([0.0, 0.0, 8.0, 8.0], (geometry.size, 1))
    pieces = ring_pieces(geometry)
    parent = reg
    for _ in range(5):
        pieces = clip_pieces(pieces, parent, rects)
        cross, covered = crossed(pieces, rects), piece_areas(pieces)
        nodes = shapely.box(*rects.T)
        inside = shapely.contains(geometry[reg], nodes)
        meets = shapely.area(shapely.intersection(geometry[reg], nodes)) > 0
        np.testing.assert_array_equal(cross, meets & ~inside)         # shapely's cut, less mere touching
        area = (rects[:, 2] - rects[:, 0]) * (rects[:, 3] - rects[:, 1])
        np.testing.assert_array_equal(~cross & (covered > area / 2), inside)
        parent = np.repeat(np.arange(reg.size), 4)
        reg, rects = reg[parent], _quadrants(rects)
    assert cross.any() and inside.any()


def test_nothing_to_clip_gives_empty_windows():
    geometry = np.array([box(0, 0, 1, 1)], dtype=object)
    far = clip_pieces(ring_pieces(geometry), np.array([0, 0]), np.array([[5, 5, 6, 6], [2, 2, 3, 3.0]]))
    np.testing.assert_array_equal(piece_areas(far), [0.0, 0.0])
    assert not crossed(far, np.array([[5, 5, 6, 6], [2, 2, 3, 3.0]])).any()
    again = clip_pieces(far, np.array([1]), np.array([[2, 2, 2.5, 2.5]]))
    np.testing.assert_array_equal(piece_areas(again), [0.0])
