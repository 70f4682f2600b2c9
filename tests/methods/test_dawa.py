"""DAWA: the partition's pieces against slow obvious versions, GreedyH's variances against least squares, the
ledger and paths, the lattice, the answers and bad input."""
import numpy as np
import pytest

import psdviz as pv
from psdviz.core.tree import FlatTree
from psdviz.errors import ParameterError
from psdviz.inference.tree_gls import gls_plan, gls_variance_fn
from psdviz.lab.dpbench import protocol_queries
from psdviz.methods.dawa import (
    WEIGHT_BITS,
    _path_weights,
    bucket_tree,
    cover,
    greedy_splits,
    greedy_weights,
    path_steps,
    planning_queries,
)
from psdviz.splits.l1_partition import (
    candidate_levels,
    choose_buckets,
    dyadic_cover,
    noisy_scores,
    window_deviations,
)

DOM = pv.Domain(0, 0, 256, 256)


def test_candidate_levels():
    assert candidate_levels(65536) == tuple(range(3, 13))           # 8 cells to 1/16 of the grid
    assert candidate_levels(65536, 2, 65536) == tuple(range(1, 17))
    assert candidate_levels(16) == (3,) and candidate_levels(4) == (2,) and candidate_levels(1) == ()
    for bad in (dict(min_bucket=6), dict(min_bucket=1), dict(max_bucket=100), dict(min_bucket=16, max_bucket=8)):
        with pytest.raises(ValueError):
            candidate_levels(256, **bad)


def test_window_deviations_are_the_median_deviation():
    """min over every centre m of sum |x - m|, brute force, for every window of every level."""
    rng = np.random.default_rng(0)
    x = rng.integers(0, 7, 32) * (rng.random(32) < 0.6)
    devs = window_deviations(x, range(1, 6))
    for k, dev in devs.items():
        blocks = x.reshape(-1, 1 << k)
        brute = [min(np.abs(b - m).sum() for m in range(0, 8)) for b in blocks]
        assert dev.tolist() == brute


def test_one_point_moves_each_window_deviation_by_at_most_one():
    """The sensitivity the Laplace scale rests on: a count raised by one moves every window's cost by at most 1."""
    rng = np.random.default_rng(1)
    for _ in range(200):
        x = rng.integers(0, 5, 64) * (rng.random(64) < 0.5)
        x2 = x.copy()
        x2[rng.integers(64)] += 1
        a, b = window_deviations(x, range(1, 7)), window_deviations(x2, range(1, 7))
        for k in a:
            moved = np.abs(a[k] - b[k])
            assert moved.max() <= 1 and (moved > 0).sum() <= 1       # one window per level, by at most 1


def _best_cover(scores, k, t):
    """The cheapest cover of window t of level k by brute force: its own score or the best of its halves."""
    if k == 0:
        return scores[0][0, t], [(0, t)]
    split = [_best_cover(scores, k - 1, 2 * t + i) for i in (0, 1)]
    cost = split[0][0] + split[1][0]
    own = scores[k][0, t]
    return (own, [(k, t)]) if own <= cost else (cost, split[0][1] + split[1][1])


def test_dyadic_cover_is_the_cheapest_cover():
    rng = np.random.default_rng(2)
    for _ in range(50):
        scores = [rng.random((1, 16 >> k)) * (1 << k) * rng.uniform(0.5, 1.5) for k in range(5)]
        buckets = dyadic_cover(scores)
        got = sorted((k, int(t)) for k, b in enumerate(buckets) for t in np.flatnonzero(b[0]))
        assert got == sorted(_best_cover(scores, 4, 0)[1])


def test_scores_single_cells_and_other_levels():
    devs = window_deviations(np.arange(16), (2,))
    s = noisy_scores(devs, 4, 1.0, 3.0, np.random.default_rng(3), runs=5)
    assert (s[0] == 3.0).all() and np.isinf(s[1]).all() and np.isinf(s[3]).all()
    assert (s[2] >= 3.0).all() and s[2].shape == (5, 4)


def test_partition_isolates_an_atom_and_merges_empty_space():
    """With little noise, a lone heavy cell's smallest candidate window splits into single cells, each window
    above it keeps its empty half, and the rest are the largest candidates (4096 / 16 cells)."""
    x = np.zeros(4096, np.int64)
    x[1234] = 500
    buckets = choose_buckets(x, candidate_levels(4096), 100.0, 0.5, np.random.default_rng(4))
    sizes = {k: int(b.sum()) for k, b in enumerate(buckets) if b.sum()}
    assert buckets[0][0, 1234] and sizes == {0: 8, 3: 1, 4: 1, 5: 1, 6: 1, 7: 1, 8: 15}


