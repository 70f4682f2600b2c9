"""AppTest of the Count-of-counts page; the map component is replaced by a stub that
returns whatever click the test puts in session state."""
import json

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from psdviz import coco
from psdviz.coco.sample import flights_table
from psdviz.ui import coco_view as view
from psdviz.ui import export

SCRIPT = """
import streamlit as st
from psdviz.ui import mapview
mapview.show_map = lambda fmap, key, height=560: st.session_state.get("fake_map")
from psdviz.ui.coco_page import render
render()
"""


def _metrics(at) -> dict:
    return {m.label: m.value for m in at.metric}


@pytest.fixture(scope="module")
def flights():
    return flights_table()


def _app() -> AppTest:
    at = AppTest.from_string(SCRIPT, default_timeout=120)
    at.run()
    at.radio(key="coco_rand").set_value("seed").run()   # seed 0: comparable with the engine
    assert not at.exception and not at.error
    return at


def test_opens_on_the_flights_root_with_engine_numbers(flights):
    at = _app()
    assert at.selectbox(key="coco_node").value == "USA"
    assert len(at.get("plotly_chart")) == 1
    table, h = flights
    rel = coco.publish(table, None, "hc", [0.2, 0.5, 0.5], seed=0, consistency="top-down")
    err = rel.emd(coco.true_histograms(table))
    m = _metrics(at)
    assert m["Earthmover's error"] == f"{err[0]:,.0f}"
    assert m["Groups G (NOT private)"] == f"{table.n_groups:,}"     # as the warning says
    assert "Groups G (public)" not in m
    assert any("not private" in w.value for w in at.warning)
    assert m["Node = sum of its children"] == "yes"


def test_map_click_picks_the_node_and_its_histograms(flights):
    at = _app()
    _, h = flights
    at.session_state["fake_map"] = {"last_object_clicked": {"lat": 27.9, "lng": -81.9}}   # Florida's marker area
    at.run()
    assert at.selectbox(key="coco_node").value == "Florida"
    fig = at.get("plotly_chart")[0].proto.spec
    spec = json.loads(fig)
    assert "Florida" in spec["layout"]["title"]["text"]
    assert [d["name"] for d in spec["data"]] == ["true (not private)", "private release"]
    at.radio(key="coco_map_level").set_value(2).run()
    at.session_state["fake_map"] = {"last_object_clicked": {"lat": 25.79, "lng": -80.29}}  # MIA
    at.run()
    assert at.selectbox(key="coco_node").value == "MIA"
    assert _metrics(at)["Sum of children"] == "leaf"


def test_tree_selector_picks_a_node():
    at = _app()
    at.selectbox(key="coco_node").set_value("Texas").run()
    assert not at.exception
    assert "Texas" in json.loads(at.get("plotly_chart")[0].proto.spec)["layout"]["title"]["text"]


def test_methods_and_the_children_check():
    at = _app()
    at.selectbox(key="coco_node").set_value("California").run()
    for i, expect in ((1, "yes"), (3, "yes")):          # H_g top-down, bottom-up: consistent
        at.selectbox(key="coco_method").select_index(i).run()
        assert _metrics(at)["Node = sum of its children"] == expect
    at.selectbox(key="coco_method").select_index(2).run()    # naive: levels measured independently
    assert _metrics(at)["Node = sum of its children"].startswith("no")


def test_exports_have_the_ledger_and_no_true_values():
    at = _app()                                   # a seeded run: no export until the owner opts in
    assert len(at.get("download_button")) == 0 and any("NOT private" in w.value for w in at.warning)
    at.checkbox(key="coco_allow_seeded").check().run()
    buttons = at.get("download_button")
    assert len(buttons) == 2
    # the JSON export is the engine's release file: ledger present, no truth keys
    table, h = flights_table()
    rel = coco.publish(table, None, "hc", [0.2, 0.5, 0.5], seed=0)
    doc = json.loads(export.release_bytes(rel, ".json", True))
    assert doc["report"]["ledger"] and doc["report"]["epsilon_spent"] == pytest.approx(1.2)
    hist = doc["histograms"]
    released = {s: c for n, s, c in zip(hist["node"], hist["size"], hist["count"]) if n == 0}
    assert released == {s: int(c) for s, c in enumerate(rel.histograms[0]) if c}
    truth = coco.true_histograms(table)[0]
    assert released != {s: int(c) for s, c in enumerate(truth) if c}


def test_bad_epsilon_and_bad_upload_show_errors(tmp_path):
    at = _app()
    at.radio(key="coco_source").set_value("Upload a table of records").run()
    assert not at.exception and at.info       # asks for a file, keeps running


def test_view_helpers_against_slow_versions(flights):
    table, h = flights
    labels = view.node_labels(h)
    order = view.dfs_order(h)
    assert sorted(order) == list(range(h.n_nodes)) and order[0] == 0
    for a, b in zip(order, order[1:]):          # depth-first: a child follows its parent or a sibling subtree
        assert h.level[b] <= h.level[a] + 1
    assert labels[0] == "USA"
    pos = view.node_positions(h, {"MIA": 25.0, "TPA": 28.0}, {"MIA": -80.0, "TPA": -82.0})
    fl = h.node_id("Florida")
    assert pos.loc[fl, "lat"] == pytest.approx(26.5) and pos.loc[fl, "lon"] == pytest.approx(-81.0)
    assert view.nearest_node(pos, 2, 25.1, -80.1) == h.node_id("MIA")
    rel = coco.publish(table, None, "naive", [0.3, 0.3, 0.4], seed=1, consistency="independent")
    for node in (0, fl, h.node_id("MIA")):
        kids = h.children(node)
        chk = view.children_check(rel, node)
        if kids.size:
            slow = all(rel.histograms[node][s] == sum(rel.histograms[k][s] for k in kids)
                       for s in range(rel.histograms.shape[1]))
            assert chk["equal"] == slow
        else:
            assert chk["equal"] is None
    fig = view.histogram_figure(np.array([0, 5, 2, 0, 0]), np.array([0, 4, 3, 1, 0]), "x", True)
    assert list(fig.data[0].x) == [0, 1, 2, 3] and fig.layout.yaxis.type == "log"
