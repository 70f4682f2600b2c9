"""summarize() entry point, parameter errors, ledger, export, builders (psdviz.sparse)."""
import json

import numpy as np
import pandas as pd
import pytest

from psdviz import Domain
from psdviz.sparse import (
    LABORIOUS_MAX,
    METHODS,
    contingency_table,
    grid_cells,
    grid_table,
    make_table,
    method_parameters,
    summarize,
)


def small(m=5000, n=300, seed=0):
    rng = np.random.default_rng(seed)
    return make_table(np.sort(rng.choice(m, n, replace=False)), rng.integers(1, 60, n), m)


@pytest.mark.parametrize("method", METHODS)
def test_every_method_runs_with_defaults_and_spends_exactly_epsilon(method):
    rel = summarize(small(), method, 0.7, seed=3)
    assert rel.ledger.total() == pytest.approx(0.7)
    assert rel.size == rel.indices.size == rel.values.size == rel.weights.size
    assert np.all(np.diff(rel.indices) > 0) and rel.indices.max() < rel.m
    json.dumps(rel.report())                      # JSON-ready
    assert rel.notes[0].startswith("seeded")


def test_stats_slice_only_when_needed():
    t = small()
    explicit = summarize(t, "filter-priority", 1.0, seed=1, theta=5, size=100)
    assert [s.what for s in explicit.ledger.spends][0].startswith("noisy counts")
    default = summarize(t, "filter-priority", 1.0, seed=1)
    assert default.ledger.spends[0].epsilon == pytest.approx(0.05)
    public = summarize(t, "priority", 1.0, seed=1, stats="public")
    assert public.size == t.n and public.ledger.spends[0].epsilon == pytest.approx(1.0)


def test_seed_reproducible_and_input_untouched():
    idx = np.array([5, 3, 3, 9])
    cnt = np.array([2, 1, 4, 0])
    t = make_table(idx, cnt, 10)
    assert idx.tolist() == [5, 3, 3, 9] and cnt.tolist() == [2, 1, 4, 0]
    assert t.indices.tolist() == [3, 5] and t.counts.tolist() == [5, 2]
    a = summarize(small(), "threshold", 0.5, seed=7, tau=20.0)
    b = summarize(small(), "threshold", 0.5, seed=7, tau=20.0)
    assert np.array_equal(a.indices, b.indices) and np.array_equal(a.values, b.values)


@pytest.mark.parametrize("kwargs,match", [
    (dict(method="nope"), "unknown sparse method"),
    (dict(method="filter", tau=3), "has no parameter"),
    (dict(method="filter", theta=0), "theta must be an integer in \\[1"),
    (dict(method="filter", theta=3, target_size=10), "either theta or target_size"),
    (dict(method="threshold", tau=-1.0), "tau must be a finite number > 0"),
    (dict(method="priority", size=0), "size must be an integer"),
    (dict(method="priority", consistency=True), "consistency=True needs dyadic=True"),
    (dict(method="filter", stats="secret"), "stats must be one of"),
    (dict(method="filter", two_sided="yes", theta=2), "two_sided must be True or False"),
    (dict(method="filter", epsilon=0), "epsilon must be finite and > 0"),
])
def test_clear_parameter_errors(kwargs, match):
    kw = dict(method="filter", epsilon=0.5) | kwargs
    with pytest.raises(ValueError, match=match):
        summarize(small(), kw.pop("method"), kw.pop("epsilon"), seed=1, **kw)


def test_laborious_refused_above_limit_and_shortcut_fine_on_huge_m():
    rng = np.random.default_rng(0)
    big = make_table(np.sort(rng.choice(10 ** 9, 1000, replace=False)), np.full(1000, 50), 10 ** 9)
    with pytest.raises(ValueError, match=f"m <= {LABORIOUS_MAX}"):
        summarize(big, "geometric", 0.5, seed=1)
    rel = summarize(big, "filter", 0.5, seed=1, target_size=2000, stats="public")
    assert 1000 < rel.size < 4000


def test_bad_tables_are_refused():
    with pytest.raises(ValueError, match="indices must lie in"):
        make_table([0, 10], [1, 1], 10)
    with pytest.raises(ValueError, match="counts must be integers"):
        make_table([0, 1], [1.5, 1], 10)
    with pytest.raises(ValueError, match=r"must be a psdviz.sparse.SparseTable"):
        summarize(np.zeros(5), "filter", 0.5)


