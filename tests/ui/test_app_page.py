"""AppTest of the map page: widgets in, outputs out. The map component is replaced by a fake
(``psdviz.ui.mapview.show_map``, given the page's MapView: its script and kept query rectangle) that returns
what the test puts in session state."""
import json

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import psdviz as pv
from psdviz.io.samples import sample_points
from psdviz.present import RULES
from psdviz.ui import data_input, export, keys
from psdviz.ui.answer_box import people

SCRIPT = """
import streamlit as st
from psdviz.ui import map_page, mapview

def fake_map(view, key, height=560, overlay=None):
    st.session_state["map_calls"] = st.session_state.get("map_calls", 0) + 1
    if not isinstance(view, mapview.MapView):              # another page's folium map
        st.session_state["map_html_len"] = len(view.get_root().render())
        return st.session_state.get("fake_map_value", {})
    st.session_state["map_html_len"] = len(view.script)
    rect = None if view.query is None else view.query[0]
    st.session_state["overlay"] = None if rect is None else [[[rect[1], rect[0]], [rect[3], rect[2]]]]
    st.session_state["overlay_clears"] = view.query is not None and view.query[1]
    return st.session_state.get("fake_map_value", {})

mapview.show_map = fake_map
map_page.render()
"""
RECT = [-10.0, 35.0, 30.0, 60.0]  # Europe, roughly


def _drawing(r):
    x0, y0, x1, y1 = r
    return {"type": "Feature", "properties": {},
            "geometry": {"type": "Polygon", "coordinates": [[[x0, y0], [x0, y1], [x1, y1], [x1, y0], [x0, y0]]]}}


def _app(height=6, seed=True):
    at = AppTest.from_string(SCRIPT, default_timeout=120)
    at.run()
    if seed:
        at.radio(key="rand_mode").set_value("seed")
    at.selectbox(key="method").set_value("quadtree").run()
    at.checkbox(key="p_quadtree_height_on").check().run()
    at.number_input(key="p_quadtree_height").set_value(height)
    at.checkbox(key="p_quadtree_prune_on").uncheck()       # complete trees: the views below count cells
    at.run()
    assert not at.exception, at.exception
    return at


def _metric(at, label):
    return next(m.value for m in at.metric if m.label == label)


@pytest.fixture(scope="module")
def points():
    return sample_points("geonames")


def test_opens_with_auto_on_the_sample_and_says_what_it_picked():
    at = AppTest.from_string(SCRIPT, default_timeout=120)
    at.run()
    assert not at.exception and not at.error
    assert at.selectbox(key="method").value == "auto"
    assert any("PRIVATE release" in m.value and "`auto`" in m.value for m in at.markdown)
    said = [c.value for c in at.sidebar.caption if c.value.startswith("auto spends a small part")]
    assert len(said) == 1 and "N eps" not in said[0] and len(said[0].split()) < 50   # a sentence to read aloud
    rule = [c.value for c in at.sidebar.caption if c.value.startswith("auto spends 2%")]
    assert len(rule) == 1 and "privtree" in rule[0] and "ag when" in rule[0]      # the rule table, in the expander
    picked = [c.value for c in at.caption if c.value.startswith("What auto measured")]   # its facts and rule
    assert len(picked) == 1 and picked[0].endswith("Rule: any other data.")   # GeoNames: concentrated points
    aloud = [m.value for m in at.markdown if m.value.startswith("**auto chose privtree.** ")]
    assert len(aloud) == 1 and "N eps" not in aloud[0] and "docs/" not in aloud[0] and len(aloud[0].split()) < 45
    varies = [c.value for c in at.main.caption if "may pick another method" in c.value]   # its facts are noisy
    assert len(varies) == 1 and "a seed makes the pick repeatable" in varies[0] and len(varies[0].split()) < 35
    table = [m.value for m in at.expander[[e.label for e in at.expander].index("How auto chose")].markdown
             if m.value.startswith("| when | method |")]
    assert len(table) == 1 and len(table[0].splitlines()) == 2 + len(RULES)       # a row per rule, no data frame
    assert all(f"| {r.label.replace('+', chr(92) + '+')} |" in table[0] for r in RULES)
    assert at.session_state["map_calls"] >= 1 and at.session_state["map_html_len"] > 10_000
    assert float(_metric(at, "Epsilon spent")) == pytest.approx(0.5)
    assert set(pv.METHODS) - {"auto"} | {"auto (recommended)"} <= set(at.selectbox(key="method").options)


