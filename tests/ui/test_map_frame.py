"""The map page sends a map as a public frame rendered once per process and the release's layers in its slot
(psdviz.ui.map_layers.release_view, psdviz.ui.mapview.MapView): the component must get what streamlit-folium's
st_folium would send for the whole folium map (make_map), whatever the view: cells or raster, outlines,
basemap, true points, a kept query rectangle drawn or typed."""
import re

import numpy as np
import pytest
import streamlit_folium
from streamlit_folium import st_folium

import psdviz as pv
from psdviz.ui import mapview
from psdviz.ui.map_layers import MAX_SHAPES, make_map, map_frame, query_layer, query_script, release_view

RNG = np.random.default_rng(5)
POINTS = np.concatenate([RNG.normal((10.0, 48.0), 3.0, (4000, 2)), RNG.uniform((-20, 30), (40, 70), (1000, 2))])
DOMAIN = pv.Domain(-20, 30, 40, 70)


@pytest.fixture()
def sent(monkeypatch):
    """The keyword arguments of every component call, in order (the pages' AppTest scripts replace
    ``mapview.show_map`` in the process, so the tests call what it calls)."""
    calls: list[dict] = []
    monkeypatch.setattr(streamlit_folium, "_component_func", lambda **kw: calls.append(kw))
    return calls


def _same_text(kw: dict) -> dict:
    """The arguments with folium's random element ids and the component's key taken out."""
    out = {k: v for k, v in kw.items() if k not in ("key", "on_change")}
    for k in ("script", "header", "html", "id", "feature_group"):
        if isinstance(out.get(k), str):
            out[k] = re.sub(r"[0-9a-f]{32}", "ID", out[k])
    return out


@pytest.mark.parametrize("depth,outlines,basemap,points,query", [
    (3, True, True, False, None),
    (3, False, False, True, ((0.0, 40.0, 10.0, 50.0), False)),
    (20, True, False, False, ((-5.0, 35.0, 5.0, 45.0), True)),      # every leaf: the raster above MAX_SHAPES
])
def test_a_framed_view_sends_what_st_folium_sends_for_the_whole_map(sent, depth, outlines, basemap, points, query):
    rel = pv.build(POINTS, DOMAIN, method="ug", epsilon=1.0, seed=2, grid_size=80)
    depth = min(depth, rel.tree.height)
    pts = POINTS[:50] if points else None
    fmap, info = make_map(rel, depth, pts, outlines, basemap)
    overlay = None if query is None else query_layer(list(query[0]), query[1])
    st_folium(fmap, key="m", height=500, width=None, returned_objects=mapview.RETURNED, feature_group_to_add=overlay)
    view, info2 = release_view(rel, depth, pts, outlines, basemap)
    script = None if query is None else query_script(*query)
    mapview._show_view(mapview.MapView(view.frame, view.layers, query, script), key="m", height=500)
    whole, framed = _same_text(sent[0]), _same_text(sent[1])
    assert framed == whole
    assert info2.raster == (info.nodes.size > MAX_SHAPES) and np.array_equal(info2.nodes, info.nodes)
    assert info2.outlines == info.outlines


def test_the_frame_is_made_once_per_domain_and_options_and_never_holds_a_release():
    map_frame.cache_clear()
    a, _ = release_view(pv.build(POINTS, DOMAIN, method="ug", epsilon=1.0, seed=2), 2)
    b, _ = release_view(pv.build(POINTS, DOMAIN, method="ug", epsilon=1.0, seed=3), 2)
    assert a.frame is b.frame and map_frame.cache_info().misses == 1
    assert a.layers != b.layers and a.frame.slot in a.frame.script and a.frame.slot not in a.script


def test_the_component_key_changes_with_the_layers_only(sent):
    rel = pv.build(POINTS, DOMAIN, method="ug", epsilon=1.0, seed=2)
    view, _ = release_view(rel, 2)
    for query in (None, ((0.0, 40.0, 10.0, 50.0), False)):
        script = None if query is None else query_script(*query)
        mapview._show_view(mapview.MapView(view.frame, view.layers, query, script), key="m", height=560)
    other, _ = release_view(pv.build(POINTS, DOMAIN, method="ug", epsilon=1.0, seed=3), 2)
    mapview._show_view(other, key="m", height=560)
    assert sent[0]["key"] == sent[1]["key"] != sent[2]["key"]      # a new rectangle does not remount the map
