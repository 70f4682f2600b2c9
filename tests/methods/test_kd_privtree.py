"""kd-privtree: candidates, score sensitivity, the mechanism's law, ledger per path, structure, errors."""
import math

import numpy as np
import pytest

import psdviz as pv
from psdviz.methods.privtree import privtree_parameters
from psdviz.splits.imbalance import candidates, choose_splits, dyadic_offsets, imbalance, left_counts

DOM = pv.Domain(0, 0, 256, 256)


def test_dyadic_offsets_are_distinct_and_inside():
    off, ok = dyadic_offsets(np.array([256, 6, 2, 1]), 8)
    got = [sorted(off[i][ok[i]].tolist()) for i in range(4)]
    assert got[0] == [1, 2, 4, 8, 16, 32, 64, 128, 192, 224, 240, 248, 252, 254, 255]
    assert got[1] == [1, 2, 3, 4, 5] and got[2] == [1] and got[3] == []


def test_candidates_skip_an_axis_one_step_wide_and_refuse_a_single_cell():
    c = candidates(np.array([[10, 0, 11, 4]]), 8)
    assert set(c["axis"].tolist()) == {1} and sorted(c["pos"].tolist()) == [1, 2, 3]
    with pytest.raises(ValueError, match="one grid step"):
        candidates(np.array([[3, 3, 4, 4]]), 8)


def test_left_counts_against_a_direct_count():
    rng = np.random.default_rng(0)
    node = rng.integers(0, 3, 500)
    key = rng.integers(0, 16, 500)
    ids, cnt = np.unique((node << 4) | key, return_counts=True)
    qn, qp = np.repeat(np.arange(3), 16), np.tile(np.arange(16), 3)
    want = [int(((node == n) & (key < p)).sum()) for n, p in zip(qn, qp)]
    np.testing.assert_array_equal(left_counts(ids, cnt, qn, qp, 4), want)


def test_imbalance_sensitivity_is_at_most_one():
    """One more point, left or right of s, moves |c_L - c a| by at most 1 for every s (module docstring)."""
    rng = np.random.default_rng(1)
    lo, hi = 0, 64
    pos = np.arange(1, 64)
    for _ in range(200):
        keys = rng.integers(0, 64, rng.integers(0, 50))
        extra = rng.integers(0, 64)
        base = imbalance((keys[:, None] < pos).sum(0), keys.size, pos, lo, hi)
        plus = imbalance((np.r_[keys, extra][:, None] < pos).sum(0), keys.size + 1, pos, lo, hi)
        assert np.abs(plus - base).max() <= 1 + 1e-12


def test_exponential_mechanism_law():
    """Two candidates with scores 0 and 2 at epsilon 1: P(second) = e / (1 + e). Tolerance: 5 binomial sd."""
    cand = {"owner": np.zeros(2, int), "axis": np.array([0, 0]), "pos": np.array([3, 5]), "starts": np.array([0])}
    rng = np.random.default_rng(2)
    n = 20000
    picks = np.array([choose_splits(rng, cand, np.array([0.0, 2.0]), 1.0)[1][0] for _ in range(n)])
    p = math.e / (1 + math.e)
    assert abs((picks == 5).mean() - p) < 5 * math.sqrt(p * (1 - p) / n)


def _line_data(rng):
    """An atom in cell (0, 0), points on column 0 and row 0, nothing else: the data kd-privtree is for."""
    atom = np.full((6000, 2), 0.5)
    col = np.column_stack([rng.uniform(0, 1, 1500), rng.uniform(1, 256, 1500)])
    row = np.column_stack([rng.uniform(1, 256, 1500), rng.uniform(0, 1, 1500)])
    return np.vstack([atom, col, row])


def test_ledger_paths_and_binary_structure():
    p = _line_data(np.random.default_rng(3))
    rel = pv.build(p, DOM, "kd-privtree", 1.0, seed=4, resolution=8)
    t = rel.tree
    assert [s.what for s in rel.ledger.spends] == ["split decisions", "split positions", "count"]
    np.testing.assert_allclose([s.epsilon for s in rel.ledger.spends], [0.3, 0.3, 0.4])
    assert rel.ledger.total() == pytest.approx(1.0) and t.path_epsilons().max() <= 1.0 + 1e-12
    inner = np.flatnonzero(~t.is_leaf)
    kids = t.first_child[inner][:, None] + np.arange(2)
    assert np.all(t.parent[kids] == inner[:, None])
    area = lambda r: (r[..., 2] - r[..., 0]) * (r[..., 3] - r[..., 1])
    np.testing.assert_allclose(area(t.rect[kids]).sum(1), area(t.rect[inner]))
    assert np.isnan(t.noisy[~t.is_leaf]).all() and np.isfinite(t.noisy[t.is_leaf]).all()
    assert rel.answer([[0, 0, 256, 256]])[0] == pytest.approx(np.nansum(t.noisy[t.is_leaf]))