def test_drawn_rectangle_gives_private_and_true_answers(points):
    at = _app()
    at.session_state["fake_map_value"] = {"all_drawings": [_drawing(RECT)], "last_object_clicked": None}
    at.run()
    assert not at.exception
    rel = pv.build(points, pv.Domain.world(), method="quadtree", epsilon=0.5, seed=7, nonfinite="drop", height=6,
                   prune=None)
    private = float(rel.answer([RECT])[0])
    truth = int(pv.true_answer(points, [RECT])[0])
    assert _metric(at, "Private answer") == people(private)
    assert _metric(at, "True answer (not private)") == f"{truth:,}"
    se = float(np.sqrt(rel.answer_variance([RECT])[0]))
    low, high = rel.answer_interval([RECT])[0]          # the headline interval: noise and the cut cells
    assert _metric(at, "95 % interval") == f"{people(low)} to {people(high)}"
    assert any(f"the noise's standard error {people(se)}" in c.value for c in at.caption)
    assert _metric(at, "Absolute error") == people(abs(private - truth))     # rounded as the answers are
    # the comparison is recorded for the CSV export
    rows = at.session_state["comparisons"]
    assert rows[-1]["true_answer_NOT_PRIVATE"] == truth and rows[-1]["method"] == "quadtree"
    csv = export.comparisons_csv(rows).decode()
    assert csv.splitlines()[0].startswith("xmin,ymin,xmax,ymax,private_answer") and str(truth) in csv
    # the query survives a map remount (empty drawings) and a method switch rebuilds and re-answers it
    at.session_state["fake_map_value"] = {"all_drawings": [], "last_object_clicked": None}
    at.selectbox(key="method").set_value("ug")
    at.run()
    assert not at.exception
    assert any("`ug`" in m.value for m in at.markdown)
    ug = pv.build(points, pv.Domain.world(), method="ug", epsilon=0.5, seed=7, nonfinite="drop")
    assert _metric(at, "Private answer") == people(float(ug.answer([RECT])[0]))


def test_click_shows_cell_details():
    at = _app(height=5)
    at.session_state["fake_map_value"] = {"all_drawings": None, "last_object_clicked": {"lat": 48.8, "lng": 2.3}}
    at.run()
    assert not at.exception
    assert any(s.value == "Clicked cell" for s in at.subheader)
    text = " ".join(m.value for m in at.markdown)
    assert "level **5**" in text and "noisy count" in text and "standard deviation" in text
    assert "(95 % interval " in text and "spent along its path from the root" in text
    import re
    sd = re.search(r"standard deviation \*\*([^*]+)\*\* \(scale 1/epsilon = ([^)]+)\)", text)
    assert sd and all(re.fullmatch(r"[\d,]+(\.\d)?", g) for g in sd.groups()), sd   # rounded for people


