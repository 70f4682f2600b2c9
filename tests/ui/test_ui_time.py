"""AppTest of the Counts over time page: the release of the flights (or the synthetic stream), the time slider and
its step button, the rectangle's series with its intervals and the owner's truth labelled NOT private, the
teaching view (per-window releases against this release), every unit and mechanism, and errors in words."""
from __future__ import annotations

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import psdviz as pv
from psdviz import temporal
from psdviz.lab import time_teaching
from psdviz.ui import time_page

SCRIPT = """
from psdviz.ui.state import keep_widget_state
keep_widget_state()                 # as the app's pages script does before every page
from psdviz.ui import time_page
time_page.render()
"""


def _app(data: str = time_page.SYNTHETIC) -> AppTest:
    at = AppTest.from_string(SCRIPT, default_timeout=240)
    at.run()
    at.selectbox(key="time_data").set_value(data).run()
    at.radio(key="time_rand").set_value("seed").run()
    return at


def test_the_slider_steps_and_the_series_is_the_engines():
    at = _app()
    assert not at.exception and not at.error
    assert at.select_slider(key="time_window_at").value == 0
    at.button(key="time_step_btn").click().run()
    assert at.select_slider(key="time_window_at").value == 1
    assert any(c.value.startswith("Window 2 of 182") for c in at.caption)
    rect = [0.2, 0.2, 0.6, 0.7]
    for k, v in zip(("time_x0", "time_y0", "time_x1", "time_y1"), rect):
        at.number_input(key=k).set_value(v)
    at.run()
    data = time_page._synthetic()
    rel = pv.build_over_time(data.xy, data.domain, time=data.seconds, span=data.span, window="1d", epsilon=1.0,
                             grid_level=4, seed=0)
    est = float(rel.answer([rect])[0])
    low, high = rel.answer_interval([rect])[0]
    assert any(f"Over the whole span: {est:,.0f} (95 % interval {low:,.0f} to {high:,.0f})" in c.value
               for c in at.caption)
    at.toggle(key="time_truth").set_value(True).run()
    assert any("NOT PRIVATE" in w.value for w in at.warning)


def test_the_teaching_view_compares_per_window_releases_at_the_same_epsilon():
    at = _app()
    assert any("compose in parallel" in i.value for i in at.info)        # event level: no gap to show
    at.radio(key="time_unit").set_value("user").run()
    table = at.dataframe[0].value
    assert list(table["windows"]) == [1, 7, 30, 182]
    data = time_page._synthetic()
    rel = pv.build_over_time(data.xy, data.domain, time=data.seconds, span=data.span, window="1d", epsilon=1.0,
                             grid_level=4, seed=0, unit="user", user=data.user, max_points_per_window=3,
                             max_points_per_user=200)
    want = time_teaching.range_errors(rel, 3)
    np.testing.assert_allclose(table["ratio"], want["ratio"].round(2))
    assert table["ratio"].iloc[-1] > 10           # the span: per-window releases at epsilon / T are far noisier
    at.button(key="time_build_pw_btn").click().run()
    assert not at.exception
    assert any("per-window releases' noise standard error is" in c.value for c in at.caption)


@pytest.mark.parametrize(("unit", "mechanism"), [("user", "tree"), ("user", "flat"), ("w-event", "ba"),
                                                 ("w-event", "bd"), ("event", "tree")])
def test_every_unit_and_mechanism_builds(unit, mechanism):
    at = _app()
    at.radio(key="time_unit").set_value(unit).run()
    at.selectbox(key=f"time_mech_{unit}").set_value(mechanism).run()
    assert not at.exception and not at.error
    unit_words = {"user": "one user, at most 200 points", "w-event": "one user in any 7 consecutive windows",
                  "event": "one point"}[unit]
    assert any(f"`{mechanism}`" in c.value and unit_words in c.value for c in at.caption)


def test_l_chosen_from_the_data_is_stated():
    """The box "Choose L from the data, privately" builds with max_points_per_user="auto": the unit names the most a
    contributor can keep (m times the windows) and the chosen L is said in the release's notes."""
    at = _app()
    at.radio(key="time_unit").set_value("user").run()
    at.checkbox(key="time_l_auto").check().run()
    assert not at.exception and not at.error
    said = [c.value for c in at.caption if "one user, at most 546 points" in c.value]     # 3 a window, 182 windows
    assert len(said) == 1 and "chosen privately from the data" in said[0]
    assert "from the whole span down to one window" in said[0]                  # the tree: one L a level


def test_a_bad_rectangle_is_said_in_words():
    at = _app()
    at.number_input(key="time_x1").set_value(at.number_input(key="time_x0").value - 0.1).run()
    assert any("x1 must exceed x0" in e.value for e in at.error)
    assert not at.exception


@pytest.mark.skipif(not temporal.flights_available(), reason="vega-datasets not fetched (.ci/fetch_test_data)")
def test_the_flights_are_the_default_and_their_truth_is_exact():
    at = AppTest.from_string(SCRIPT, default_timeout=240)
    at.run()
    assert not at.exception
    assert at.selectbox(key="time_data").value == time_page.FLIGHTS
    data = time_page._flights()
    assert len(data.seconds) == 3_000_000
    rect = [-80.0, 38.0, -70.0, 45.0]
    win = temporal.TimeAxis.over(data.span, "1d").index(data.seconds)
    truth = time_teaching.true_series(data.xy, win, 181, rect)
    inside = pv.true_answer(data.xy[win == 3], [rect])[0]
    assert truth[3] == inside and truth.sum() > 100_000
    assert np.all(truth >= 0)
