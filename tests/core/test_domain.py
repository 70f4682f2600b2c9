"""Domain and input validation: each error names the parameter and its limit."""
import numpy as np
import pytest

import psdviz as pv
from psdviz.core.domain import prepare_points, validate_rects
from psdviz.core.rng import FRESH, SEEDED

DOM = pv.Domain(0, 0, 10, 10)


def pts(n=500, seed=0):
    return np.random.default_rng(seed).uniform(0, 10, (n, 2))


@pytest.mark.parametrize("bounds", [(0, 0, 0, 1), (1, 0, 0, 1), (0, 0, 1, np.nan), (0, -np.inf, 1, 1)])
def test_bad_domain(bounds):
    with pytest.raises(ValueError, match="Domain"):
        pv.Domain(*bounds)


def test_nonfinite_rows_are_refused_with_their_count_or_dropped_and_reported():
    p = pts()
    p[[3, 7, 11], 0] = np.nan
    p[20, 1] = np.inf
    with pytest.raises(ValueError, match="4 of 500 rows contain NaN or inf"):
        pv.build(p, DOM, method="quadtree", epsilon=1.0, seed=0, height=3)
    rel = pv.build(p, DOM, method="quadtree", epsilon=1.0, seed=0, nonfinite="drop", height=3)
    assert rel.input_report["rows_nonfinite_dropped"] == 4
    assert rel.input_report["rows_used"] == 496


def test_outside_points_dropped_or_clipped_and_reported():
    p = np.vstack([pts(), [[-1, 5], [11, 5], [5, 10.5], [10, 10]]])   # (10, 10) is inside (closed)
    dropped = prepare_points(p, DOM, outside="drop")
    assert dropped.n_outside == 3 and dropped.n == 501
    clipped = prepare_points(p, DOM, outside="clip")
    assert clipped.n_outside == 3 and clipped.n == 504
    np.testing.assert_array_equal(clipped.xy[-4:], [[0, 5], [10, 5], [5, 10], [10, 10]])
    rel = pv.build(p, DOM, method="quadtree", epsilon=1.0, seed=0, outside="clip", height=3)
    assert rel.input_report["rows_outside_domain"] == 3
    assert rel.input_report["outside_rows"] == "clipped to the boundary"
    assert pv.build(p, DOM, method="quadtree", epsilon=1.0, seed=0, height=3).input_report["outside_rows"] == "dropped"


def test_callers_array_is_never_modified():
    p = np.vstack([pts(), [[-1, 5], [np.nan, 1.0]]])
    before = p.copy()
    pv.build(p, DOM, method="quadtree", epsilon=1.0, seed=0, outside="clip", nonfinite="drop", height=3)
    pv.build(p, DOM, method="ug", epsilon=1.0, seed=0, outside="clip", nonfinite="drop")
    prepare_points(p, DOM, outside="clip", nonfinite="drop")
    np.testing.assert_array_equal(p, before)
    r = np.array([[1.0, 1.0, 2.0, 2.0]])
    r0 = r.copy()
    pv.true_answer(p[:500], r)
    np.testing.assert_array_equal(r, r0)


def test_empty_and_all_outside_input_release_noise():
    """No longer an error (a data-dependent error leaks): the release is pure noise, and the owner's
    report says no row was used (tests/privacy/test_data_dependent_errors.py covers every method)."""
    rel = pv.build(np.empty((0, 2)), DOM, method="quadtree", epsilon=1.0, height=3)
    assert rel.input_report["rows_in"] == 0 and rel.input_report["rows_used"] == 0
    rel = pv.build([[20, 20], [30, 30]], DOM, method="quadtree", epsilon=1.0, height=3)
    assert rel.input_report["rows_in"] == 2 and rel.input_report["rows_outside_domain"] == 2


@pytest.mark.parametrize("shape", [(5,), (5, 3), (2, 2, 2)])
def test_bad_point_shape(shape):
    with pytest.raises(ValueError, match=r"shape \(n, 2\)"):
        pv.build(np.zeros(shape), DOM, method="quadtree", epsilon=1.0, height=3)


@pytest.mark.parametrize("eps", [0, -0.5, np.inf, np.nan, "abc", 1e7])
def test_bad_epsilon_names_the_limit(eps):
    with pytest.raises(ValueError, match="epsilon must"):
        pv.build(pts(), DOM, method="quadtree", epsilon=eps, height=3)


def test_height_beyond_cap_names_the_limit():
    with pytest.raises(ValueError, match=r"height 12 \(at most 11 fits\).*memory cap of 6,000,000 nodes"):
        pv.build(pts(), DOM, method="quadtree", epsilon=1.0, height=12)
    with pytest.raises(ValueError, match=r"height must be an integer in \[1, 64\]"):
        pv.build(pts(), DOM, method="quadtree", epsilon=1.0, height=0)
    with pytest.raises(ValueError, match="memory cap of 6,000,000 nodes"):
        pv.build(pts(), DOM, method="ug", epsilon=1.0, grid_size=3000)


def test_bad_modes_and_params():
    with pytest.raises(ValueError, match="outside must be one of"):
        pv.build(pts(), DOM, method="quadtree", epsilon=1.0, outside="wrap", height=3)
    with pytest.raises(ValueError, match="nonfinite must be one of"):
        pv.build(pts(), DOM, method="quadtree", epsilon=1.0, nonfinite="zero", height=3)
    with pytest.raises(ValueError, match="has no parameter"):
        pv.build(pts(), DOM, method="quadtree", epsilon=1.0, heigth=3, height=3)
    with pytest.raises(ValueError, match="unknown method"):
        pv.build(pts(), DOM, method="octree", epsilon=1.0, height=3)
    with pytest.raises(ValueError, match="declared by the user"):
        pv.build(pts(), (0, 0, 10, 10), method="quadtree", epsilon=1.0, height=3)


@pytest.mark.parametrize("rects", [[[1, 1, 0, 2]], [[0, 0, np.nan, 1]], [[0, 1, 2]]])
def test_bad_rects(rects):
    with pytest.raises(ValueError, match="rect"):
        validate_rects(rects)


@pytest.mark.parametrize("method", ["quadtree", "ug"])
def test_seed_reproducibility_and_randomness_label(method):
    p = pts()
    kw = {"height": 3} if method == "quadtree" else {}
    a = pv.build(p, DOM, method=method, epsilon=0.5, seed=42, **kw)
    b = pv.build(p, DOM, method=method, epsilon=0.5, seed=42, **kw)
    np.testing.assert_array_equal(a.tree.noisy, b.tree.noisy)
    assert a.randomness_mode == SEEDED and a.audit()["seed"] == 42 and "seed" not in a.report()
    c = pv.build(p, DOM, method=method, epsilon=0.5, **kw)
    d = pv.build(p, DOM, method=method, epsilon=0.5, **kw)
    assert c.randomness_mode == FRESH and c.audit()["seed"] is None
    assert not np.array_equal(c.tree.noisy, d.tree.noisy, equal_nan=True)   # fresh entropy differs
    with pytest.raises(ValueError, match="seed must be"):
        pv.build(p, DOM, method=method, epsilon=0.5, seed=-1)
    with pytest.raises(ValueError, match="seed must be"):
        pv.build(p, DOM, method=method, epsilon=0.5, seed=1.5)