def test_the_clicked_cell_panel_opens_on_a_click_and_closes_for_a_new_rectangle():
    """One thing at a time: the panel appears only after a click on a cell, goes when a new rectangle is
    drawn (the map keeps reporting the old click, and the drag's end comes as a click too), and comes back
    for the next real click."""
    at = _app(height=5)
    at.run()
    assert not any(s.value == "Clicked cell" for s in at.subheader)
    at.session_state["fake_map_value"] = {"all_drawings": None, "last_object_clicked": {"lat": 48.8, "lng": 2.3}}
    at.run()
    assert any(s.value == "Clicked cell" for s in at.subheader)
    at.session_state["fake_map_value"] = {"all_drawings": [_drawing(RECT)],
                                          "last_object_clicked": {"lat": 41.3, "lng": 12.1}}   # a drag's end
    at.run()
    assert not at.exception
    assert not any(s.value == "Clicked cell" for s in at.subheader)
    assert _metric(at, "Private answer")
    at.run()                                       # the map repeats its last values: nothing new
    assert not any(s.value == "Clicked cell" for s in at.subheader)
    at.session_state["fake_map_value"] = {"all_drawings": [_drawing(RECT)],
                                          "last_object_clicked": {"lat": 52.5, "lng": 13.4}}   # a new click
    at.run()
    assert any(s.value == "Clicked cell" for s in at.subheader)


def test_a_typed_rectangle_replaces_the_drawn_one_on_the_map():
    """One rectangle at a time: typed in, the kept outline clears the map's drawn rectangles; drawn again,
    the drawing is the query and nothing is cleared."""
    at = _app(height=5)
    at.session_state["fake_map_value"] = {"all_drawings": [_drawing(RECT)], "last_object_clicked": None}
    at.run()
    assert at.session_state["overlay_clears"] is False
    at.number_input(key="qx0").set_value(0.0)
    at.number_input(key="qx1").set_value(20.0)
    at.number_input(key="qy0").set_value(40.0)
    at.number_input(key="qy1").set_value(50.0)
    at.button(key="qtyped").click().run()
    assert not at.exception
    assert at.session_state["query_rect"] == [0.0, 40.0, 20.0, 50.0]
    assert at.session_state["overlay_clears"] is True           # the drawn rectangle goes from the map
    said = [i.value for i in at.info]                           # the answer is far above the form: it says where
    assert any("Answered: the private answer" in v and "beside the map" in v for v in said), said
    at.run()                                                    # the map repeats its old drawing: still typed
    assert at.session_state["query_rect"] == [0.0, 40.0, 20.0, 50.0] and at.session_state["overlay_clears"]
    drawn = {"all_drawings": [_drawing([5.0, 45.0, 15.0, 55.0])], "last_object_clicked": None}
    at.session_state["fake_map_value"] = at.session_state[keys.MAP] = drawn   # as streamlit-folium hands it on
    at.run()
    assert at.session_state["query_rect"] == [5.0, 45.0, 15.0, 55.0] and not at.session_state["overlay_clears"]


def test_bad_inputs_show_errors_and_keep_running():
    at = _app(height=4)
    at.checkbox(key="eps_typed_on").check().run()
    at.number_input(key="eps_typed").set_value(20.0).run()
    assert any("epsilon must be between 0.01 and 10" in e.value for e in at.error)
    at.number_input(key="eps_typed").set_value(0.5).run()
    assert not at.error
    at.number_input(key="p_quadtree_height").set_value(40).run()
    assert any("height" in e.value and "Cannot build" in e.value for e in at.error)
    at.number_input(key="p_quadtree_height").set_value(4).run()
    at.radio(key="sample_domain").set_value("typed bounds").run()
    for k, v in (("sample_xmin", 170.0), ("sample_xmax", 179.0), ("sample_ymin", -89.9), ("sample_ymax", -89.0)):
        at.number_input(key=k).set_value(v)
    at.run()
    assert any("none of the" in e.value.lower() and "inside the domain" in e.value for e in at.error)
    assert not at.exception


