"""What the user did survives navigation: the map page's inputs, and an uploaded file, are the same after
a visit to another page; "Start over" forgets them."""
from __future__ import annotations

from pathlib import Path

import pandas as pd
from streamlit.testing.v1 import AppTest

from psdviz.ui.state import settable

PAGES = str(Path(__file__).resolve().parents[2] / "psdviz" / "ui" / "pages.py")


def _app():
    at = AppTest.from_file(PAGES, default_timeout=180)
    at.run()
    assert not at.exception
    return at


NAVIGATE = """
import streamlit as st
from psdviz.ui import map_page, mapview, release_page, teach_page
from psdviz.ui.state import keep_widget_state
mapview.show_map = lambda *a, **k: {}
if KEEP:
    keep_widget_state()
page = st.session_state.get("_page", "map")
{"map": map_page.render, "release": release_page.render, "teach": teach_page.render}[page]()
"""


def _visit(keep: bool):
    """Change the map page's inputs, visit two other pages (their runs do not draw the map's widgets, as
    st.navigation's do not), come back."""
    at = AppTest.from_string(NAVIGATE.replace("KEEP", str(keep)), default_timeout=180)
    at.run()
    at.selectbox(key="method").set_value("ug").run()
    at.select_slider(key="epsilon").set_value(1.0).run()
    at.radio(key="rand_mode").set_value("seed").run()
    for page in ("release", "teach", "map"):
        at.session_state["_page"] = page
        at.run()
        assert not at.exception, (page, at.exception)
    return at


def test_inputs_survive_a_visit_to_another_page():
    at = _visit(keep=True)
    assert at.selectbox(key="method").value == "ug"
    assert at.select_slider(key="epsilon").value == 1.0
    assert at.radio(key="rand_mode").value == "seed"
    forgot = _visit(keep=False)                     # without keeping them, Streamlit forgets them
    assert forgot.selectbox(key="method").value != "ug" or forgot.select_slider(key="epsilon").value != 1.0


def test_an_upload_is_kept_for_the_session_and_start_over_forgets_it():
    at = _app()
    at.session_state["psdviz_uploaded_points"] = ("mine.csv", pd.DataFrame(
        {"lon": [1.0, 2.0, 3.0], "lat": [4.0, 5.0, 6.0]}).to_csv(index=False).encode())
    at.radio(key="data_source").set_value("upload a file").run()
    assert not at.exception
    assert any("Using `mine.csv`, uploaded earlier in this session" in c.value for c in at.caption)
    at.button(key="start_over_btn").click().run()
    assert "psdviz_uploaded_points" not in at.session_state


def test_buttons_uploaders_and_maps_are_never_reassigned():
    for key in ("upload", "rg_upload", "qtyped", "renoise", "dl_csv", "cmp_run_btn", "release_map"):
        assert not settable(key)
    for key in ("method", "epsilon", "p_quadtree_height", "rg_layer"):
        assert settable(key)
