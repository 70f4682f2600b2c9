"""Sparse data on a few lines: the selection, the tiling, the ledger and paths, the answers and the file."""
import numpy as np
import pytest

import psdviz as pv
from psdviz.core.ledger import Ledger
from psdviz.core.rng import SEEDED, Randomness
from psdviz.lab.synthetic import few_lines
from psdviz.methods.lines import _halves, grow_binary, parts, select_lines

DOM = pv.Domain(0, 0, 256, 256)


def _hist(pts, m=256):
    return np.histogram2d(pts[:, 1], pts[:, 0], bins=m, range=[[0, 256], [0, 256]])[0]     # rows y


def test_the_family_puts_its_share_on_its_lines():
    pts = few_lines(50_000, DOM, np.random.default_rng(0), lines=3, share=0.9, profile="spiky", edge=True)
    rows = _hist(pts).sum(axis=1)
    assert rows[0] > 0.01 * len(pts)                                     # the first line on the lower edge
    assert np.sort(rows)[-3:].sum() / len(pts) == pytest.approx(0.9 + 3 * 0.1 / 256, abs=0.01)
    cols = few_lines(5_000, DOM, np.random.default_rng(1), lines=1, share=0.8, vertical=True)
    assert _hist(cols).sum(axis=0).max() / 5_000 > 0.75


def test_selection_finds_the_heavy_lines_on_their_axis_and_records_two_lines():
    pts = few_lines(100_000, DOM, np.random.default_rng(2), lines=4, share=0.9, profile="smooth", vertical=True)
    hist = _hist(pts)
    ledger = Ledger(1.0)
    axis, heavy = select_lines(hist, 0.1, Randomness(np.random.default_rng(3), SEEDED, 3), ledger, 0.04)
    truth = np.flatnonzero(hist.sum(axis=0) > 0.04 * len(pts))
    assert axis == 1 and set(heavy) == set(truth)
    assert [(s.what, s.epsilon, s.sensitivity) for s in ledger.spends] == [
        ("line selection: row sums", 0.05, 1.0), ("line selection: column sums", 0.05, 1.0)]


def test_parts_tile_the_axis_and_halves_tile_their_box():
    assert parts(10, np.array([0, 4, 5])).tolist() == [[0, 1], [1, 4], [4, 5], [5, 6], [6, 10]]
    assert parts(10, np.array([], np.int64)).tolist() == [[0, 10]]
    kids = _halves(np.array([[0, 0, 5, 2], [3, 1, 4, 7]]))
    assert kids.tolist() == [[0, 0, 2, 2], [2, 0, 5, 2], [3, 1, 4, 4], [3, 4, 4, 7]]


def test_a_line_splits_along_itself_only():
    hist = np.zeros((8, 8))
    hist[3] = 1000
    g = grow_binary(hist, np.array([[0, 3, 8, 4]]), 10.0, np.random.default_rng(0))
    boxes = np.vstack(g["boxes"])
    assert (boxes[:, 1] == 3).all() and (boxes[:, 3] == 4).all()      # every node one cell tall
    assert g["leaf"][-1].all() and (np.vstack(g["boxes"][-1:])[:, 2] - np.vstack(g["boxes"][-1:])[:, 0] == 1).all()


def test_release_ledger_paths_tiling_and_answers():
    pts = few_lines(60_000, DOM, np.random.default_rng(4), lines=2, share=0.85, profile="stepped")
    rel = pv.build(pts, DOM, "lines", 0.8, seed=1, resolution=8)
    assert [s.what for s in rel.ledger.spends] == ["line selection: row sums", "line selection: column sums",
                                                   "split decisions", "count"]
    assert rel.ledger.total() == pytest.approx(0.8) and rel.tree.path_epsilons().max() == pytest.approx(0.8)
    assert rel.params["axis"] == "rows" and len(rel.params["lines"].split(",")) == 2
    root_kids = rel.tree.rect[rel.tree.parent == 0]
    assert np.isclose(((root_kids[:, 2] - root_kids[:, 0]) * (root_kids[:, 3] - root_kids[:, 1])).sum(), DOM.area)
    q = np.array([[0, 0, 256, 256], [10, 0, 100, 1], [0, 0, 256, 128]])
    est, var = rel.answer(q), rel.answer_variance(q)
    assert est[0] == pytest.approx(rel.tree.est[0]) and (var > 0).all()
    assert abs(est[0] - len(pts)) < 6 * np.sqrt(var[0])


def test_variance_is_the_sum_over_the_leaves_it_covers():
    """Leaves are measured independently: a rectangle's variance is the sum over the leaves of (its share of the
    leaf)^2 x the leaf's noise variance, counted here leaf by leaf."""
    pts = few_lines(20_000, DOM, np.random.default_rng(5), lines=1, share=0.9, profile="smooth")
    rel = pv.build(pts, DOM, "lines", 1.0, seed=3, resolution=8)
    t = rel.tree
    leaves = np.flatnonzero(t.is_leaf)
    for x0, y0, x1, y1 in [(0, 0, 128, 1), (30.5, 0, 200, 60.25), (0, 0, 256, 256)]:
        r = t.rect[leaves]
        ox = np.clip(np.minimum(r[:, 2], x1) - np.maximum(r[:, 0], x0), 0, None)
        oy = np.clip(np.minimum(r[:, 3], y1) - np.maximum(r[:, 1], y0), 0, None)
        share = ox * oy / ((r[:, 2] - r[:, 0]) * (r[:, 3] - r[:, 1]))
        want = (share ** 2 * t.noise_var[leaves]).sum()
        assert rel.answer_variance([[x0, y0, x1, y1]])[0] == pytest.approx(want, rel=1e-9)


def test_a_release_file_answers_the_same(tmp_path):
    pts = few_lines(30_000, DOM, np.random.default_rng(6), lines=3, share=0.7, profile="spiky", edge=False)
    rel = pv.build(pts, DOM, "lines", 1.0, seed=2, resolution=8)
    back = pv.load_release(rel.save(tmp_path / "l.parquet", allow_seeded=True))
    q = np.array([[0, 0, 256, 256], [3.5, 7.25, 100, 200]])
    np.testing.assert_array_equal(back.answer(q), rel.answer(q))
    np.testing.assert_array_equal(back.answer_variance(q), rel.answer_variance(q))


def test_bad_parameters_are_refused_in_words():
    pts = few_lines(1_000, DOM, np.random.default_rng(7))
    with pytest.raises(ValueError, match="leave epsilon for the leaves"):
        pv.build(pts, DOM, "lines", 1.0, select_fraction=0.5, tree_fraction=0.5)
    with pytest.raises(ValueError, match="min_share"):
        pv.build(pts, DOM, "lines", 1.0, min_share=1.5)


def test_a_grid_too_large_for_memory_is_refused_before_any_count_is_held():
    """grid_size=65536 at resolution 20 once tried to allocate 32 GiB (a MemoryError traceback): it is refused with
    the cap and the parameter to lower, as the strategy's grid is."""
    with pytest.raises(ValueError, match=r"65536 x 65536 grid of cells would have 4,294,967,297 nodes.*lower "):
        pv.build(np.random.default_rng(0).random((200, 2)), pv.Domain(0, 0, 1, 1), "lines", 1.0, resolution=20,
                 grid_size=65536)