def test_budget_view_and_report_match_the_ledger(points):
    at = _app(height=5)
    assert float(_metric(at, "Epsilon spent")) == pytest.approx(0.5)
    assert not at.dataframe
    at.toggle(key="show_budget").set_value(True).run()
    table = at.dataframe[0].value
    assert table["epsilon"].sum() == pytest.approx(0.5) and set(table["what"]) == {"count"}
    rel = pv.build(points, pv.Domain.world(), method="quadtree", epsilon=0.5, seed=7, height=5, prune=None)
    rep = json.loads(export.report_bytes(rel, {"app": "x"}))
    assert rep["epsilon_spent"] == pytest.approx(0.5) and rep["randomness"].startswith("seeded")
    assert "data_owner_audit_NOT_PRIVATE" not in rep and "rows_used" not in json.dumps(rep)
    audit = json.loads(export.audit_bytes(rel))          # a separate download, labelled for the owner
    assert audit["rows_used"] == points.shape[0] and "not differentially private" in audit["note"]
    assert str(points.shape[0]) not in json.dumps(rep)  # exact N only in the owner's audit
    assert rep["input_handling"]["outside_domain"] == "dropped"
    gj = json.loads(export.geojson_bytes(rel, None, allow_seeded=True))
    assert len(gj["features"]) == 4 ** 5 and "true" not in json.dumps(gj["features"][0]).lower()


def test_upload_readers_refuse_bad_files_without_touching_input():
    with pytest.raises(ValueError, match="unsupported file type"):
        data_input.read_table("points.xlsx", b"abc")
    with pytest.raises(ValueError, match="could not read"):
        data_input.read_table("points.parquet", b"not parquet")
    df = data_input.read_table("p.csv", b"name,lon,lat\na,1,2\nb,x,4\nc,5,\n")
    before = df.copy()
    said = r"1 row of 'lon' / 'lat' holds text, not numbers \(data row 2; row 2 holds 'x'\)"
    with pytest.raises(ValueError, match=said):
        data_input.pick_points(df, "lon", "lat")     # text in a coordinate: refused, as the command line does
    xy, bad = data_input.pick_points(df.drop(index=1), "lon", "lat")
    assert bad == 0 and np.isnan(xy).any(axis=1).sum() == 1      # an empty cell is a missing point
    assert df.equals(before)
    with pytest.raises(ValueError, match="no numeric values"):
        data_input.pick_points(df, "name", "lat")
    with pytest.raises(ValueError, match="not in the table"):
        data_input.pick_points(df, "lng", "lat")
    tsv = data_input.read_table("p.tsv", b"x\ty\n1\t2\n")
    assert list(tsv.columns) == ["x", "y"]


def test_resolution_control_rebuilds_on_the_chosen_grid():
    """The map page states the resolution, and the control changes the release's grid."""
    at = _app(height=4)
    assert any("Public grid: resolution 20" in c.value for c in at.caption)
    at.number_input(key="resolution").set_value(3).run()
    assert not at.exception and not at.error
    assert any("Public grid: resolution 3 " in c.value for c in at.caption)
    assert any("height 4 capped to 3" in c.value for c in at.caption)


def test_a_query_belongs_to_its_data_and_domain():
    at = _app()
    at.session_state["fake_map_value"] = {"all_drawings": [_drawing(RECT)], "last_object_clicked": {"lat": 48.8,
                                                                                                    "lng": 2.3}}
    at.run()
    assert _metric(at, "Private answer") and at.session_state["comparisons"]
    assert any("95 % interval" in c.value for c in at.caption)
    row = at.session_state["comparisons"][-1]          # the cut cells' model beside the noise, in words
    assert row["uniformity_error"] > 0
    low, high = row["low_95"], row["high_95"]      # the engine's (Release.answer_error): one interval everywhere
    assert low <= row["private_answer"] <= high or row["private_answer"] < 0 == low
    assert _metric(at, "95 % interval") == f"{people(low)} to {people(high)}"
    assert any(c.value.startswith("95 % interval, noise and the cells the edges cut. In it: the noise's standard")
               for c in at.caption)
    # the same data under another domain: rectangle, click and history are gone, and the old drawing the
    # map still reports is not taken up again
    at.radio(key="sample_domain").set_value("typed bounds").run()
    at.number_input(key="sample_xmax").set_value(100.0).run()
    assert not at.exception
    assert not [m for m in at.metric if m.label == "Private answer"]
    assert "query_rect" not in at.session_state and "clicked" not in at.session_state
    assert at.session_state["comparisons"] == []   # the history of the earlier domain is gone
    assert any("Draw a rectangle" in i.value for i in at.info)
    # a rectangle outside the domain is refused in words, not answered 0 +- 0
    at.number_input(key="sample_xmax").set_value(0.0).run()
    at.session_state["fake_map_value"] = {"all_drawings": [_drawing([10.0, 10.0, 20.0, 20.0])],
                                          "last_object_clicked": None}
    at.run()
    assert any("outside the domain" in w.value for w in at.warning)
    assert not [m for m in at.metric if m.label == "Private answer"]


