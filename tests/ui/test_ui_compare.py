"""AppTest of the Compare page: widgets in, charts, tables and exports out."""
import json

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from psdviz.lab import compare as C
from psdviz.ui import compare_charts as charts
from psdviz.ui import compare_page as page

SCRIPT = "from psdviz.ui.compare_page import render\nrender()"
SYNTH = next(iter(page.SYNTHETIC))


def _app() -> AppTest:
    at = AppTest.from_string(SCRIPT, default_timeout=120)
    at.run()
    at.selectbox(key="cmp_source").select(SYNTH).run()
    at.radio(key="cmp_rand").set_value("seed").run()
    return at


def _small_custom(at: AppTest) -> AppTest:
    at.multiselect(key="cmp_methods").set_value(["quadtree", "ug"])
    at.multiselect(key="cmp_eps").set_value([0.5, 1.0])
    at.slider(key="cmp_q").set_value(50)
    at.slider(key="cmp_trials").set_value(1)
    return at.run()


def test_page_opens_with_controls_and_no_error():
    at = _app()
    assert not at.exception and not at.error
    assert at.button(key="cmp_run_btn")
    assert "50,000 points" in " ".join(c.value for c in at.caption)
    assert not at.get("plotly_chart")          # nothing runs before the button


def test_run_shows_charts_and_the_engine_numbers():
    at = _small_custom(_app())
    at.button(key="cmp_run_btn").click().run()
    assert not at.exception and not at.error
    assert len(at.get("plotly_chart")) == 3    # boxes, lines against epsilon, build times
    captions = " ".join(c.value for c in at.caption)
    assert "Add auto to the methods to see which method it picks" in captions   # auto was not run
    assert "median error from epsilon =" in captions or "no method reaches" in captions
    assert len(at.get("download_button")) == 2
    shown = at.dataframe[0].value
    # the same experiment straight from the engine gives the same summary (seed 0)
    xy, dom, _ = page._load(SYNTH)
    wl = C.Workload("shape", page._parse_pairs(at.text_input[0].value), 50)
    df = C.run_experiment(xy, dom, [C.variant("quadtree", "quadtree"), C.variant("ug", "ug")], [0.5, 1.0], wl,
                          trials=1, seed=0)
    expect = C.summarize(df)
    np.testing.assert_allclose(shown["median_rel_error"].to_numpy(), expect["median_rel_error"].to_numpy())
    # a rerun with the same inputs is served from the cache and still shows the charts
    at.run()
    assert len(at.get("plotly_chart")) == 3


def test_changing_inputs_abandons_the_old_results():
    at = _small_custom(_app())
    at.button(key="cmp_run_btn").click().run()
    at.multiselect(key="cmp_eps").set_value([0.5]).run()
    assert not at.get("plotly_chart")
    assert "inputs changed" in at.info[0].value


@pytest.mark.parametrize("text, word", [("1x", "two numbers"), ("abc", "WIDTHxHEIGHT"), ("5x5", "fit in the domain"),
                                        ("", "at least one")])
def test_bad_shapes_show_an_error_and_the_app_keeps_running(text, word):
    at = _app()
    at.text_input[0].set_value(text).run()
    assert not at.exception
    assert word in at.error[0].value
    at.text_input[0].set_value("0.1x0.1").run()
    assert not at.error and at.button(key="cmp_run_btn")


def test_no_method_or_epsilon_is_an_error():
    at = _app()
    at.multiselect(key="cmp_methods").set_value([]).run()
    assert "methods" in at.error[0].value
    at.multiselect(key="cmp_methods").set_value(["ug"])
    at.multiselect(key="cmp_eps").set_value([]).run()
    assert "epsilons" in at.error[0].value


def test_centred_workload_runs():
    at = _app()
    at.radio(key="cmp_kind").set_value("Areas centred on data points").run()
    at.multiselect(key="cmp_methods").set_value(["ug"])
    at.multiselect(key="cmp_eps").set_value([1.0])
    at.slider(key="cmp_q").set_value(20)
    at.slider(key="cmp_trials").set_value(1)
    at.run().button(key="cmp_run_btn").click().run()
    assert not at.exception and not at.error
    assert len(at.get("plotly_chart")) == 2    # one epsilon: no lines against epsilon


