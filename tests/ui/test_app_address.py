"""The map page's view in the page address (psdviz/ui/address.py): written as the view changes, and read by a
new session (a reload, a bookmark, a link) into the same method, epsilon, domain, resolution, seed and rectangle,
with fresh noise unless a seed is part of it; an uploaded file is asked for again by its name."""
from __future__ import annotations

from streamlit.testing.v1 import AppTest
from test_app_page import SCRIPT

from psdviz.ui import keys

PAGE = SCRIPT.replace("map_page.render()", "from psdviz.ui import address\naddress.read_once()\n"
                      "address.write(st.session_state.get(address.VIEW))\nmap_page.render()")


def _new_session(params: dict) -> AppTest:
    at = AppTest.from_string(PAGE, default_timeout=120)
    for k, v in params.items():
        at.query_params[k] = v
    at.run()
    assert not at.exception, at.exception
    return at


def _address(at) -> dict:
    return {k: (v[0] if isinstance(v, list) else v) for k, v in at.query_params.items()}


def test_the_view_goes_into_the_address_as_it_changes():
    at = _new_session({})
    at.selectbox(key="method").set_value("kdtree")
    at.select_slider(key="epsilon").set_value(1.0)
    at.radio(key="sample_domain").set_value("the world").run()
    at.session_state[keys.QUERY_RECT] = [-10.0, 35.0, 30.0, 60.0]
    at.run()
    q = _address(at)
    assert q["sample"] == "geonames" and q["method"] == "kdtree" and q["epsilon"] == "1"
    assert q["domain"] == "world" and q["resolution"] == "20" and q["rect"] == "-10,35,30,60" and "seed" not in q


def test_a_reload_opens_the_same_view_with_fresh_noise():
    at = _new_session({"sample": "geonames", "method": "kdtree", "epsilon": "1", "domain": "world",
                       "resolution": "12", "rect": "-10,35,30,60"})
    assert at.selectbox(key="method").value == "kdtree"
    assert at.select_slider(key="epsilon").value == 1.0
    assert at.radio(key="sample_domain").value == "the world"
    assert at.number_input(key="resolution").value == 12
    assert at.radio(key="rand_mode").value == "fresh"
    line = next(m.value for m in at.markdown if "PRIVATE release" in m.value)
    assert "`kdtree`, epsilon = 1 " in line and "fresh" in line
    asked = " ".join(c.value for c in at.caption if c.value.startswith("Query #"))
    assert "x [-10, 30], y [35, 60]" in asked                       # the rectangle answered again


def test_a_seed_in_the_address_gives_the_same_release_and_typed_values_and_places_are_kept():
    view = {"sample": "geonames", "method": "quadtree", "epsilon": "0.7", "seed": "11",
            "domain": "place:USA: the lower 48 states and DC"}
    first, second = _new_session(view), _new_session(view)
    lines = [next(m.value for m in at.markdown if "release" in m.value and "epsilon = 0.7" in m.value)
             for at in (first, second)]
    assert lines[0] == lines[1] and "seeded" in lines[0]
    assert first.radio(key="sample_domain").value == "a country or US state (public outline)"
    assert first.selectbox(key="sample_preset").value == "USA: the lower 48 states and DC"


def test_an_address_naming_an_upload_asks_for_the_file_by_name():
    at = _new_session({"upload": "trips.csv", "method": "auto", "epsilon": "0.5", "domain": "-74,45,-73,46"})
    said = " ".join(i.value.replace("\\", "") for i in at.main.info)
    assert "Upload trips.csv again" in said and "never holds the data" in said
    assert at.radio(key="data_source").value == "upload a file"


def test_a_value_the_app_refuses_leaves_the_default():
    at = _new_session({"sample": "nowhere", "method": "rm -rf", "epsilon": "1e9", "rect": "1,2,x,4"})
    assert at.selectbox(key="method").value == "auto" and at.select_slider(key="epsilon").value == 0.5
    assert keys.QUERY_RECT not in at.session_state


def test_an_upload_not_made_yet_names_no_file_in_the_address():
    at = _new_session({})
    at.radio(key="data_source").set_value("upload a file").run()
    assert not at.exception, at.exception
    q = _address(at)
    assert "upload" not in q and "sample" not in q and q["method"] == "auto"


NAVIGATE = """
import streamlit as st
from psdviz.ui import address, map_page, mapview, release_page
from psdviz.ui.state import keep_widget_state
mapview.show_map = lambda *a, **k: {}
keep_widget_state()
address.read_once()
page = st.session_state.get("_page", "map")
address.show(page)                                   # as the pages script does, with the page's url path
{"map": map_page.render, "release": release_page.render}[page]()
"""


def test_open_a_release_holds_none_of_the_map_view_in_its_address_and_the_map_gets_it_back():
    at = AppTest.from_string(NAVIGATE, default_timeout=120)
    for k, v in {"method": "kdtree", "epsilon": "1", "rect": "-10,35,30,60", "lesson": "ABCD"}.items():
        at.query_params[k] = v
    at.run()
    assert not at.exception, at.exception
    view = _address(at)
    assert view["method"] == "kdtree" and view["rect"] == "-10,35,30,60" and view["sample"] == "geonames"
    at.session_state["_page"] = "release"
    at.run()
    assert not at.exception, at.exception
    assert _address(at) == {"lesson": "ABCD"}             # the class code is not the map's view: it stays
    at.session_state["_page"] = "map"
    at.run()
    assert _address(at) == view


def test_a_link_to_open_a_release_with_map_parameters_drops_them():
    at = AppTest.from_string(NAVIGATE, default_timeout=120)
    at.session_state["_page"] = "release"
    for k, v in {"sample": "geonames", "method": "ug", "epsilon": "2", "domain": "world"}.items():
        at.query_params[k] = v
    at.run()
    assert not at.exception, at.exception
    assert _address(at) == {}
    assert any("Upload a release file" in i.value for i in at.main.info)
