"""Reference outlines on the maps: country borders above the cells on the map page
(non-interactive, lon/lat domains only, on by default with a toggle) and US states as clickable
regions on the count-of-counts page; both vanish quietly when the fetched files are missing."""
import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import psdviz as pv
from psdviz.coco.sample import flights_table, load_flight_airports
from psdviz.ui import coco_view as view
from psdviz.ui import outlines
from psdviz.ui.map_layers import make_map

HAVE_FILES = (outlines.STATIC_DIR / outlines.WORLD_FILE).is_file() and \
    (outlines.STATIC_DIR / outlines.STATES_FILE).is_file()
needs_files = pytest.mark.skipif(not HAVE_FILES, reason="run `bash .ci/fetch_assets` (npm) first")
PANE = 'createPane("outlines")'


def _release(domain: pv.Domain, n: int = 2000) -> pv.Release:
    rng = np.random.default_rng(0)
    pts = np.column_stack([rng.uniform(domain.xmin, domain.xmax, n), rng.uniform(domain.ymin, domain.ymax, n)])
    return pv.build(pts, domain, method="quadtree", epsilon=1.0, seed=1, height=3, prune=None)


@pytest.fixture
def no_files(monkeypatch, tmp_path):
    monkeypatch.setattr(outlines, "STATIC_DIR", tmp_path)


@needs_files
def test_country_outlines_sit_above_the_cells_and_ignore_the_pointer():
    fmap, info = make_map(_release(pv.Domain(-20, 30, 40, 70)), 2)
    html = fmap.get_root().render()
    assert info.outlines and PANE in html
    assert 'pointerEvents = "none"' in html and "interactive: false" in html
    assert html.index("var release_layers_") < html.index("var outline_layer_")   # added after the cells: drawn above
    fc = outlines.countries((-20, 30, 40, 70))
    names = {n for n, _, b in outlines._features(outlines.WORLD_FILE, "countries", None)
             if b[0] <= 40 and b[2] >= -20 and b[1] <= 70 and b[3] >= 30}
    assert len(fc["features"]) == len(names) and 10 < len(names) < 177   # Europe's box, not the world
    assert {"France", "Germany"} <= names


@needs_files
def test_toggle_off_and_non_geographic_domains_have_no_outlines():
    rel = _release(pv.Domain(-20, 30, 40, 70))
    fmap, info = make_map(rel, 2, outlines=False)
    assert not info.outlines and PANE not in fmap.get_root().render()
    fmap, info = make_map(_release(pv.Domain(0, 0, 5000, 3000)), 2)   # metres, say
    assert not info.outlines and PANE not in fmap.get_root().render()
    assert outlines.countries((0, 0, 5000, 3000)) is None
    assert outlines.is_lon_lat(-180.5, -90, 180, 90) and not outlines.is_lon_lat(-200, 0, 0, 10)


def test_missing_files_give_a_plain_map(no_files):
    fmap, info = make_map(_release(pv.Domain(-20, 30, 40, 70)), 2)
    assert not info.outlines and PANE not in fmap.get_root().render()
    assert outlines.countries((-20, 30, 40, 70)) is None and outlines.state_regions(["Texas"]) is None


@needs_files
def test_state_regions_match_names_postal_codes_and_aliases():
    got = outlines.state_regions(["Texas", "fl", "Virgin Islands", "Atlantis"])
    assert set(got) == {"Texas", "fl", "Virgin Islands"}
    from psdviz.io import topojson as tj
    assert tj.contains(got["Texas"], -97.7, 30.3) and tj.contains(got["fl"], -81.4, 28.5)   # Austin, Orlando


@pytest.fixture(scope="module")
def flights():
    table, h = flights_table()
    ap = load_flight_airports()
    return h, view.node_positions(h, dict(zip(ap["iata"], ap["lat"])), dict(zip(ap["iata"], ap["lon"])))