def test_contingency_table_matches_crosstab():
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"a": rng.choice(list("xyzw"), 500), "b": rng.choice(list("PQRSTU"), 500)})
    t = contingency_table(df.a, df.b)
    ct = pd.crosstab(df.a, df.b).reindex(index=t.layout["rows"], columns=t.layout["cols"], fill_value=0)
    assert np.array_equal(t.dense(), ct.to_numpy().ravel()) and t.m == 24
    assert t.layout["categories"] == "observed in the data"
    declared = contingency_table(df.a, df.b, row_values=list("xyzwv"), col_values=list("PQRSTU"))
    assert declared.m == 30 and declared.layout["categories"] == "declared public"
    with pytest.raises(ValueError, match="not among the declared"):
        contingency_table(df.a, df.b, row_values=["x"])
    rel = summarize(t, "geometric", 1.0, seed=1)
    frame = rel.to_frame()
    assert set(frame.row) <= set("xyzw") and len(frame) == 24


def test_grid_table_matches_slow_count_and_cells_draw():
    rng = np.random.default_rng(2)
    pts = rng.uniform(0, 1, (400, 2))
    dom = Domain(0, 0, 1, 1)
    t = grid_table(pts, dom, nx=8, ny=4)
    slow = np.zeros(32, dtype=int)
    for x, y in pts:   # slow obvious version
        slow[min(int(y * 4), 3) * 8 + min(int(x * 8), 7)] += 1
    assert np.array_equal(t.dense(), slow)
    rect = grid_cells(t.layout, [9])[0]
    assert np.allclose(rect, [0.125, 0.25, 0.25, 0.5])
    rel = summarize(t, "filter", 1.0, seed=1, theta=2)
    assert "points" not in rel.report()["layout"]
    assert {"xmin", "ymax"} <= set(rel.to_frame().columns)


def test_summary_that_would_explode_is_refused():
    # tau = 0.5 keeps every cell with a non-zero noisy value: ~0.9 * 10^9 zero cells
    rng = np.random.default_rng(0)
    big = make_table(np.sort(rng.choice(10 ** 9, 100, replace=False)), np.full(100, 50), 10 ** 9)
    with pytest.raises(ValueError, match="raise the threshold"):
        summarize(big, "threshold", 0.5, seed=1, tau=0.5)


def test_method_parameters_lists_own_and_common_names():
    assert {"theta", "size", "dyadic", "consistency", "stats"} <= set(method_parameters("filter-priority"))
    assert "tau" not in method_parameters("filter")
    with pytest.raises(ValueError, match="unknown sparse method"):
        method_parameters("laplace")


def test_theta_and_tau_from_target_size_follow_appendix_c():
    from psdviz.sparse.params import tau_for_size, theta_for_size
    from psdviz.sparse.zero_law import ZeroLaw
    a, n_zero, t = 0.905, 10 ** 8, 50_000
    for two in (False, True):
        theta = theta_for_size(a, t, n_zero, two)
        expected = n_zero * ZeroLaw(a, theta, None, two).pass_probability()
        assert a * t < expected <= t          # ceil(theta): at most t, and theta - 1 would exceed t
    # tau: (||M||_1 + 2 m a / (1 - a^2)) / t
    assert tau_for_size(a, 1000, 5000.0, 10 ** 4) == pytest.approx((5000 + 2e4 * a / (1 - a * a)) / 1000)


def test_default_grid_is_4096_squared():
    pts = np.array([[0.5, 0.5], [0.1, 0.9], [2.0, 2.0]])
    t = grid_table(pts, Domain(0, 0, 1, 1))
    assert t.m == 4096 * 4096 and t.n == 2 and t.layout["points"]["rows_outside_domain"] == 1


def test_filter_max_size_raises_theta_on_the_output_only():
    t = small(m=50_000, n=2000)
    full = summarize(t, "filter", 0.5, seed=4, theta=2)
    capped = summarize(t, "filter", 0.5, seed=4, theta=2, max_size=1500)
    assert capped.size <= 1500 < full.size
    theta = capped.params["theta"]
    mag = np.abs(full.values)
    # same draw (same seed): the capped summary is exactly the full one filtered at theta',
    # and theta' - 1 would have kept more than max_size entries
    assert np.array_equal(capped.indices, full.indices[mag >= theta])
    assert (mag >= theta - 1).sum() > 1500 and capped.params["theta_initial"] == 2


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("dyadic", [False, True])
def test_empty_table_runs(method, dyadic):
    rel = summarize(make_table([], [], 1000), method, 1.0, seed=1, dyadic=dyadic)
    out = rel.range_sums([0, 10], [1000, 20])
    assert out.dtype == float and out.shape == (2,)


@pytest.mark.parametrize("method", ["priority", "filter-priority"])
def test_dense_tables_never_fail_after_spending(method):
    """On a dense 100-cell table the noisy n often rounds outside
    [1, m - 1]; it used to raise after the statistics budget was spent (97 of 200 calls). Now the size
    is clamped: every call releases, with at most m - 1 entries."""
    t = make_table(np.arange(100), np.full(100, 5), 100)
    for seed in range(200):
        rel = summarize(t, method, 1.0, seed=seed)
        assert 0 <= rel.size <= 99          # filter-priority may filter everything out
        assert rel.ledger.total() == pytest.approx(1.0)
