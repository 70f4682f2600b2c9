"""User-level privacy: contribution bounding, user-level ledgers on every method, and a
ratio audit of neighbouring datasets that differ by one whole user."""
from __future__ import annotations

import numpy as np
import pytest
from test_grid_audit import ratio_ok

import psdviz as pv
from psdviz.core.contribution import bound_contributions, user_codes
from psdviz.core.rng import make_randomness

DOM = pv.Domain(0.0, 0.0, 1.0, 1.0)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(5)
    pts = np.vstack([rng.normal(0.3, 0.05, (2500, 2)), rng.random((1500, 2))]).clip(0, 1)
    users = rng.zipf(1.6, 4000) % 400     # heavy-tailed: a few users with many points
    return pts, users


def test_bounding_keeps_at_most_k_per_user_uniformly():
    codes = np.repeat(np.arange(4), [1, 3, 10, 50])
    rng = np.random.default_rng(0)
    keep = bound_contributions(codes, 3, rng)
    np.testing.assert_array_equal(np.bincount(codes[keep]), [1, 3, 3, 3])
    # which rows of the 50-row user are kept: uniform (each row kept with probability 3/50)
    runs = 4000
    hits = sum(bound_contributions(codes, 3, np.random.default_rng(s))[14:] for s in range(runs)).astype(float)
    p = 3 / 50
    assert np.abs(hits / runs - p).max() < 5 * np.sqrt(p * (1 - p) / runs)


def test_user_ids_are_checked():
    with pytest.raises(ValueError, match="one id per point"):
        user_codes([1, 2], 3)
    with pytest.raises(ValueError, match="NaN"):
        user_codes([1.0, np.nan], 2)
    with pytest.raises(ValueError, match="max_points_per_user"):
        pv.build(np.zeros((2, 2)) + 0.5, DOM, "ug", 1.0, user=[1, 2], max_points_per_user=0)
    with pytest.raises(ValueError, match="both user"):
        pv.build(np.zeros((2, 2)) + 0.5, DOM, "ug", 1.0, user=[1, 2])
    codes = user_codes(np.array(["b", "a", "b"], dtype=object), 3)
    assert codes[0] == codes[2] != codes[1]


@pytest.mark.parametrize("method", pv.METHODS)
def test_every_method_is_accounted_per_user(data, method, tmp_path):
    """Per-path ledger at user level: every step costs k times its per-point epsilon with
    sensitivity k, no root-to-leaf path exceeds epsilon, and the unit is named in report and file."""
    pts, users = data
    k, eps = 4, 1.0
    rel = pv.build(pts, DOM, method, eps, seed=9, resolution=12, user=users, max_points_per_user=k)
    rnd = make_randomness(9)     # the same stream: bounding first, then the per-point build at eps / k
    point = pv.build(pts[bound_contributions(user_codes(users, len(users)), k, rnd.rng)],
                     DOM, method, eps / k, seed=rnd, resolution=12)
    np.testing.assert_array_equal(rel.tree.noisy, point.tree.noisy)
    assert rel.ledger.total() <= eps * (1 + 1e-9)
    assert rel.tree.path_epsilons().max() <= eps * (1 + 1e-9)
    assert len(rel.ledger.spends) == len(point.ledger.spends)
    for su, sp in zip(rel.ledger.spends, point.ledger.spends):
        assert su.epsilon == pytest.approx(k * sp.epsilon) and su.sensitivity == k * sp.sensitivity
    np.testing.assert_allclose(rel.tree.path_epsilons(), k * point.tree.path_epsilons())
    assert rel.report()["privacy_unit"] == "one user, at most 4 points"
    assert pv.load_release(rel.save(tmp_path / "u.parquet",
                                    allow_seeded=True)).privacy_unit == "one user, at most 4 points"
    assert rel.audit()["rows_dropped_by_user_bound"] == len(users) - int(np.minimum(np.bincount(users), k).sum())


def test_without_user_nothing_changes(data):
    pts, _ = data
    a = pv.build(pts, DOM, "kdtree", 1.0, seed=3, resolution=12)
    assert a.privacy_unit == "one point" and a.report()["privacy_unit"] == "one point"


def test_smooth_medians_are_refused_at_user_level(data):
    pts, users = data
    with pytest.raises(ValueError, match="pure-epsilon"):
        pv.build(pts, DOM, "kdtree", 1.0, seed=1, user=users, max_points_per_user=2, median="smooth")


def test_one_user_audit():
    """D and D' = D + one user with 8 points in one cell: the law of that cell's released count moves
    by at most e^epsilon at user level; the same build accounted per point (the bug of forgetting k)
    is caught by the same check."""
    rng = np.random.default_rng(1)
    base = rng.random((60, 2))
    users = np.arange(60)
    extra = np.full((8, 2), 0.1)
    d2, u2 = np.vstack([base, extra]), np.r_[users, np.full(8, 999)]
    runs, eps, k = 1500, 1.0, 8

    def law(pts, us, n=runs, **kw):
        vals = [pv.build(pts, DOM, "ug", eps, seed=s, resolution=8, grid_size=2, **kw).tree.noisy[1]
                for s in range(n)]
        return np.bincount(np.asarray(vals, int) + 200, minlength=500)

    a = law(base, users, user=users, max_points_per_user=k)
    b = law(d2, u2, user=u2, max_points_per_user=k)
    assert ratio_ok(a, b, runs, eps)
    wrong = law(d2, u2, n=600)                # 8 points accounted as if they were one: fails even with fewer runs
    assert not ratio_ok(law(base, users, n=600), wrong, 600, eps)
