"""PrivTree: parameters, split rule, budget, ledger per path."""
import math

import numpy as np
import pytest

import psdviz as pv
from psdviz.methods.privtree import privtree_parameters, split_decisions

DOM = pv.Domain(0, 0, 1, 1)


def test_lambda_delta_for_fanout_4():
    lam, delta = privtree_parameters(0.5)
    assert lam == pytest.approx(7 / (3 * 0.5)) and delta == pytest.approx(lam * math.log(4))


def test_split_rule_probabilities():
    """P(split) = P(b + Lap(lam) > theta): for b = theta - delta it is exp(-delta/lam)/2 = 1/8 (fanout 4);
    for a count far above theta + depth*delta it is ~1. Tolerance: 4 binomial sd at n = 20000."""
    rng = np.random.default_rng(0)
    lam, delta = privtree_parameters(1.0)
    n = 20000
    empty = split_decisions(np.zeros(n), 3, lam, delta, 0.0, rng).mean()
    assert abs(empty - 1 / 8) < 4 * math.sqrt(0.125 * 0.875 / n)
    c = 2 * delta + 1.0  # depth 2: b = 1 -> P = 1 - exp(-1/lam)/2
    p = 1 - math.exp(-1 / lam) / 2
    got = split_decisions(np.full(n, c), 2, lam, delta, 0.0, rng).mean()
    assert abs(got - p) < 4 * math.sqrt(p * (1 - p) / n)
    # the bias floor: a huge depth cannot push b below theta - delta
    got = split_decisions(np.full(n, 5.0), 1000, lam, delta, 0.0, rng).mean()
    assert abs(got - 1 / 8) < 4 * math.sqrt(0.125 * 0.875 / n)


def test_ledger_paths_and_structure():
    rng = np.random.default_rng(1)
    p = np.vstack([rng.normal(0.7, 0.02, (3000, 2)), rng.uniform(0, 1, (500, 2))]).clip(0, 1)
    rel = pv.build(p, DOM, method="privtree", epsilon=0.8, seed=2)
    t = rel.tree
    np.testing.assert_allclose(t.path_epsilons(), 0.8)
    assert rel.ledger.total() == pytest.approx(0.8)
    assert [s.what for s in rel.ledger.spends] == ["split decisions", "count"]
    assert rel.ledger.spends[0].epsilon == pytest.approx(0.4 * 0.8)   # default tree_fraction 0.4
    assert np.isnan(t.noisy[~t.is_leaf]).all() and np.isfinite(t.noisy[t.is_leaf]).all()
    # children are the 4 quadrants of their parent, contiguous
    inner = np.flatnonzero(~t.is_leaf)
    kids = t.first_child[inner][:, None] + np.arange(4)
    assert np.all(t.parent[kids] == inner[:, None])
    area = lambda r: (r[..., 2] - r[..., 0]) * (r[..., 3] - r[..., 1])
    np.testing.assert_allclose(area(t.rect[kids]).sum(1), area(t.rect[inner]))
    # dense spot is refined deeper than the sparse background
    leaves = t.rect[t.is_leaf]
    near = (np.abs(leaves[:, 0] - 0.7) < 0.05) & (np.abs(leaves[:, 1] - 0.7) < 0.05)
    assert t.depth[t.is_leaf][near].mean() > t.depth[t.is_leaf][~near].mean() + 1
    np.testing.assert_allclose(t.est[0], np.nansum(t.noisy[t.is_leaf]))


def test_depth_cap_is_respected_and_counts_exact_without_noise():
    p = np.full((2000, 2), 0.3)
    rel = pv.build(p, DOM, method="privtree", epsilon=1e4, seed=3, max_depth=6)
    t = rel.tree
    assert t.height == 6
    assert rel.answer([[0, 0, 1, 1]])[0] == pytest.approx(2000)


def test_bad_parameters():
    with pytest.raises(ValueError, match="tree_fraction"):
        pv.build(np.zeros((3, 2)), DOM, method="privtree", epsilon=1.0, tree_fraction=0)
    with pytest.raises(ValueError, match="max_depth"):
        pv.build(np.zeros((3, 2)), DOM, method="privtree", epsilon=1.0, max_depth=0)


@pytest.mark.parametrize("cells", [False, True])
def test_held_keys_grow_the_same_tree_as_passes_over_the_data(cells, pass_by_pass):
    """Keys held in memory are counted from one Morton sort (MortonBlocks), not a pass a depth: the same
    structure, counts and draws as pass by pass, on points and on occupied cells with their counts."""
    from psdviz.core.cells import CellTable
    from psdviz.core.domain import prepare_points
    from psdviz.methods.privtree import grow
    rng = np.random.default_rng(6)
    pts = np.clip(np.vstack([rng.normal(0.3, 0.02, (3000, 2)), rng.random((1000, 2))]), 0, 1)
    ps = prepare_points(pts, DOM, resolution=9)
    src = CellTable(ps, *ps.cells()) if cells else ps
    lam, delta = privtree_parameters(0.5)
    held = grow(src, lam, delta, 0.0, 9, np.random.default_rng(1))
    by_pass = grow(pass_by_pass(src), lam, delta, 0.0, 9, np.random.default_rng(1))
    assert len(held["counts"]) == len(by_pass["counts"]) > 4
    for key in ("rects", "parents", "leaf", "counts"):
        assert all(np.array_equal(a, b) for a, b in zip(held[key], by_pass[key]))
