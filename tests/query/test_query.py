"""Queries (ICDE'12 section 4.1): the pyramid fast path, the generic canonical traversal, the
brute-force uniformity sum over leaves, and exact answer variances."""
import numpy as np
import pytest

import psdviz as pv
from psdviz.inference.ols import ols_estimate
from psdviz.inference.prune import prune_mask
from psdviz.inference.tree_gls import gls_estimate, gls_plan
from psdviz.query.decompose import answer_tree
from psdviz.query.pyramid import Pyramid

DOM = pv.Domain(-2, 1, 6, 5)


def points(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    c = rng.normal([1.0, 2.5], [1.0, 0.5], (n, 2))
    return np.clip(c, [-2, 1], [6, 5])


def query_set(seed=1, k=150):
    """Random rects, rects on cell edges, degenerate, whole domain and beyond the domain."""
    rng = np.random.default_rng(seed)
    x = np.sort(rng.uniform(-2, 6, (k, 2)), axis=1)
    y = np.sort(rng.uniform(1, 5, (k, 2)), axis=1)
    rand = np.column_stack([x[:, 0], y[:, 0], x[:, 1], y[:, 1]])
    gx, gy = np.linspace(-2, 6, 17), np.linspace(1, 5, 17)          # edges of a 16 x 16 grid
    ix = np.sort(rng.integers(0, 17, (40, 2)), axis=1)
    iy = np.sort(rng.integers(0, 17, (40, 2)), axis=1)
    aligned = np.column_stack([gx[ix[:, 0]], gy[iy[:, 0]], gx[ix[:, 1]], gy[iy[:, 1]]])
    special = np.array([[-2, 1, 6, 5], [-10, -10, 10, 10], [0, 2, 0, 4], [1, 3, 1, 3],
                        [-5, 0, 0.3, 2.2], [5.9, 4.9, 8, 8], [7, 7, 9, 9], [-2, 1, -2, 5]])
    return np.vstack([rand, aligned, special])


def brute_leaf_sum(rel: pv.Release, rects: np.ndarray) -> np.ndarray:
    """Uniformity assumption over the published leaves, one query at a time (slow, obvious)."""
    lv = rel.leaves()
    x0, y0, x1, y1 = (lv[c].to_numpy() for c in ("x0", "y0", "x1", "y1"))
    est = lv["estimate"].to_numpy()
    out = []
    for r in rects:
        ox = np.clip(np.minimum(r[2], x1) - np.maximum(r[0], x0), 0, None)
        oy = np.clip(np.minimum(r[3], y1) - np.maximum(r[1], y0), 0, None)
        out.append(float((est * ox * oy / ((x1 - x0) * (y1 - y0))).sum()))
    return np.array(out)


def slow_canonical(tree, values, r) -> float:
    """Recursive canonical range decomposition: fully covered released node -> its value;
    otherwise open it; a partly covered leaf contributes its covered share."""
    def rec(v: int) -> float:
        n = tree.rect[v]
        ox = min(r[2], n[2]) - max(r[0], n[0])
        oy = min(r[3], n[3]) - max(r[1], n[1])
        if ox <= 0 or oy <= 0:
            return 0.0
        inside = n[0] >= r[0] and n[2] <= r[2] and n[1] >= r[1] and n[3] <= r[3]
        if inside and np.isfinite(values[v]):
            return float(values[v])
        if tree.n_children[v] == 0:
            return float(values[v]) * ox * oy / ((n[2] - n[0]) * (n[3] - n[1]))
        f = tree.first_child[v]
        return sum(rec(c) for c in range(f, f + tree.n_children[v]))
    return rec(0)


CONSISTENT = [dict(method="quadtree", height=4, budget="geometric"),
              dict(method="quadtree", height=3, budget="uniform"),
              dict(method="quadtree", height=4, budget="leaf", postprocess=False),
              dict(method="quadtree", height=4, prune=30.0),
              dict(method="ug", n_public=3000),
              dict(method="ug", grid_size=7)]


@pytest.mark.parametrize("kw", CONSISTENT)
def test_answer_equals_brute_force_leaf_sum(kw):
    rel = pv.build(points(), DOM, epsilon=0.5, seed=2, **kw)
    assert rel.consistent
    q = query_set()
    expected = brute_leaf_sum(rel, q)
    tol = 1e-9 * max(1.0, np.abs(expected).max())
    np.testing.assert_allclose(rel.answer(q), expected, rtol=0, atol=tol)
    np.testing.assert_allclose(answer_tree(rel.tree, q, rel.tree.est), expected, rtol=0, atol=tol)


INCONSISTENT = [dict(height=3, budget="uniform", postprocess=False, prune=None),
                dict(height=4, budget="geometric", postprocess=False, prune=None)]


@pytest.mark.parametrize("kw", INCONSISTENT)
def test_pyramid_equals_canonical_traversal_on_raw_noisy_trees(kw):
    rel = pv.build(points(), DOM, method="quadtree", epsilon=0.5, seed=3, **kw)
    assert not rel.consistent and isinstance(rel.index, Pyramid)
    q = query_set(seed=4, k=60)
    slow = np.array([slow_canonical(rel.tree, rel.tree.noisy, r) for r in q])
    tol = 1e-9 * max(1.0, np.abs(slow).max())
    np.testing.assert_allclose(answer_tree(rel.tree, q, rel.tree.noisy), slow, rtol=0, atol=tol)
    np.testing.assert_allclose(rel.answer(q), slow, rtol=0, atol=tol)


def test_whole_domain_query_returns_root_estimate():
    rel = pv.build(points(), DOM, method="quadtree", epsilon=0.5, seed=5, height=4)
    assert rel.answer([DOM.as_rect()])[0] == pytest.approx(rel.tree.est[0], rel=1e-12)


# --- answer variances -----------------------------------------------------------------------

def linear_map(rel: pv.Release, q: np.ndarray) -> np.ndarray:
    """(k, n_nodes) matrix A with answers = A @ Y, built column by column from unit noisy vectors."""
    t = rel.tree
    eps = np.array([t.count_eps[t.depth == d][0] for d in range(t.height + 1)])
    measured = np.isfinite(t.noisy)
    cols = []
    for v in range(t.n_nodes):
        y = np.where(measured, 0.0, np.nan)
        if measured[v]:
            y[v] = 1.0
        t2 = type(t)(**{**t.__dict__, "noisy": y})
        if rel.params.get("postprocess"):
            vals = ols_estimate(t2, eps, 4)
        elif rel.consistent:
            vals = t2.subtree_sum(np.nan_to_num(y))
        else:
            vals = y
        cols.append(answer_tree(t2, q, vals) if measured[v] else np.zeros(q.shape[0]))
    return np.column_stack(cols)


@pytest.mark.parametrize("kw", [dict(budget="geometric"), dict(budget="uniform"),
                                dict(budget="uniform", postprocess=False),
                                dict(budget="leaf", postprocess=False)])
def test_answer_variance_equals_dense_linear_map(kw):
    """The complete tree's OLS adjoint (pruning after OLS; the tree stopped during the build is checked
    through the general GLS in tests/inference)."""
    rel = pv.build(points(), DOM, method="quadtree", epsilon=0.5, seed=6, height=2, pruning="after_ols", **kw)
    q = query_set(seed=7, k=20)
    A = linear_map(rel, q)
    var = np.where(np.isfinite(rel.tree.noise_var), rel.tree.noise_var, 0.0)
    dense = (A ** 2 * var).sum(axis=1)
    np.testing.assert_allclose(rel.answer_variance(q), dense, rtol=1e-9, atol=1e-9)


def test_answer_variance_matches_empirical_variance_over_seeds():
    """400 independent releases; sample variance vs exact. The sample variance of n draws has
    relative standard error sqrt((2 + kappa) / (n - 1)) with excess kurtosis kappa <= 3 (Laplace-
    like sums), so 5 standard errors is a relative tolerance of 5 sqrt(5 / 399) = 0.56; a variance
    off by a factor 2 (e.g. a missed OLS weight or a double-counted level) still fails."""
    p = points(2000)
    q = np.array([[-1.0, 1.5, 2.7, 3.9], [0.2, 2.2, 0.9, 2.6], [-2, 1, 6, 5]])
    n = 400
    ans = np.array([pv.build(p, DOM, method="quadtree", epsilon=0.4, seed=s, height=3).answer(q) for s in range(n)])
    exact = pv.build(p, DOM, method="quadtree", epsilon=0.4, seed=0, height=3).answer_variance(q)
    rel_err = np.abs(ans.var(axis=0, ddof=1) / exact - 1)
    assert (rel_err < 5 * np.sqrt(5 / (n - 1))).all(), (ans.var(axis=0, ddof=1), exact)


def test_answer_variance_on_a_pruned_tree_equals_dense_linear_map():
    """Pruned release: answers are linear in Y through OLS on the full tree, then the kept nodes."""
    p = points()
    kw = dict(method="quadtree", epsilon=0.5, seed=8, height=2, budget="geometric",
              pruning="after_ols")
    full = pv.build(p, DOM, prune=None, **kw)
    pruned = pv.build(p, DOM, prune=150.0, **kw)
    keep = prune_mask(full.tree, 150.0)
    assert 0 < keep.sum() < full.tree.n_nodes
    t = full.tree
    eps = np.array([t.count_eps[t.depth == d][0] for d in range(t.height + 1)])
    q = query_set(seed=9, k=20)
    cols = []
    for v in range(t.n_nodes):
        y = np.zeros(t.n_nodes)
        y[v] = 1.0
        est = ols_estimate(type(t)(**{**t.__dict__, "noisy": y}), eps, 4)
        cols.append(answer_tree(pruned.tree, q, est[keep]))
    A = np.column_stack(cols)
    dense = (A ** 2 * t.noise_var).sum(axis=1)
    np.testing.assert_allclose(pruned.answer_variance(q), dense, rtol=1e-9, atol=1e-9)


def test_answer_variance_on_a_tree_stopped_during_the_build_equals_dense_linear_map():
    """Pruning during the build: answers are linear in the measured counts through the GLS of the
    stopped tree (each count with its own variance; a stopped node's second count has the budget of
    the levels below it)."""
    rel = pv.build(points(), DOM, "quadtree", 0.5, seed=8, height=3, prune=150.0)
    t = rel.tree
    assert rel.params["pruning"] == "build" and (t.is_leaf & (t.depth < t.height)).any()
    plan = gls_plan(t, t.noise_var)
    q = query_set(seed=9, k=20)
    A = np.column_stack([answer_tree(t, q, gls_estimate(t, np.eye(t.n_nodes)[v], plan)) for v in range(t.n_nodes)])
    dense = (A ** 2 * t.noise_var).sum(axis=1)
    np.testing.assert_allclose(rel.answer_variance(q), dense, rtol=1e-9, atol=1e-9)


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_REL = {m: pv.build(points(), DOM, method=m, epsilon=0.5, seed=11, **kw)
        for m, kw in (("quadtree", {"height": 4}), ("ug", {"grid_size": 9}))}
_x = st.floats(-3, 7, allow_nan=False)
_y = st.floats(0, 6, allow_nan=False)


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(sorted(_REL)), _x, _x, _x, _y, _y)
def test_consistent_answers_are_additive(method, a, b, c, y0, y1):
    """On a consistent release the estimate is an integral of a density, so splitting a rectangle
    at any x gives two answers that add up to the whole (up to rounding)."""
    x0, xm, x1 = sorted((a, b, c))
    y0, y1 = sorted((y0, y1))
    rel = _REL[method]
    left, right, whole = rel.answer([[x0, y0, xm, y1], [xm, y0, x1, y1], [x0, y0, x1, y1]])
    assert abs(left + right - whole) <= 1e-7 * max(1.0, abs(whole))


def test_the_decomposition_of_a_wide_grid_keeps_its_pairs_bounded():
    """A uniform grid's root has 90,000 children: 300 rectangles in one batch would hold 27 million (query,
    child) pairs at once (2.8 GB traced); the batch shrinks with the fan-out, so the cut cells' model of 300
    rectangles stays under 600 MB, and the first 20 get the same figures one rectangle at a time."""
    import tracemalloc
    pts = np.random.default_rng(0).uniform(0, 64, (50_000, 2))
    rel = pv.build(pts, pv.Domain(0, 0, 64, 64), "ug", 1.0, seed=0, grid_size=300)
    rng = np.random.default_rng(1)
    lo = rng.uniform(0, 56, (300, 2))
    q = np.column_stack([lo, lo + rng.uniform(0.5, 8, (300, 2))])
    tracemalloc.start()
    got = rel.answer_uniformity_error(q)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 600e6
    np.testing.assert_allclose(got[:20], [rel.answer_uniformity_error(r[None])[0] for r in q[:20]])