def test_the_quadtree_planned_for_the_queries_runs_beside_the_others_and_is_labelled():
    at = _small_custom(_app())
    at.checkbox(key="cmp_planned").check().run()
    assert "it is not a private release of the data" in " ".join(c.value for c in at.caption)
    at.button(key="cmp_run_btn").click().run()
    assert not at.exception and not at.error
    assert set(at.dataframe[0].value["method"]) == {"quadtree", "ug", "quadtree+W"}


def test_preset_runs_and_names_what_it_left_out():
    at = _app()
    at.selectbox(key="cmp_preset").select("icde12-fig3").run()
    at.slider(key="cmp_pq").set_value(20)
    at.slider(key="cmp_trials").set_value(1)
    at.run().button(key="cmp_run_btn").click().run()
    assert not at.exception and not at.error
    shown = at.dataframe[0].value
    assert set(shown["method"]) == {"quad-baseline", "quad-geo", "quad-post", "quad-opt"}
    assert set(shown["epsilon"]) == {0.1, 0.5, 1.0}
    at.selectbox(key="cmp_preset").select("htree-outliers").run()
    text = " ".join(c.value for c in at.caption)
    if "htree" not in C.available_methods():
        assert "Left out: h-tree" in text


def _tiny_results() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    xy = rng.uniform(0, 1, (2000, 2))
    dom = page.SYNTH_DOMAIN
    wl = C.Workload("shape", ((0.1, 0.1), (0.5, 0.2)), 20)
    reports: list = []
    qs = C.make_queries(xy, dom, wl, 0)
    df = pd.concat([C.run_cell(xy, dom, C.variant(m, m), e, qs, 2, 0, reports) for m in ("ug", "quadtree")
                    for e in (0.5, 1.0)], ignore_index=True)
    return df, reports


def test_charts_have_a_trace_per_method_and_exports_hold_no_rectangles():
    df, reports = _tiny_results()
    box = charts.error_boxes(df, 0.5)
    assert sorted(t.name for t in box.data) == ["quadtree", "ug"]
    assert len(box.data[0].y) == len(df[(df.method == box.data[0].name) & (df.epsilon == 0.5)])
    lines = charts.error_lines(df)
    assert len(lines.data) == 2 * 2            # methods x shapes
    times = charts.build_times(df)
    assert sum(len(t.y) for t in times.data) == 4
    csv = pd.read_csv(pd.io.common.BytesIO(charts.results_csv(df)))
    assert list(csv.columns) == C.COLUMNS       # estimates, truths, errors; no rectangles, no points
    doc = json.loads(charts.results_json(df, {"seed": 0}, {"ug @ 0.5": reports[:1]}))
    assert doc["privacy_reports"]["ug @ 0.5"][0]["ledger"]
    assert len(doc["summary"]) == 2 * 2 * 2


def test_parsers():
    assert page._parse_pairs("1x1, 5*5; 15x0.2") == ((1, 1), (5, 5), (15, 0.2))
    assert page._parse_fractions("0.001, 0.01") == ((0.001, 1.0), (0.01, 1.0))
    with pytest.raises(ValueError, match="area fractions"):
        page._parse_fractions("a, b")


def test_data_shared_by_another_page_is_offered():
    from types import SimpleNamespace

    from psdviz import Domain
    at = AppTest.from_string(SCRIPT, default_timeout=120)
    xy = np.random.default_rng(1).uniform(0, 2, (3000, 2))
    at.session_state[page.SHARED_DATA_KEY] = SimpleNamespace(name="my.csv", xy=xy, domain=Domain(0, 0, 2, 2))
    at.run()
    assert at.selectbox(key="cmp_source").value.startswith("Data loaded on the map page: my.csv")
    assert "3,000 points" in " ".join(c.value for c in at.caption)


def test_the_frontier_marks_what_auto_picked_in_this_run():
    """auto's pick depends on its noisy facts, so the page reads it from the builds' reports."""
    rng = np.random.default_rng(2)
    xy = rng.uniform(0, 1, (3000, 2))
    reports: list = []
    qs = C.make_queries(xy, page.SYNTH_DOMAIN, C.Workload("shape", ((0.2, 0.2),), 10), 0)
    C.run_cell(xy, page.SYNTH_DOMAIN, C.variant("auto", "auto"), 1.0, qs, 2, 0, reports)
    picks = page.auto_picks({"auto @ 1": reports, "ug @ 1": [{"method": "ug", "parameters": {}}]})
    assert picks == sorted({r["parameters"]["chosen"] for r in reports})
    assert picks and set(picks) <= {"ag", "privtree"}
    assert page.auto_picks({}) == []
