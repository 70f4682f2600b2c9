"""pv.build(..., nonnegative=True): NNLS estimates as post-processing of the released counts."""
import numpy as np
import pytest

import psdviz as pv

DOM = pv.Domain(0, 0, 1, 1)


@pytest.fixture(scope="module")
def sparse_points():
    """Two thin lines and a heavy corner: most of the domain is empty (where the bound binds)."""
    rng = np.random.default_rng(5)
    corner = rng.uniform(0, 0.004, (3000, 2))
    row = np.column_stack([rng.uniform(0, 1, 400), rng.uniform(0, 0.004, 400)])
    col = np.column_stack([rng.uniform(0, 0.004, 400), rng.uniform(0, 1, 400)])
    return np.vstack([corner, row, col])


@pytest.mark.parametrize("method", [m for m in pv.METHODS if pv.method_spec(m).nonnegative])
def test_every_method_gets_non_negative_consistent_estimates(sparse_points, method):
    plain = pv.build(sparse_points, DOM, method, 0.2, seed=3)
    rel = pv.build(sparse_points, DOM, method, 0.2, seed=3, nonnegative=True)
    t = rel.tree
    assert (t.est[t.is_leaf] >= 0).all()
    np.testing.assert_allclose(t.subtree_sum(t.est), t.est, rtol=1e-9, atol=1e-6)
    # post-processing only: the same draws, the same released counts, the same ledger
    np.testing.assert_array_equal(t.noisy, plain.tree.noisy)
    assert rel.ledger.records() == plain.ledger.records()
    assert rel.query_model.inference == "nnls" and any("non-negative" in n for n in rel.notes)
    assert np.isfinite(rel.answer([[0.2, 0.2, 0.9, 0.9]])).all()


def test_binding_bound_changes_the_estimates(sparse_points):
    plain = pv.build(sparse_points, DOM, "hybrid", 0.1, seed=4)
    rel = pv.build(sparse_points, DOM, "hybrid", 0.1, seed=4, nonnegative=True)
    leaves = plain.tree.is_leaf
    assert (plain.tree.est[leaves] < 0).any()          # least squares puts negative mass somewhere
    assert not np.allclose(rel.tree.est, plain.tree.est)


def test_round_trip_through_a_release_file(sparse_points, tmp_path):
    rel = pv.build(sparse_points, DOM, "hybrid", 0.5, seed=6, nonnegative=True)
    back = pv.load_release(rel.save(tmp_path / "r.parquet", allow_seeded=True))
    q = np.array([[0, 0, 0.5, 0.5], [0.1, 0.3, 0.7, 0.9], [0, 0, 1, 1]])
    np.testing.assert_array_equal(back.answer(q), rel.answer(q))
    assert back.query_model.inference == "nnls"


def test_bad_flag_is_a_clear_error(sparse_points):
    with pytest.raises(ValueError, match="nonnegative"):
        pv.build(sparse_points, DOM, "quadtree", 0.5, seed=1, nonnegative="yes")
