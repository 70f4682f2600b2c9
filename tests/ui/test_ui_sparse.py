"""AppTest of the Sparse page and its query/heatmap helpers against slow versions."""
import json

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from psdviz import sparse
from psdviz.lab.sparse_lab import compare_queries, query_sizes, range_queries, subset_queries
from psdviz.ui import sparse_view as view

SCRIPT = "from psdviz.ui.sparse_page import render\nrender()"


def _metrics(at) -> dict:
    return {m.label: m.value for m in at.metric}


def _grid_app(side=256) -> AppTest:
    at = AppTest.from_string(SCRIPT, default_timeout=120)
    at.run()
    at.radio(key="sp_source").set_value("Points on a fine grid").run()
    at.radio(key="sp_rand").set_value("seed").run()       # seed 0: comparable with the engine
    at.select_slider(key="sp_side").set_value(side).run()
    assert not at.exception and not at.error
    return at


def test_flights_table_summary_heatmap_and_query_chart():
    at = AppTest.from_string(SCRIPT, default_timeout=120)
    at.run()
    at.radio(key="sp_source").set_value("Flights sample: tail number x scheduled service").run()
    assert not at.exception and not at.error
    assert "not private" in at.warning[0].value          # the categories come from the data itself
    m = _metrics(at)
    assert m["Cells in the table (m)"] == "48,750,494"
    assert int(m["Summary size"].replace(",", "")) > 0
    assert len(at.get("plotly_chart")) == 2            # heatmaps + error against size
    heat = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert [d["type"] for d in heat["data"]] == ["heatmap", "heatmap"]
    # the full geometric mechanism is refused on 48.7 M cells with an explanation; the app runs on
    at.selectbox(key="sp_method").set_value("geometric").run()
    assert not at.exception and "20,000,000" in at.error[0].value


def test_grid_summary_matches_the_engine_and_explicit_parameters():
    at = _grid_app(256)
    at.selectbox(key="sp_method").set_value("filter").run()
    at.radio(key="sp_auto").set_value("explicit").run()
    at.number_input(key="sp_theta").set_value(2).run()
    assert not at.exception and not at.error
    from psdviz.io.samples import SAMPLES, sample_points
    table = sparse.grid_table(sample_points("geonames"), SAMPLES["geonames"].domain, 256, 256)
    rel = sparse.summarize(table, "filter", 1.0, seed=0, theta=2)
    assert _metrics(at)["Summary size"] == f"{rel.size:,}"
    at.selectbox(key="sp_method").set_value("geometric").run()
    assert not at.error and _metrics(at)["Summary size"] == f"{256 * 256:,}"   # small enough: every cell


def test_explicit_priority_and_upload_wait():
    at = _grid_app(128)
    at.selectbox(key="sp_method").set_value("priority").run()
    at.radio(key="sp_auto").set_value("explicit").run()
    assert not at.exception and not at.error
    at.radio(key="sp_source").set_value("Upload a table (two categorical columns)").run()
    assert not at.exception and at.info               # waits for a file


def test_block_sums_against_a_dense_slow_version():
    rng = np.random.default_rng(0)
    R, C = 37, 53
    idx = np.unique(rng.integers(0, R * C, 300))
    val = rng.integers(1, 9, idx.size).astype(float)
    got = view.block_sums(idx, val, (R, C), side=10)
    dense = np.zeros((R, C))
    dense.flat[idx] = val
    fr, fc = -(-R // 10), -(-C // 10)
    slow = np.zeros((-(-R // fr), -(-C // fc)))
    for r in range(R):
        for c in range(C):
            slow[r // fr, c // fc] += dense[r, c]
    np.testing.assert_allclose(got, slow)
    assert got.sum() == val.sum()


def test_query_workloads_and_errors_against_slow_sums():
    rng = np.random.default_rng(1)
    m = 5000
    idx = np.unique(rng.integers(0, m, 400))
    table = sparse.make_table(idx, rng.integers(1, 20, idx.size), m)
    rel = sparse.summarize(table, "filter", 1.0, seed=3, theta=2)
    dense_true = np.zeros(m)
    dense_true[table.indices] = table.counts
    ri, _, rw = rel.leaves()
    dense_est = np.zeros(m)
    dense_est[ri] = rw
    sizes = query_sizes(m)
    assert sizes[0] == 1 and sizes[-1] == 500
    df = compare_queries(rel, table, sizes, q=15, seed=4)
    assert set(df.kind) == {"range", "subset"} and len(df) == 2 * 15 * len(sizes)
    lo, hi, sz = range_queries(m, sizes, 15, np.random.default_rng(4))
    for i in range(0, lo.size, 11):                   # same seed: same ranges as compare_queries
        assert df.truth[i] == dense_true[lo[i]:hi[i]].sum()
        assert df.estimate[i] == pytest.approx(dense_est[lo[i]:hi[i]].sum())
    np.testing.assert_allclose(df.abs_error, np.abs(df.estimate - df.truth))
    subs = subset_queries(m, [7, 50], 5, np.random.default_rng(0))
    assert [s.size for s in subs] == [7] * 5 + [50] * 5 and all(np.unique(s).size == s.size for s in subs)
    with pytest.raises(ValueError, match="range size"):
        range_queries(10, [11], 1, rng)
