"""Errors that depend on the data: an input with no point inside
the domain must release (pure noise) exactly like an input with one point inside, for every method;
otherwise the error itself reveals whether the point is there."""
from __future__ import annotations

import numpy as np
import pytest

import psdviz as pv

DOM = pv.Domain(0.0, 0.0, 1.0, 1.0)
ALL_METHODS = pv.METHODS + pv.REFERENCES


@pytest.mark.parametrize("method", ALL_METHODS)
@pytest.mark.parametrize("data", [np.zeros((0, 2)), [], np.array([[5.0, 5.0], [-1.0, 0.5]])],
                         ids=["empty", "empty-list", "all-outside"])
def test_no_point_inside_still_releases(method, data):
    rel = pv.build(data, DOM, method, 1.0, seed=3)
    with_one = pv.build(np.array([[0.5, 0.5]]), DOM, method, 1.0, seed=3)
    assert rel.tree.n_nodes >= 1 and with_one.tree.n_nodes >= 1
    assert rel.ledger.total() <= 1.0 + 1e-9
    q = [[0.0, 0.0, 0.5, 0.5], [0.2, 0.1, 0.9, 0.8]]
    assert np.isfinite(rel.answer(q)).all() and np.isfinite(rel.answer_variance(q)).all()
    # the data owner can still see that nothing was used (not part of the release)
    assert rel.input_report["rows_used"] == 0


def test_empty_release_is_noise_around_zero():
    """With no data every released leaf count is pure geometric noise: mean 0 within 5 standard errors."""
    rel = pv.build(np.zeros((0, 2)), DOM, "ug", 1.0, seed=4, grid_size=64)
    leaves = rel.tree.noisy[rel.tree.is_leaf]
    sd = np.sqrt(rel.tree.noise_var[rel.tree.is_leaf][0])
    assert abs(leaves.mean()) <= 5 * sd / np.sqrt(leaves.size)
    assert leaves.std() == pytest.approx(sd, rel=0.1)