@needs_files
def test_coco_states_are_regions_and_a_click_inside_picks_the_state(flights):
    h, pos = flights
    names = [h.names[i] for i in h.level_nodes(1)]
    regions = view.node_regions(h, 1, outlines.state_regions(names))
    assert len(regions) == len(names)                      # every flights state has an outline
    groups = np.arange(h.n_nodes)
    html = view.marker_map(pos, 1, groups, h.node_id("Florida"), regions).get_root().render()
    assert "circle_marker" not in html and "geo_json" in html
    # Pensacola (Florida panhandle) is nearer Alabama's marker than Florida's, but lies in Florida
    assert view.region_node(regions, 30.42, -87.2) == h.node_id("Florida")
    assert view.nearest_node(pos, 1, 30.42, -87.2) != h.node_id("Florida")
    assert view.region_node(regions, 0.0, -30.0) is None   # the ocean: the page falls back to markers
    leaves = view.marker_map(pos, 2, groups, None, view.node_regions(h, 2, outlines.state_regions(
        [h.names[i] for i in h.level_nodes(2)]))).get_root().render()
    assert "circle_marker" in leaves and "geo_json" not in leaves   # airports stay markers


SCRIPT = """
import streamlit as st
from psdviz.ui import mapview
def fake(fmap, key, height=560, overlay=None):
    html = fmap.script if isinstance(fmap, mapview.MapView) else fmap.get_root().render()
    st.session_state["has_regions"] = "geo_json" in html
    st.session_state["has_markers"] = "circle_marker" in html
    st.session_state["has_outlines"] = 'createPane("outlines")' in html
    return st.session_state.get("fake_map")
mapview.show_map = fake
from psdviz.ui.{module} import render
render()
"""


@needs_files
def test_coco_page_clicking_inside_a_state_picks_it():
    at = AppTest.from_string(SCRIPT.replace("{module}", "coco_page"), default_timeout=120)
    at.run()
    assert not at.exception and at.session_state["has_regions"] and not at.session_state["has_markers"]
    at.session_state["fake_map"] = {"last_object_clicked": {"lat": 30.42, "lng": -87.2}}   # Pensacola
    at.run()
    assert at.selectbox(key="coco_node").value == "Florida"
    at.radio(key="coco_map_level").set_value(2).run()
    assert at.session_state["has_markers"] and not at.session_state["has_regions"]


@needs_files
def test_map_page_outlines_on_by_default_and_toggled_off():
    at = AppTest.from_string(SCRIPT.replace("{module}", "map_page"), default_timeout=120)
    at.run()
    assert not at.exception and at.toggle(key="show_outlines").value is True
    assert at.session_state["has_outlines"]
    at.toggle(key="show_outlines").set_value(False).run()
    assert not at.exception and not at.session_state["has_outlines"]


@needs_files
def test_packed_outlines_give_back_every_rounded_point_in_a_third_of_the_geojsons_bytes():
    """The map sends the outlines as binary tables (rings per feature, points per ring, hundredths of a degree):
    decoded as the browser does (``v / 100``), every point of every ring is the GeoJSON's, in its order."""
    import base64
    import json

    from psdviz.io import topojson as tj

    def decoded(text: str, dtype: str) -> np.ndarray:
        return np.frombuffer(base64.b64decode(json.loads(text)), dtype)

    fc = outlines.countries(outlines.LON_LAT)
    packed = outlines.pack(fc)
    per, sizes = decoded(packed.features, "<u2"), decoded(packed.rings, "<u4")
    xy = decoded(packed.points, "<i2").reshape(-1, 2) / 100
    rings = [tj.rings(f["geometry"]) for f in fc["features"]]
    assert per.tolist() == [len(r) for r in rings] and len(per) == 177
    assert sizes.tolist() == [len(r) for fr in rings for r in fr]
    assert np.array_equal(xy, np.concatenate([r for fr in rings for r in fr]))
    size = len(packed.features) + len(packed.rings) + len(packed.points)
    assert size < len(json.dumps(fc, separators=(",", ":"))) / 2.5
