"""Workloads (shape / centred / non-empty) and error metrics (Qardaji et al.'s rho = 0.001 N)."""
import numpy as np
import pytest

import psdviz as pv
from psdviz.lab.metrics import absolute_error, relative_error, summarize
from psdviz.lab.workloads import centered_queries, nonempty, shape_queries
from psdviz.query.truth import PointIndex

DOM = pv.Domain(-180, -90, 180, 90)


def test_shape_queries_have_the_shape_and_fit_the_domain():
    r = shape_queries(DOM, 15, 0.2, 1000, np.random.default_rng(0))
    np.testing.assert_allclose(r[:, 2] - r[:, 0], 15)
    np.testing.assert_allclose(r[:, 3] - r[:, 1], 0.2)
    assert (r[:, 0] >= -180).all() and (r[:, 2] <= 180).all()
    assert (r[:, 1] >= -90).all() and (r[:, 3] <= 90).all()
    with pytest.raises(ValueError, match="must be positive and fit in the domain"):
        shape_queries(DOM, 400, 1, 10, np.random.default_rng(0))


def test_centered_queries_area_and_clipping():
    pts = np.array([[0.0, 0.0], [179.0, 89.0]])
    r = centered_queries(pts, DOM, 0.01, 200, np.random.default_rng(1))
    area = (r[:, 2] - r[:, 0]) * (r[:, 3] - r[:, 1])
    assert (area <= 0.01 * DOM.area + 1e-9).all()
    centred = r[:, 0] < 0
    np.testing.assert_allclose(area[centred], 0.01 * DOM.area)
    assert (r[:, 2] <= 180).all() and (r[:, 3] <= 90).all()


def test_nonempty_returns_k_queries_with_positive_truth():
    rng = np.random.default_rng(2)
    pts = rng.normal(0, 5, (2000, 2))
    idx = PointIndex(pts)
    r, t = nonempty(lambda k: shape_queries(pv.Domain(-20, -20, 20, 20), 1, 1, k, rng), idx, 100)
    assert r.shape == (100, 4) and (t > 0).all()
    np.testing.assert_array_equal(t, pv.true_answer(pts, r))


def test_relative_error_uses_rho_floor():
    n = 100_000                      # rho = 100
    est = np.array([110.0, 5.0, 1000.0])
    tru = np.array([100.0, 0.0, 900.0])
    np.testing.assert_allclose(relative_error(est, tru, n), [0.1, 0.05, 100 / 900])
    np.testing.assert_allclose(absolute_error(est, tru), [10, 5, 100])
    s = summarize([1.0, 2.0, 3.0, 10.0])
    assert s["median"] == 2.5 and s["mean"] == 4.0 and s["n"] == 4
