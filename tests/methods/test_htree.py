"""Private h-tree: slicing, budgets, ledger per path (all variants), inference, fast queries."""
import math

import numpy as np
import pytest

import psdviz as pv
from psdviz.lab.workloads import shape_queries
from psdviz.methods.htree import cube_root_split, htree_size
from psdviz.query.decompose import answer_tree, decompose, leaf_weights
from psdviz.splits.slicing import slice_groups

DOM = pv.Domain(0, 0, 1, 1)


def pts(n=4000, seed=0):
    rng = np.random.default_rng(seed)
    return np.vstack([rng.normal(0.3, 0.05, (n // 2, 2)), rng.uniform(0, 1, (n - n // 2, 2))]).clip(0, 1)


def test_size_and_cube_root_rule():
    assert htree_size(1_000_000, 0.6) == round(math.sqrt(1e6 * 0.6 / 3))
    e = cube_root_split(0.6, [27, 27])
    np.testing.assert_allclose(e, [0.6 / (1 + 3), 0.6 * 3 / (1 + 3)])   # eps_c/(1+m^(1/3)), eps_c m^(1/3)/(1+m^(1/3))


def test_slicing_splits_sorted_inside_region_and_positions_exact():
    rng = np.random.default_rng(1)
    v = np.sort(rng.integers(2 ** 18, 2 ** 19, 5000))
    s = slice_groups(rng, v, np.array([0]), np.array([5000]), np.array([0]), np.array([2 ** 20]),
                     np.array([13]), np.array([5000 / 13]), 1.0)
    assert s.value.size == 12 and np.all(np.diff(s.value) >= 0) and s.value.dtype.kind == "i"
    assert s.value.min() >= 1 and s.value.max() <= 2 ** 20 - 1
    np.testing.assert_array_equal(np.searchsorted(v, s.value, side="left"), s.position)
    assert s.n_rounds == math.ceil(math.log2(13))
    # with a generous budget the parts are near equal-depth (1/13 each, tolerance 2 % of n)
    parts = np.diff(np.r_[0, s.position, 5000])
    assert np.abs(parts - 5000 / 13).max() < 100


def test_slicing_expected_count_rule_stops_small_ranges():
    """Ranges whose expected count (released count / parts * P) is under 32 are not split."""
    rng = np.random.default_rng(2)
    v = np.sort(rng.integers(0, 1000, 100))
    s = slice_groups(rng, v, np.array([0]), np.array([100]), np.array([0]), np.array([1000]),
                     np.array([8]), np.array([100 / 8]), 1.0)
    # expected 12.5 per part: P = 8 -> 100 >= 32 split; P = 4 -> 50 split; P = 2 -> 25 stop: 1 + 2 splits
    assert s.value.size == 3 and s.n_rounds == 2


def test_slicing_em_prefers_the_target_rank():
    """EM over the region: the median split lands near the data median far more often than not."""
    rng = np.random.default_rng(3)
    v = np.sort(rng.integers(450_000, 550_000, 2000))
    hits = 0
    for _ in range(50):
        s = slice_groups(rng, v, np.array([0]), np.array([2000]), np.array([0]), np.array([10 ** 6]),
                         np.array([2]), np.array([1000.0]), 0.5)
        hits += abs(s.position[0] - 1000) < 40   # P(|rank error| >= 40) ~ exp(-0.25 * 40) per side
    assert hits >= 48


@pytest.mark.parametrize("variant", ["standard", "composite", "hybrid"])
def test_ledger_and_path_epsilons(variant):
    rel = pv.build(pts(), DOM, method="htree", epsilon=1.0, seed=1, variant=variant)
    path = rel.tree.path_epsilons()
    assert path.max() == pytest.approx(rel.ledger.total())
    assert rel.ledger.total() <= 1.0 + 1e-9
    t = rel.tree
    # every level's count epsilon is recorded once; medians: each spend <= the round cost
    counts = rel.ledger.by_level("count")
    for d in range(1, t.height + 1):
        np.testing.assert_allclose(t.count_eps[t.depth == d], counts[d])
    assert np.isfinite(t.noisy[t.depth == 1]).all()   # level-1 counts are released (noisy)
    n_eps = 0.05
    eps_c = 0.6 * (1 - n_eps)
    assert sum(counts.values()) == pytest.approx(eps_c)
    med = sum(s.epsilon for s in rel.ledger.spends if s.what.startswith("split"))
    assert med <= 0.4 * (1 - n_eps) + 1e-9


def test_strips_sorted_and_tiling():
    rel = pv.build(pts(), DOM, method="htree", epsilon=1.0, seed=4)
    t = rel.tree
    s = t.rect[t.depth == 1]
    assert np.all(np.diff(s[:, 0]) >= 0) and s[0, 0] == 0 and s[-1, 2] == 1
    np.testing.assert_allclose(s[1:, 0], s[:-1, 2])
    leaves = t.rect[t.is_leaf]
    area = ((leaves[:, 2] - leaves[:, 0]) * (leaves[:, 3] - leaves[:, 1])).sum()
    assert area == pytest.approx(1.0)


def test_noise_free_counts_match_points():
    p = pts(600, seed=5)
    rel = pv.build(p, DOM, method="htree", epsilon=1e4, seed=2, size=6, postprocess=False)
    t = rel.tree
    truth = pv.true_answer(p, t.rect[1:])   # closed rects: a point on a shared edge counts twice
    assert np.all(t.noisy[1:] <= truth) and np.all(truth - t.noisy[1:] <= 3)
    np.testing.assert_allclose(np.bincount(t.parent[t.is_leaf], weights=t.noisy[t.is_leaf],
                                           minlength=t.n_nodes)[t.depth == 1], t.noisy[t.depth == 1])


def test_inference_equals_dense_wls_and_variances():
    rel = pv.build(pts(800), DOM, method="htree", epsilon=0.5, seed=3, size=5)
    t = rel.tree
    leaves = np.flatnonzero(t.is_leaf)
    meas = np.flatnonzero(np.isfinite(t.noise_var))
    h = np.zeros((meas.size, leaves.size))
    for j, v in enumerate(leaves):
        u = v
        while u > 0:
            h[np.searchsorted(meas, u), j] = 1
            u = t.parent[u]
    w = 1 / t.noise_var[meas]
    lmat = np.linalg.solve(h.T @ (w[:, None] * h), h.T * w)
    np.testing.assert_allclose(t.est[leaves], lmat @ t.noisy[meas], atol=1e-8)
    q = shape_queries(DOM, 0.3, 0.5, 4, np.random.default_rng(0))
    qq, v, c = decompose(t, q, np.isfinite(t.est))
    wq = leaf_weights(t, qq, v, c, 4)[leaves]
    np.testing.assert_allclose(rel.answer_variance(q), ((lmat.T @ wq) ** 2 * t.noise_var[meas][:, None]).sum(0),
                               rtol=1e-8)


def _aligned_queries(t, rng, k):
    """Queries whose edges coincide with node edges (unions of two nodes, node x-range with random y)."""
    a, b = t.rect[rng.integers(1, t.n_nodes, k)], t.rect[rng.integers(1, t.n_nodes, k)]
    union = np.column_stack([np.minimum(a[:, :2], b[:, :2]), np.maximum(a[:, 2:], b[:, 2:])])
    band = np.column_stack([a[:, 0], rng.uniform(0, 0.5, k), a[:, 2], rng.uniform(0.5, 1, k)])
    cross = np.column_stack([rng.uniform(0, 0.5, k), a[:, 1], rng.uniform(0.5, 1, k), a[:, 3]])
    return np.vstack([a, union, band, cross])


@pytest.mark.parametrize("variant", ["standard", "composite", "hybrid"])
@pytest.mark.parametrize("post", [True, False])
def test_split_index_equals_canonical_traversal(variant, post):
    """The fast index (rel.answer) against the generic canonical decomposition (query.answer_tree) on
    random, node-aligned, whole-domain, degenerate and out-of-domain queries."""
    rel = pv.build(pts(5000), DOM, method="htree", epsilon=1.0, seed=6, variant=variant, postprocess=post)
    rng = np.random.default_rng(9)
    q = np.vstack([shape_queries(DOM, w, h, 150, rng) for w, h in ((0.01, 0.02), (0.2, 0.1), (0.8, 0.9), (1, 1))])
    q = np.vstack([q, _aligned_queries(rel.tree, rng, 150),
                   [[0, 0, 1, 1], [0.1, 0.1, 0.1, 0.5], [-1, -1, 2, 0.5], [0, 0.2, 1, 0.7], [0.3, 0, 0.6, 1],
                    [2, 2, 3, 3]]])
    vals = rel.tree.est if post else rel.tree.noisy
    assert rel.index is not None
    np.testing.assert_allclose(rel.answer(q), answer_tree(rel.tree, q, vals), rtol=1e-9, atol=1e-7)


def test_gls_with_noise_free_counts_is_finite():
    """At a huge epsilon the noise variances are exactly 0; inference must not divide 0 by 0."""
    p = pts(600, seed=5)
    rel = pv.build(p, DOM, method="htree", epsilon=1e4, seed=2, size=6)
    t = rel.tree
    assert np.isfinite(t.est).all()
    np.testing.assert_allclose(t.est[1:], t.noisy[1:])


def test_bad_parameters():
    with pytest.raises(ValueError, match="variant"):
        pv.build(pts(), DOM, method="htree", epsilon=1.0, variant="x")
    with pytest.raises(ValueError, match="median_fraction"):
        pv.build(pts(), DOM, method="htree", epsilon=1.0, median_fraction=1.0)
    with pytest.raises(ValueError, match="size"):
        pv.build(pts(), DOM, method="htree", epsilon=1.0, size=0)


def test_slicing_quantile_matches_exact_position_probabilities():
    """A slicing round chooses grid position j with probability exp(-eps |rank(j) - f n|) / Z (f = 1/2: the
    exponential mechanism for the score's sensitivity 1/2, :func:`psdviz.splits.quantile.rate`) over
    the region's interior positions: 20,000 copies of one small range at once; each rank within 4.5
    binomial sd of the exact law written out position by position."""
    rng = np.random.default_rng(11)
    pts_ = np.array([10, 15, 20, 50, 52, 90])
    lo, hi, frac, eps = 0, 100, 0.5, 1.0
    reps = 20_000
    v = np.tile(pts_, reps)
    s = slice_groups(rng, v, np.arange(reps) * pts_.size, np.arange(1, reps + 1) * pts_.size,
                     np.full(reps, lo), np.full(reps, hi), np.full(reps, 2), np.full(reps, 100.0), eps)
    assert s.value.size == reps and np.isin(s.value, np.arange(lo + 1, hi)).all()
    counts = np.bincount(s.position - np.arange(reps) * pts_.size, minlength=pts_.size + 1)
    positions = np.arange(lo + 1, hi)
    rank = np.searchsorted(pts_, positions, side="left")
    w = np.bincount(rank, weights=np.exp(-eps * np.abs(rank - frac * pts_.size)), minlength=pts_.size + 1)
    p = w / w.sum()
    assert np.all(np.abs(counts - reps * p) <= 4.5 * np.sqrt(reps * p * (1 - p)) + 1)


def test_split_index_batching_does_not_change_answers(monkeypatch):
    """Tiny query chunks and pair batches (the memory bounds) give the same answers."""
    import psdviz.query.split_index as si
    rel = pv.build(pts(3000), DOM, method="htree", epsilon=1.0, seed=8, variant="composite")
    q = shape_queries(DOM, 0.3, 0.4, 40, np.random.default_rng(4))
    full = rel.answer(q)
    monkeypatch.setattr(si, "CHUNK", 3)
    monkeypatch.setattr(si, "MAX_PAIRS", 5)
    np.testing.assert_allclose(rel.answer(q), full, rtol=1e-12, atol=1e-9)


def test_unspent_rounds_are_explained_in_the_release():
    """With a small N the 32-point rule leaves planned rounds unspent
    (ledger total 0.42 of 0.5); the release says how much and why, and never claims more than spent."""
    rel = pv.build(np.random.default_rng(0).random((100, 2)), pv.Domain(0, 0, 1, 1), "htree", 0.5, seed=1,
                   n_public=5000)
    missing = 0.5 - rel.ledger.total()
    assert missing > 0.01
    note = [n for n in rel.notes if "not spent" in n]
    assert len(note) == 1 and f"{missing:.4g}" in note[0] and "32 expected points" in note[0]
    full = pv.build(np.random.default_rng(0).random((2000, 2)), pv.Domain(0, 0, 1, 1), "htree", 0.5, seed=1,
                    n_public=2000)
    assert full.ledger.total() == pytest.approx(0.5) and not [n for n in full.notes if "not spent" in n]


def test_slicing_distinct_values_with_weights_draws_what_the_points_draw():
    """The h-tree slices occupied cells weighted by their points: the same splits as the points."""
    rng = np.random.default_rng(21)
    groups = [np.sort(rng.integers(lo, lo + 300, 400)) for lo in (0, 1000, 4000)]
    v = np.concatenate(groups)
    starts = np.r_[0, np.cumsum([g.size for g in groups])]
    distinct = [np.unique(g, return_counts=True) for g in groups]
    dv = np.concatenate([d[0] for d in distinct])
    dw = np.concatenate([d[1] for d in distinct])
    dstarts = np.r_[0, np.cumsum([d[0].size for d in distinct])]
    lo, hi = np.array([0, 1000, 4000]), np.array([400, 1400, 4400])
    for seed in range(4):
        kw = dict(parts=np.array([5, 3, 8]), expected_per_part=np.full(3, 100.0), epsilon_round=0.5)
        a = slice_groups(np.random.default_rng(seed), v, starts[:-1], starts[1:], lo, hi, **kw)
        b = slice_groups(np.random.default_rng(seed), dv, dstarts[:-1], dstarts[1:], lo, hi, weights=dw, **kw)
        np.testing.assert_array_equal(a.value, b.value)
        np.testing.assert_array_equal(a.group, b.group)
        # positions: points below the split (expanded) against distinct values below it
        cw = np.r_[0, np.cumsum(dw)]
        np.testing.assert_array_equal(a.position, cw[b.position])