def test_cuts_empty_space_away_from_lines():
    """With a large epsilon the tree isolates the empty region: queries there get (almost) nothing (leaf
    noise at epsilon 8 has sd 0.18; a leaf holding part of a line would add hundreds)."""
    p = _line_data(np.random.default_rng(5))
    q = np.array([[8, 8, 200, 200], [2, 2, 100, 40]])
    kd = pv.build(p, DOM, "kd-privtree", 20.0, seed=6, resolution=8).answer(q)
    assert np.abs(kd).max() < 5
    assert pv.true_answer(p, q).max() == 0


def test_depth_cap_and_exact_counts_without_noise():
    p = np.full((3000, 2), 100.5)
    rel = pv.build(p, DOM, "kd-privtree", 1e5, seed=7, resolution=8, max_depth=5)
    assert rel.tree.height == 5
    assert rel.answer([[0, 0, 256, 256]])[0] == pytest.approx(3000, abs=1e-6)


def test_parameters_match_privtree_for_beta_2():
    rel = pv.build(np.zeros((10, 2)), DOM, "kd-privtree", 1.0, seed=0, resolution=8)
    lam, delta = privtree_parameters(0.3, 2)
    assert rel.params["lambda"] == pytest.approx(lam) and rel.params["delta"] == pytest.approx(lam * math.log(2))


def test_bad_parameters():
    x = np.zeros((3, 2))
    with pytest.raises(ValueError, match="tree_fraction \\+ split_fraction"):
        pv.build(x, DOM, "kd-privtree", 1.0, tree_fraction=0.6, split_fraction=0.5)
    with pytest.raises(ValueError, match="split_levels"):
        pv.build(x, DOM, "kd-privtree", 1.0, split_levels=0)
    with pytest.raises(ValueError, match="theta"):
        pv.build(x, DOM, "kd-privtree", 1.0, theta=float("nan"))


@pytest.mark.parametrize("read", ["held", "pass by pass"])
def test_each_split_node_scores_its_cuts_on_its_own_points(monkeypatch, read, pass_by_pass):
    """At a depth where some nodes stop, a split node's candidate cuts are scored on its own points: the
    count left of each cut is the node's, not that of the node with its rank's index (which would let one
    point move the scores of two nodes of a depth: twice the positions' epsilon on its path)."""
    import psdviz.methods.kd_privtree as kdp
    rng = np.random.default_rng(3)
    pts = np.column_stack([rng.uniform(128, 256, 4000), rng.uniform(0, 256, 4000)])   # the left half empty
    ps = pv.core.domain.prepare_points(pts, DOM, resolution=8)
    seen = []

    def record(left, total, pos, lo, hi):
        seen.append((left.copy(), total.copy(), pos.copy()))
        return imbalance(left, total, pos, lo, hi)

    monkeypatch.setattr(kdp, "imbalance", record)
    # split a node iff it holds a point: at depth 1 the empty left child (node 0) stops, the right one splits
    monkeypatch.setattr(kdp, "split_decisions", lambda counts, *a: counts > 0)
    monkeypatch.setattr(kdp, "_positions", _force_x_midpoint_at_root(kdp._positions))
    kdp.grow(ps if read == "held" else pass_by_pass(ps), 1.0, 1.0, 0.0, 10.0, 2, 2, np.random.default_rng(0))
    (left, total, pos), = seen                       # depth 1: one split node, the right half [128, 256)
    assert total.tolist() == [4000] * total.size
    kx, ky = ps.keys[:, 0], ps.keys[:, 1]
    cand = candidates(np.array([[128, 0, 256, 256]]), 8)
    want = [int(((kx if a == 0 else ky) < p).sum()) for a, p in zip(cand["axis"], cand["pos"])]
    np.testing.assert_array_equal(left, want)


def _force_x_midpoint_at_root(positions):
    """The root cut at x = 128 whatever its draw (so that depth 1 is the empty left half and the full right)."""
    def wrapped(counter, rect, *rest):
        if rect.tolist() == [[0, 0, 256, 256]]:
            return np.zeros(1, np.int64), np.full(1, 128)
        return positions(counter, rect, *rest)
    return wrapped


@pytest.mark.parametrize("cells", [False, True])
def test_held_keys_grow_the_same_tree_as_passes_over_the_data(cells, pass_by_pass):
    """Keys held in memory (points, or occupied cells with their counts) give the same tests, positions and
    counts at every depth as grouped passes over the data: the same tree for the same draws."""
    import psdviz.methods.kd_privtree as kdp
    from psdviz.core.cells import CellTable
    rng = np.random.default_rng(8)
    pts = np.vstack([rng.normal(90, 6, (3000, 2)), rng.uniform(0, 256, (1500, 2))]).clip(0, 255.9)
    ps = pv.core.domain.prepare_points(pts, DOM, resolution=8)
    src = CellTable(ps, *ps.cells()) if cells else ps
    lam, delta = privtree_parameters(0.3, 2)
    held = kdp.grow(src, lam, delta, 0.0, 0.05, 4, 30, np.random.default_rng(2))
    by_pass = kdp.grow(pass_by_pass(src), lam, delta, 0.0, 0.05, 4, 30, np.random.default_rng(2))
    assert len(held["rects"]) == len(by_pass["rects"]) > 8
    for key in ("rects", "parents", "leaf", "counts"):
        assert all(np.array_equal(a, b) for a, b in zip(held[key], by_pass[key]))
