"""AppTest of the Teach page: two releases of the map page's data (or the sample), one rectangle answered
by both beside the truth, k fresh releases, the owner's error map labelled NOT private; a new data set
clears the rectangle and the redraws."""
from __future__ import annotations

import numpy as np
from streamlit.testing.v1 import AppTest

import psdviz as pv
from psdviz.ui import data_input
from psdviz.ui.answer_box import people
from psdviz.ui.words import file_text

SCRIPT = """
import streamlit as st
from psdviz.ui import mapview, teach_page
mapview.show_map = lambda fmap, key, height=560, overlay=None: st.session_state.get("fake_" + key, {})
teach_page.render()
"""
RECT = [-10.0, 35.0, 30.0, 60.0]


def _app():
    at = AppTest.from_string(SCRIPT, default_timeout=180)
    at.run()
    at.radio(key="teach_rand").set_value("seed").run()
    return at


def test_two_releases_answer_one_rectangle_and_the_noise_is_drawn_again():
    at = _app()
    assert not at.exception and not at.error
    assert any("Draw a rectangle on the left map" in i.value for i in at.info)
    at.session_state["teach_rect"] = RECT
    at.run()
    table = at.dataframe[0].value
    assert list(table["map"]) == ["left", "right"] and list(table["epsilon"]) == [0.1, 1.0]
    xy = data_input.sample_dataset("geonames").xy
    dom = data_input.sample_dataset("geonames").domain
    left = pv.build(xy, dom, method="quadtree", epsilon=0.1, seed=0, outside="drop", nonfinite="drop")
    assert table["private answer"][0] == people(float(left.answer([RECT])[0]))
    low, high = left.answer_interval([RECT])[0]           # the whole interval beside it, the noise a detail
    assert table["95 % interval, noise and the cells the edges cut"][0] == f"{people(low)} to {people(high)}"
    truth = int(pv.true_answer(xy[np.isfinite(xy).all(axis=1)], [RECT])[0])
    shown = float(left.answer_error(np.asarray([RECT], float))["shown"][0])
    assert table["error (NOT private)"][0] == people(shown - truth)   # rounded as the answer beside it is
    assert any(f"True count (NOT private, for the data owner): {truth:,}" in c.value for c in at.caption)
    at.number_input(key="teach_k").set_value(4).run()
    at.button(key="teach_redraw").click().run()
    assert not at.exception
    assert any(c.value.startswith("4 fresh releases") for c in at.caption)
    at.toggle(key="teach_errors").set_value(True).run()
    assert any("NOT PRIVATE" in w.value for w in at.warning)
    assert any("within one standard error of their true count" in c.value for c in at.caption)


def test_new_data_clears_the_rectangle_and_the_redraws():
    at = _app()
    at.session_state["teach_rect"] = RECT
    at.run()
    at.button(key="teach_redraw").click().run()
    assert "teach_redraws" in at.session_state
    other = data_input.sample_dataset("flight_airports")
    at.session_state["psdviz_data"] = other
    at.run()
    assert not at.exception
    assert "teach_rect" not in at.session_state and "teach_redraws" not in at.session_state
    assert any("New data" in c.value for c in at.caption)
    assert any(file_text("flight_airports") in c.value for c in at.caption)   # the data's name, as written