def test_a_500k_cell_release_is_drawn_as_one_raster_and_answers_a_click():
    at = AppTest.from_string(SCRIPT, default_timeout=180)
    at.run()
    at.selectbox(key="method").set_value("ug").run()
    at.checkbox(key="p_ug_grid_size_on").check().run()
    at.number_input(key="p_ug_grid_size").set_value(708).run()
    assert not at.exception and not at.error
    assert any(c.value.startswith("501,264 cells: drawn as a raster") for c in at.caption)
    assert at.session_state["map_html_len"] < 2_000_000     # one image, not half a million shapes
    at.session_state["fake_map_value"] = {"all_drawings": None, "last_object_clicked": {"lat": 40.0, "lng": 10.0}}
    at.run()
    assert any(s.value == "Clicked cell" for s in at.subheader)


def test_plan_for_my_queries_rebuilds_the_quadtree_for_the_drawn_rectangles(points):
    """After a query, the sidebar offers to plan the quadtree's budget for the rectangles queried so far;
    checked, the release is the engine's build with that workload and the query is answered from it."""
    at = _app()
    assert not [c for c in at.checkbox if c.key == "plan_workload"]          # nothing queried yet
    at.session_state["fake_map_value"] = {"all_drawings": [_drawing(RECT)], "last_object_clicked": None}
    at.run()
    at.run()                               # the sidebar, drawn before the map, now sees the recorded query
    at.checkbox(key="plan_workload").check().run()
    assert not at.exception and not at.error
    rel = pv.build(points, pv.Domain.world(), method="quadtree", epsilon=0.5, seed=7, nonfinite="drop", height=6,
                   prune=None, workload=[RECT])
    assert rel.params["budget"] == "workload"
    assert _metric(at, "Private answer") == people(float(rel.answer([RECT])[0]))
    low, high = rel.answer_interval([RECT])[0]
    assert _metric(at, "95 % interval") == f"{people(low)} to {people(high)}"


def test_a_typed_rectangle_with_bounds_the_wrong_way_round_is_refused_in_words():
    at = _app()
    at.session_state[keys.QUERY_RECT] = [10.0, 40.0, -5.0, 50.0]     # as the typed-rectangle button keeps it
    at.run()
    assert not at.exception
    assert any("Query x min 10 is above x max -5; bounds are xmin ymin xmax ymax" in e.value for e in at.error)
    assert not [m for m in at.metric if m.label == "Private answer"]



def test_a_cell_below_zero_says_so_in_one_sentence_and_its_counts_are_rounded_for_people():
    from psdviz.ui.answer_box import cell_below_zero
    from psdviz.ui.map_layers import CELLS_JS
    assert cell_below_zero(-20.2, -25.0).startswith("Below zero") and cell_below_zero(3.0, -1.0)
    assert cell_below_zero(0.0, 2.0) == "" and cell_below_zero(4.0, None) == ""
    assert "below zero" in CELLS_JS                                  # the map's tooltip says it too
    assert people(-25.0) == "-25" and people(-20.24) == "-20.2"     # the panel's numbers, as the answers'
