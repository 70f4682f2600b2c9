"""Exact range counts (psdviz.query.truth) against a brute-force loop, boundary cases included."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import psdviz as pv
from psdviz.query.truth import PointIndex


def brute(points: np.ndarray, rects: np.ndarray) -> np.ndarray:
    out = []
    for r in rects:                                   # closed rectangles, one query at a time
        x, y = points[:, 0], points[:, 1]
        out.append(int(((r[0] <= x) & (x <= r[2]) & (r[1] <= y) & (y <= r[3])).sum()))
    return np.array(out)


def rects_from(rng, lo, hi, k):
    x = np.sort(rng.uniform(lo, hi, (k, 2)), axis=1)
    y = np.sort(rng.uniform(lo, hi, (k, 2)), axis=1)
    return np.column_stack([x[:, 0], y[:, 0], x[:, 1], y[:, 1]])


def test_random_points_and_rects():
    rng = np.random.default_rng(0)
    p = np.vstack([rng.normal(0, 1, (1500, 2)), rng.uniform(-3, 3, (500, 2))])
    r = rects_from(rng, -3.5, 3.5, 300)
    np.testing.assert_array_equal(pv.true_answer(p, r), brute(p, r))


def test_boundary_cases_on_a_lattice():
    """Integer lattice points with duplicates; rect edges through points, degenerate rects,
    rects beyond the data's extent and entirely outside it."""
    rng = np.random.default_rng(1)
    p = rng.integers(0, 10, (800, 2)).astype(float)
    k = rng.integers(-1, 11, (200, 4)).astype(float)
    r = np.column_stack([np.minimum(k[:, 0], k[:, 2]), np.minimum(k[:, 1], k[:, 3]),
                         np.maximum(k[:, 0], k[:, 2]), np.maximum(k[:, 1], k[:, 3])])
    special = np.array([[3, 3, 3, 3], [0, 0, 9, 9], [-5, -5, -1, -1], [9, 9, 20, 20],
                        [2, -100, 2, 100], [-100, 7, 100, 7], [10.5, 0, 12, 9]], dtype=float)
    r = np.vstack([r, special])
    np.testing.assert_array_equal(pv.true_answer(p, r), brute(p, r))


def test_degenerate_point_sets():
    same = np.full((50, 2), 2.5)
    r = np.array([[2.5, 2.5, 2.5, 2.5], [0, 0, 2.4, 9], [2.5, 0, 9, 2.5], [0, 0, 1, 1]])
    np.testing.assert_array_equal(pv.true_answer(same, r), [50, 0, 50, 0])
    line = np.column_stack([np.linspace(0, 1, 101), np.zeros(101)])
    np.testing.assert_array_equal(pv.true_answer(line, [[0.25, 0, 0.5, 0]]), [26])
    np.testing.assert_array_equal(pv.true_answer([[1.0, 1.0]], [[0, 0, 1, 1], [1.1, 0, 2, 2]]), [1, 0])


def test_index_is_reusable_and_chunked():
    rng = np.random.default_rng(2)
    p = rng.uniform(0, 1, (3000, 2))
    idx = PointIndex(p)
    r = rects_from(rng, 0, 1, 5000)                    # more than one chunk of queries
    got = idx.count(r)
    sub = np.r_[0:50, 4950:5000]
    np.testing.assert_array_equal(got[sub], brute(p, r[sub]))
    np.testing.assert_array_equal(idx.count(r[:10]), got[:10])


coord = st.floats(-5, 5, allow_nan=False, allow_infinity=False).map(lambda v: round(v, 1))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(coord, coord), min_size=1, max_size=60),
       st.lists(st.tuples(coord, coord, coord, coord), min_size=1, max_size=10))
def test_property_matches_brute_force(pts, raw):
    p = np.array(pts, dtype=float)
    r = np.array([[min(a, c), min(b, d), max(a, c), max(b, d)] for a, b, c, d in raw])
    np.testing.assert_array_equal(pv.true_answer(p, r), brute(p, r))