def _points(rng, n=20_000):
    a = rng.normal([60, 180], [8, 12], (n // 2, 2))
    b = rng.uniform(0, 256, (n // 2, 2))
    return np.clip(np.vstack([a, b]), 0, 255.999)


@pytest.mark.parametrize("workload", [False, True])
def test_release_ledger_paths_tiling_and_answers(workload):
    pts = _points(np.random.default_rng(5))
    q = np.array([[0, 0, 256, 256], [40, 150, 90, 220], [0, 0, 128, 64], [10.5, 3, 200, 77.25]])
    rel = pv.build(pts, DOM, "dawa", 0.8, seed=1, resolution=8, workload=q if workload else None)
    t, spends = rel.tree, rel.ledger.spends
    assert [s.what for s in spends] == ["partition: window deviations",
                                        "bucket hierarchy (GreedyH)" if workload else "bucket counts"]
    assert spends[0].epsilon == pytest.approx(0.2) and spends[0].sensitivity == 10.0
    assert rel.ledger.total() == pytest.approx(0.8)
    paths = t.path_epsilons()
    assert paths.max() <= 0.8 + 1e-12 and (paths.min() == pytest.approx(0.8) if not workload else paths.min() > 0.75)
    kids = t.parent[1:]
    area = (t.rect[:, 2] - t.rect[:, 0]) * (t.rect[:, 3] - t.rect[:, 1])
    assert np.allclose(np.bincount(kids, weights=area[1:], minlength=t.n_nodes)[~t.is_leaf], area[~t.is_leaf])
    assert (t.n_children[~t.is_leaf] == 2).all() and rel.params["buckets"] == int(t.is_leaf.sum())
    assert rel.grid.on_grid(t.rect).all()
    est, var = rel.answer(q), rel.answer_variance(q)
    assert est[0] == pytest.approx(t.est[0]) and (var > 0).all()
    assert abs(est[0] - len(pts)) < 6 * np.sqrt(var[0])
    assert np.allclose(np.bincount(kids, weights=t.est[1:], minlength=t.n_nodes)[~t.is_leaf], t.est[~t.is_leaf])


def test_workload_measurement_is_on_the_lattice():
    """Weighted counts in steps of 2^-12, the sensitivity the largest path sum of steps (at most 2^12), each
    node's epsilon its share of it; the released noisy counts times the weight are whole steps."""
    pts = _points(np.random.default_rng(6))
    q = protocol_queries()[:50]
    rel = pv.build(pts, DOM, "dawa", 1.0, seed=2, resolution=8, workload=q)
    t = rel.tree
    step = rel.ledger.spends[1]
    assert 0 < step.sensitivity <= 1.0 and rel.params["plan_queries"] == 50
    on = np.isfinite(t.noise_var)
    weight = t.count_eps[on] / 0.75 * step.sensitivity                # w = eps share x S, in count units
    steps = weight * 2 ** WEIGHT_BITS
    assert np.allclose(steps, np.rint(steps), atol=1e-6)
    lattice = t.noisy[on] * weight * 2 ** WEIGHT_BITS
    assert np.allclose(lattice, np.rint(lattice), atol=1e-6)
    assert t.is_leaf[~on].sum() == 0                                  # every bucket is measured


def _small_tree(seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 50, 256) * (rng.random(256) < 0.3)
    return bucket_tree(choose_buckets(x, candidate_levels(256, 2, 64), 2.0, 1.0, rng))


def test_greedy_weights_sum_to_one_on_every_path_and_fit_the_lattice():
    tree = _small_tree(7)
    rects = _rects(tree)
    q = np.array([[0, 0, 10, 16], [3, 2, 16, 9], [0, 0, 16, 16]], float)
    w = greedy_weights(tree, rects, q)
    total = w.copy()
    for d in range(1, int(tree.depth.max()) + 1):
        at = tree.depth == d
        total[at] += total[tree.parent[at]]
    assert np.allclose(total[tree.leaf], 1.0)
    steps = np.floor(w * 2 ** WEIGHT_BITS).astype(np.int64)
    assert path_steps(tree, steps) <= 2 ** WEIGHT_BITS


def _rects(tree):
    """The windows of a 16 x 16 curve as cell rectangles."""
    from psdviz.splits.hilbert_curve import range_bboxes
    return range_bboxes(4, tree.lo, tree.hi).astype(float)


def _flat(tree, rects, weights):
    """The tree with unit noise per weighted count: variance 1 / w^2 where measured."""
    n = tree.size
    var = np.where(weights > 0, 1.0 / np.where(weights > 0, weights, 1) ** 2, np.inf)
    first = np.full(n, -1, np.int64)
    first[tree.parent[1::2]] = np.arange(1, n, 2)
    return FlatTree(rect=rects, depth=tree.depth, parent=tree.parent, first_child=first,
                    n_children=np.bincount(tree.parent[1:], minlength=n).astype(np.int32), noisy=np.zeros(n),
                    count_eps=np.zeros(n), split_eps=np.zeros(n), noise_var=var)


def _exact(tree, rects, weights, q):
    """The workload's total least-squares variance under ``weights`` (tree GLS, the buckets spread evenly)."""
    flat = _flat(tree, rects, weights)
    share = np.zeros((tree.size, q.shape[0]))
    share[tree.leaf] = cover(rects[tree.leaf], q)
    return float(gls_variance_fn(flat, gls_plan(flat, flat.noise_var))(share).sum())


def test_the_split_recursion_is_the_least_squares_variance():
    """For any splits (here drawn in [0.3, 1]) the recursion's total at the root equals the exact least-squares
    variance of the workload's answers under the weights they give (tree GLS)."""
    tree = _small_tree(8)
    rects = _rects(tree)
    q = np.array([[0, 0, 10, 16], [3, 2, 16, 9], [5, 5, 6, 13], [1.5, 0, 2.5, 16]], float)
    rng = np.random.default_rng(9)
    p, total = greedy_splits(tree, rects, q, choose=lambda sa, sr2, ks: rng.uniform(0.3, 1.0, ks.size))
    assert total == pytest.approx(_exact(tree, rects, _path_weights(tree, p), q), rel=1e-9)


def test_greedy_is_no_worse_than_the_buckets_alone():
    tree = _small_tree(10)
    rects = _rects(tree)
    q = np.array([[0, 0, 10, 16], [3, 2, 16, 9], [5, 5, 6, 13]], float)
    assert _exact(tree, rects, greedy_weights(tree, rects, q), q) < _exact(tree, rects, tree.leaf.astype(float), q)


def test_planning_queries_are_a_fixed_subsample():
    rects = np.column_stack([np.arange(2000.0), np.zeros(2000), np.arange(2000.0) + 1, np.ones(2000)])
    a, b = planning_queries(rects, 100), planning_queries(rects, 100)
    assert a.shape[0] == 512 and np.array_equal(a, b)
    assert planning_queries(rects, 60_000).shape[0] == 69          # 2^22 / 60,000 queries x buckets
    assert planning_queries(rects[:10], 60_000).shape[0] == 10


def test_empty_input_is_pure_noise_and_a_coarse_resolution_caps_the_grid():
    with pytest.warns(Warning):
        rel = pv.build(np.empty((0, 2)), DOM, "dawa", 1.0, seed=3, resolution=8)
    assert rel.params["buckets"] >= 16
    rel = pv.build(_points(np.random.default_rng(9), 2000), DOM, "dawa", 1.0, seed=3, resolution=4)
    assert rel.params["grid_size"] == 16 and any("capped to 16" in n for n in rel.notes)
    assert rel.params["min_bucket"] == 8 and rel.params["max_bucket"] == 16


@pytest.mark.parametrize("bad,what", [({"grid_size": 100}, "power of two"), ({"min_bucket": 6}, "power of two"),
                                      ({"ratio": 1.0}, "ratio"), ({"max_bucket": 4, "min_bucket": 8}, "max_bucket")])
def test_bad_parameters_are_named(bad, what):
    with pytest.raises((ValueError, ParameterError), match=what):
        pv.build(_points(np.random.default_rng(10), 500), DOM, "dawa", 1.0, seed=1, resolution=8, **bad)


def test_saved_release_answers_the_same(tmp_path):
    pts = _points(np.random.default_rng(11), 5000)
    rel = pv.build(pts, DOM, "dawa", 1.0, seed=4, resolution=8, workload=np.array([[0, 0, 100, 100.0]]))
    path = tmp_path / "dawa.json"
    rel.save(path, allow_seeded=True)
    back = pv.load_release(path)
    q = np.array([[3, 4, 200, 90], [0, 0, 256, 256.0]])
    assert np.allclose(back.answer(q), rel.answer(q)) and np.allclose(back.answer_variance(q), rel.answer_variance(q))


def test_same_seed_same_release():
    pts = _points(np.random.default_rng(12), 3000)
    a, b = (pv.build(pts, DOM, "dawa", 0.5, seed=7, resolution=8) for _ in range(2))
    assert np.array_equal(a.tree.rect, b.tree.rect) and np.array_equal(a.tree.est, b.tree.est)
    assert a.ledger.records() == b.ledger.records()
