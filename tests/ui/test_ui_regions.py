"""AppTest of the Regions page; the map component is replaced by a stub that returns the click the
test puts in session state (streamlit-folium stores its value under the map's key)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from psdviz.regions import colours as rc
from psdviz.ui import keys
from psdviz.ui import regions_view as view
from psdviz.ui.answer_box import people

SCRIPT = """
import streamlit as st
from psdviz.ui import mapview
mapview.show_map = lambda fmap, key, height=560, overlay=None: st.session_state.get(key)
from psdviz.ui.regions_page import render
render()
"""


def _metrics(at) -> dict:
    return {m.label: m.value for m in at.metric}


def _app() -> AppTest:
    at = AppTest.from_string(SCRIPT, default_timeout=180)
    at.run()
    assert not at.exception and not at.error, (at.exception, at.error)
    return at


def test_opens_on_states_and_a_click_picks_a_county_with_its_numbers():
    at = _app()
    assert at.selectbox(key="rg_layer").value == "US states > counties"
    m = _metrics(at)
    assert {"Private count", "95 % interval"} <= set(m)
    assert any(c.value.startswith("95 % interval of the noise (a region release counts whole regions")
               for c in at.caption)
    at.radio(key="rg_level").set_value(1).run()
    at.session_state[keys.REGIONS_MAP] = {"last_object_clicked": {"lat": 34.05, "lng": -118.25}}   # Los Angeles
    at.run()
    assert at.selectbox(key=keys.REGION).value == "06037"
    assert not at.exception and at.subheader[0].value == "Los Angeles"


def test_a_state_lists_its_counties_and_drills_down():
    at = _app()
    at.session_state[keys.REGIONS_MAP] = {"last_object_clicked": {"lat": 39.0, "lng": -105.5}}      # Colorado
    at.run()
    assert at.subheader[0].value == "Colorado"
    assert at.dataframe and "regions inside" in " ".join(c.value for c in at.caption)
    at.button(key="rg_drill").click().run()
    assert at.radio(key="rg_level").value == 1 and at.selectbox(key=keys.REGION).value.startswith("08")


def test_a_pooled_county_says_whose_share_it_is_and_pooling_can_be_turned_off():
    """At epsilon 0.1 the sample's states hold too few points for their counties: a county's panel says
    it is an area share of its state's count; with pooling off every county is measured."""
    at = _app()
    at.radio(key="rg_rand").set_value("seed").run()
    at.select_slider(key="rg_eps").set_value(0.1).run()
    at.radio(key="rg_level").set_value(1).run()
    at.session_state[keys.REGIONS_MAP] = {"last_object_clicked": {"lat": 39.0, "lng": -105.5}}      # Colorado
    at.run()
    assert at.selectbox(key=keys.REGION).value.startswith("08")
    words = " ".join(c.value for c in at.caption)
    assert "Not measured: an area share of the count of Colorado" in words and "were not measured" in words
    at.checkbox(key="rg_pool").uncheck().run()
    assert not at.exception and "Not measured" not in " ".join(c.value for c in at.caption)


def test_seeded_exports_need_the_opt_in():
    at = _app()
    at.radio(key="rg_rand").set_value("seed").run()
    assert len(at.get("download_button")) == 0
    at.checkbox(key="rg_allow_seeded").check().run()
    assert len(at.get("download_button")) == 5


def test_colour_classes_cannot_split_regions_within_noise():
    rng = np.random.default_rng(0)
    se = np.full(200, 10.0)
    est = 500 + rng.normal(0, 10, 200)                        # one true value plus noise of sd 10
    cls, edges = rc.classes(est, se)
    assert np.unique(cls).size == 1 and edges.size == 2       # equal but for noise: one colour
    structured = np.r_[np.full(100, 50.0), np.full(100, 900.0)]
    cls2, _ = rc.classes(structured, np.full(200, 10.0))
    assert np.unique(cls2).size == 2                          # real structure still shows
    assert (rc.classes(np.array([5.0]), np.array([10.0]))[0] == -1).all()   # within noise of zero: pale


def test_regions_within_noise_of_each_other_are_at_most_one_class_apart():
    """Counts spread over three orders of magnitude (a log-normal spread, as counties' are), noise of sd 10:
    any two regions whose estimates differ by at most two standard errors share a class or sit in
    neighbouring ones, and every inner class is at least two standard errors wide."""
    rng = np.random.default_rng(3)
    est = np.exp(rng.normal(5, 1.5, 3000)) + rng.normal(0, 10, 3000)
    cls, edges = rc.classes(est, np.full(est.size, 10.0))
    assert np.diff(edges)[1:-1].min(initial=np.inf) >= 20.0
    drawn = np.flatnonzero(cls >= 0)
    order = drawn[np.argsort(est[drawn])]
    close = np.searchsorted(est[order], est[order] + 20.0, side="right") - 1   # the largest within 2 se above
    assert (cls[order][close] - cls[order] <= 1).all()
    assert np.unique(cls[drawn]).size >= 5                    # and the spread still shows as classes


def test_colour_classes_follow_the_spread_of_the_counties():
    """The GeoNames sample on the US counties (a seeded region release at epsilon 1): the states take every
    class in about equal shares, and the counties spread over several classes where equal steps from zero
    put nine in ten drawn counties in one."""
    import psdviz as pv
    from psdviz.present import sample_points
    from psdviz.regions import SOURCES, us_counties
    counts = pv.build_regions(sample_points("geonames"), us_counties(), epsilon=1.0, seed=7).counts()
    for level, n_classes, most in ((0, 7, 0.25), (1, 3, 0.75)):
        one = counts[counts["level"] == level]
        est, se = one["estimate"].to_numpy(float), one["standard_error"].to_numpy(float)
        cls, _ = rc.classes(est, se, measured=(one["source"] != SOURCES[2]).to_numpy())
        shares = np.bincount(cls[cls >= 0]) / max((cls >= 0).sum(), 1)
        assert shares.size >= n_classes and shares.max() <= most, (level, shares)


@pytest.mark.parametrize("est, se, text", [(100.0, 10.0, "78–122"), (3.0, 10.0, "0–25")])
def test_interval_is_rounded_for_people(est, se, text):
    assert view.interval(est, se) == text


def test_open_a_release_shows_a_region_release(tmp_path):
    import psdviz as pv
    from psdviz.io.samples import sample_points
    from psdviz.regions import us_states
    rel = pv.build_regions(sample_points("geonames"), us_states(), epsilon=1.0)
    data = rel.save(tmp_path / "r.json").read_bytes()
    at = AppTest.from_string("""
import streamlit as st
from psdviz.ui.release_page import render
render()
""", default_timeout=120)
    at.run()
    # the uploader cannot be driven by AppTest: call the page's loader and view as the upload would
    from psdviz.ui import release_page
    loaded = release_page._load("x", data, "r.json")
    assert isinstance(loaded, pv.regions.RegionRelease)
    np.testing.assert_array_equal(loaded.estimate, rel.estimate)


def test_geoparquet_export_reads_back():
    import io

    import geopandas as gpd

    from psdviz.regions import us_states
    from psdviz.ui import export
    frame = us_states().frame[["id", "geometry"]].assign(estimate=1)
    back = gpd.read_parquet(io.BytesIO(export.geoparquet_bytes(frame)))
    assert len(back) == len(frame) and back.crs.to_epsg() == 4326


def test_an_uploaded_layer_name_never_becomes_a_path(tmp_path, monkeypatch):
    """A crafted upload name with '..' must not write outside the temporary folder it is read from."""
    import tempfile
    from pathlib import Path

    import geopandas as gpd
    from shapely.geometry import box

    from psdviz.ui import data_input
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "a" / "b"))
    (tmp_path / "a" / "b").mkdir(parents=True)
    gdf = gpd.GeoDataFrame({"code": ["x"]}, geometry=[box(0, 0, 1, 1)], crs="EPSG:4326")
    assert "code" in data_input.layer_columns("../../escaped.geojson", gdf.to_json().encode())
    assert not list(Path(tmp_path).rglob("escaped.geojson"))


def test_density_colours_give_a_pooled_states_counties_one_colour_and_dashed_outlines():
    """Under area shares a pooled state's counties have one density: by density they share a class
    (by count a large county would look fuller); pooled regions are dashed and the legend says so."""
    import geopandas as gpd
    from shapely.geometry import box

    from psdviz.regions.release import SOURCES
    frame = gpd.GeoDataFrame({"id": ["a", "b", "c"]}, geometry=[box(0, 0, 3, 1), box(3, 0, 4, 1), box(4, 0, 5, 1)],
                             crs="EPSG:4326")
    counts = pd.DataFrame({"id": ["a", "b", "c"], "name": ["a", "b", "c"], "level": [1, 1, 1],
                           "estimate": [300, 100, 900], "standard_error": [3.0, 1.0, 20.0],
                           "source": [SOURCES[2], SOURCES[2], SOURCES[0]]})
    area = np.array([3000.0, 1000.0, 1000.0])
    fmap, text = view.choropleth(frame, counts, 1, None, area)
    feats = next(c for c in fmap._children.values() if type(c).__name__ == "GeoJson").data["features"]
    fills = [f["properties"]["fill"] for f in feats]
    assert fills[0] == fills[1] != fills[2]
    assert [f["properties"]["pooled"] for f in feats] == [True, True, False]
    assert "per km²" in text and "Dashed outline" in text and "0.1 per km²" in feats[0]["properties"]["label"]
    _, by_count = view.choropleth(frame, counts, 1, None)
    assert "per km²" not in by_count


def test_area_shares_do_not_narrow_the_colour_classes_below_the_measured_regions_noise():
    """Most regions are area shares (standard error a fraction of their pooled region's), a few are
    measured with standard error 10: the classes are at least two of the measured regions' standard
    errors wide, and the legend states that width."""
    est = np.r_[np.linspace(0, 60, 90), [40, 45, 50, 55, 60, 38, 41, 52, 47, 58]]
    se = np.r_[np.full(90, 0.1), np.full(10, 10.0)]
    measured = np.r_[np.zeros(90, bool), np.ones(10, bool)]
    _, edges = rc.classes(est, se, measured=measured)
    assert np.diff(edges)[1:-1].min(initial=np.inf) >= 20.0          # inner classes two measured errors wide
    assert np.diff(rc.classes(est, se)[1])[1:-1].min() < 20.0       # all regions' noise would allow narrower
    assert rc.noise_width(se, measured) == 20.0 and rc.noise_width(se, np.zeros(100, bool)) == 0.2


def test_the_page_colours_by_density_on_request():
    at = _app()
    at.radio(key="rg_colour").set_value("density per km²").run()
    assert not at.exception and any("per km²" in c.value for c in at.caption)


def test_areas_in_square_kilometres():
    import geopandas as gpd
    from shapely.geometry import box

    from psdviz.regions import Regions, us_counties
    layer = us_counties()
    colorado = layer.area_km2[np.flatnonzero(layer.ids == "08")[0]]
    assert abs(colorado / 269_837 - 1) < 0.01                       # Census: 269,837 km2 in all
    metres = gpd.GeoDataFrame({"id": ["a"]}, geometry=[box(0, 0, 2000, 3000)], crs="EPSG:3857")
    assert Regions.from_frame(metres, id="id", crs=None).area_km2.tolist() == [6.0]
    bare = gpd.GeoDataFrame({"id": ["a"]}, geometry=[box(0, 0, 2, 3)])
    assert Regions.from_frame(bare, id="id", crs=None).area_km2 is None


@pytest.mark.parametrize("edges, text", [
    ([0.000128, 18.6, 138.0], ["0-18.6", "18.6-138"]),              # a sliver's estimate beside county counts
    ([0.0012, 0.0371, 0.5], ["0.0012-0.0371", "0.0371-0.5"]),        # densities keep the digits their classes need
    ([2.0, 2.5, 12345.6], ["2-2.5", "2.5-12,346"]),
])
def test_class_edges_are_rounded_together_for_people(edges, text):
    assert view.legend(np.array(edges), 1.0).startswith(f"Colour classes: {', '.join(text)} (")
    assert all(t in view.swatches(np.array(edges)) for t in text)


def test_a_spatial_release_planned_for_the_layer_answers_the_regions():
    """Counts from a quadtree planned for the layer: the panel shows the engine's area-share answer for
    the clicked region, the words say where the numbers and their noise come from, pooling is not
    offered, and the ledger and exports are the spatial release's."""
    import psdviz as pv
    from psdviz import regions as rg
    from psdviz.io.samples import sample_points
    from psdviz.ui.regions_page import PLANNED
    at = _app()
    at.selectbox(key="rg_layer").set_value("US states").run()
    at.radio(key="rg_rand").set_value("seed").run()
    at.radio(key="rg_route").set_value(PLANNED).run()
    assert not at.exception and not at.error, (at.exception, at.error)
    assert not [c for c in at.checkbox if c.key == "rg_pool"]
    at.session_state[keys.REGIONS_MAP] = {"last_object_clicked": {"lat": 39.0, "lng": -105.5}}      # Colorado
    at.run()
    assert at.subheader[0].value == "Colorado"
    layer = rg.us_states()
    rel = pv.build(sample_points("geonames"), pv.Domain(*layer.bounds()), "quadtree", 1.0, seed=0, workload=layer,
                   outside="drop", nonfinite="drop")
    want = rel.answer_regions(layer).set_index("id").loc["08"]
    m = _metrics(at)
    assert m["Private count"] == people(want["estimate"])
    assert m["95 % interval"] == f"{people(want['low_95'])} to {people(want['high_95'])}"
    words = " ".join(c.value for c in at.caption)
    assert "planned for this layer's regions" in words and "area share" in words and "modelled below" in words
    assert want["uniformity_error"] > 0
    assert f"the cells the edges cut, a model's standard deviation {people(want['uniformity_error'])}" in words
    assert "two typical errors of noise and cut cells together" in words         # the legend's class width
    assert "fall in no region" not in words
    at.checkbox(key="rg_allow_seeded").check().run()
    assert len(at.get("download_button")) == 5 and not at.exception


def test_an_uploaded_file_of_several_layers_offers_them_and_errors_name_the_upload():
    """A TopoJSON with two objects: the page lists them, reads the chosen one's columns and regions, and an
    error names the uploaded file, never the temporary copy ("layer.json")."""
    import json

    import pytest

    from psdviz.ui import data_input, regions_page
    arcs = [[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]], [[1, 0], [2, 0], [2, 1], [1, 1], [1, 0]]]
    topo = {"type": "Topology", "arcs": arcs, "objects": {
        "states": {"type": "GeometryCollection", "geometries": [
            {"type": "Polygon", "arcs": [[0]], "properties": {"code": "A"}},
            {"type": "Polygon", "arcs": [[1]], "properties": {"code": "B"}}]},
        "land": {"type": "GeometryCollection", "geometries": [
            {"type": "Polygon", "arcs": [[0]], "properties": {"kind": "land"}}]}}}
    data = json.dumps(topo).encode()
    assert data_input.layer_objects("mine.json", data) == ["states", "land"]
    assert "code" in data_input.layer_columns("mine.json", data, "states")
    assert "kind" in data_input.layer_columns("mine.json", data, "land")
    layer, repairs = regions_page._uploaded("d1", data, "mine.json", "code", None, None, "states")
    assert repairs == ()
    assert sorted(layer.frame["id"]) == ["A", "B"]
    with pytest.raises(ValueError, match=r"^mine.json holds TopoJSON objects \['states', 'land'\]"):
        regions_page._uploaded("d2", data, "mine.json", "code", None, None, None)


@pytest.mark.parametrize("level", [0, 1])
def test_the_map_opens_on_the_whole_layer_less_far_islands(level):
    """The US layers open on a box holding the contiguous states' corners, Alaska, Hawaii and Puerto Rico but
    not Guam (a small island on the other side of the antimeridian); the world opens on the world."""
    from shapely.geometry import box

    from psdviz.regions import us_counties, world_countries
    layer = us_counties()
    geoms = layer.frame.geometry.to_numpy()[layer.table()["level"].to_numpy() == level]
    xmin, ymin, xmax, ymax = view.view_bounds(geoms)
    seen = box(xmin - 0.02 * (xmax - xmin), ymin - 0.02 * (ymax - ymin), xmax + 0.02 * (xmax - xmin),
               ymax + 0.02 * (ymax - ymin))
    for lon, lat in [(-124.6, 48.3), (-124.2, 41.9), (-117.1, 32.6), (-97.2, 25.9), (-80.2, 25.2), (-67.0, 44.8),
                     (-149.9, 61.2), (-155.5, 19.5), (-66.1, 18.4), (-165.4, 64.5)]:
        assert seen.contains(box(lon - 0.01, lat - 0.01, lon + 0.01, lat + 0.01)), (lon, lat)
    assert xmin > -179 and xmax < -60            # Guam (144.8 E) and the Aleutians' far end are left out
    assert view.view_bounds(world_countries().frame.geometry.to_numpy())[0] == pytest.approx(-180, abs=1)


def test_a_fresh_release_is_the_same_draw_when_the_user_comes_back():
    """Six other epsilons and back: the region counts are the ones shown before (the session keeps its releases;
    a process cache of four entries used to redraw them with new noise)."""
    at = _app()
    first = _metrics(at)["Private count"]
    for eps in (0.01, 0.03, 0.1, 0.3, 3.0, 1.0):
        at.select_slider(key="rg_eps").set_value(eps).run()
        assert not at.exception and not at.error
    assert _metrics(at)["Private count"] == first
    assert len(at.session_state["psdviz_session_releases"]) == 6


def test_drill_down_zooms_to_the_region_drilled_into():
    """After "Drill down a level" from Colorado the map opens on Colorado (its bounds), not on the whole US; a
    click on the level radio's other level goes back to the whole layer."""
    script = SCRIPT.replace(
        "mapview.show_map = lambda fmap, key, height=560, overlay=None: st.session_state.get(key)",
        "def _show(fmap, key, height=560, overlay=None):\n"
        "    fit = [c for c in fmap._children.values() if type(c).__name__ == 'FitBounds']\n"
        "    st.session_state['fit'] = fit[-1].bounds if fit else None\n"
        "    return st.session_state.get(key)\n"
        "mapview.show_map = _show")
    at = AppTest.from_string(script, default_timeout=180).run()
    whole = at.session_state["fit"]
    at.session_state[keys.REGIONS_MAP] = {"last_object_clicked": {"lat": 39.0, "lng": -105.5}}      # Colorado
    at.run()
    at.button(key="rg_drill").click().run()
    assert not at.exception and at.radio(key="rg_level").value == 1
    (south, west), (north, east) = at.session_state["fit"]
    assert -110 < west < -108 and -103 < east < -101 and 36 < south < 37.5 and 40.5 < north < 42, (west, east)
    (w_south, w_west), _ = whole
    assert w_west < -160                                     # before: the whole US, Alaska included
    at.radio(key="rg_level").set_value(0).run()
    assert at.session_state["fit"][0][1] < -160              # another level: the whole layer again


UPLOAD_SCRIPT = """
import streamlit as st
from psdviz.ui import mapview, regions_page
mapview.show_map = lambda fmap, key, height=560, overlay=None: st.session_state.get(key)
class Upload:
    name = "countries.geojson"
    def getvalue(self):
        return st.session_state["layer_bytes"]
regions_page.layer_file = lambda k: Upload()
regions_page.render()
"""


def test_an_uploaded_layer_gets_ids_and_names_a_person_would_pick_and_a_merge_is_warned_on_the_page():
    """Natural Earth's columns (pop_est first, iso_a3 shared by five countries as -99): the page takes the
    unique name column, never the population; with iso_a3 picked, the merge is a warning in the main area naming
    the shared id and its countries, before anything is built."""
    import geopandas as gpd
    from shapely.geometry import box
    gdf = gpd.GeoDataFrame({
        "pop_est": [920938, 53950935, 67059887, 5347896, 37589262, 3500000],
        "name": ["Fiji", "Tanzania", "France", "Norway", "Canada", "Kosovo"],
        "iso_a3": ["FJI", "TZA", "-99", "-99", "CAN", "-99"]},
        geometry=[box(-100 + i * 10, 30, -91 + i * 10, 39) for i in range(6)], crs="EPSG:4326")
    at = AppTest.from_string(UPLOAD_SCRIPT, default_timeout=180)
    at.session_state["layer_bytes"] = gdf.to_json(drop_id=True).encode()
    at.session_state["rg_layer"] = "Upload a layer"
    at.run()
    assert not at.exception, at.exception
    assert at.selectbox(key="rg_id").value == "name" and at.selectbox(key="rg_name").value == "(same as id)"
    assert any("ids from column 'name' (unique)" in c.value.replace(chr(92), '') for c in at.sidebar.caption)
    assert not at.main.warning
    at.selectbox(key="rg_id").set_value("iso_a3").run()
    assert not at.exception, at.exception
    said = [w.value.replace("\\", "") for w in at.main.warning]
    assert any("merged into one region each: '-99' (3 features: France, Norway, Kosovo)" in w for w in said), said
    assert at.selectbox(key="rg_name").value == "name"     # the names shown are the column the page says
    at.selectbox(key="rg_name").set_value("(same as id)").run()
    assert not at.exception, at.exception
    said = [w.value.replace("\\", "") for w in at.main.warning]    # named by their ids now: no names to list
    assert any("merged into one region each: '-99' (3 features);" in w for w in said), said


def test_the_pages_region_files_are_the_command_lines_one_schema_rounded_for_people():
    """Both routes' counts as the page writes them: the CLI's columns in its order, numbers rounded (a planned
    release's answers carried 16 digits)."""
    import psdviz as pv
    from psdviz.regions import us_states
    from psdviz.regions.table import COMMON as COMMON_COLUMNS
    from psdviz.ui.regions_page import export_table
    layer = us_states()
    pts = np.random.default_rng(3).uniform([-120, 30], [-75, 45], (3000, 2))
    region = pv.build_regions(pts, layer, epsilon=1.0)
    spatial = pv.build(pts, pv.Domain(-180, -90, 180, 90), "quadtree", 1.0)
    for rel, counts in ((region, region.counts()), (spatial, spatial.answer_regions(layer))):
        table = export_table(rel, counts)
        assert tuple(table.columns[:len(COMMON_COLUMNS)]) == COMMON_COLUMNS
        for c in ("low_95", "high_95", "standard_error"):
            v = table[c].dropna().to_numpy(float)
            np.testing.assert_array_equal(v, np.round(v, 1))


def test_the_regions_are_listed_by_the_name_column_the_page_shows():
    """The region list follows the Name column box: picked again with another column, the names listed change (a
    release cached for the layer read with the first column once kept its names)."""
    import geopandas as gpd
    from shapely.geometry import box

    from psdviz.ui import keys
    gdf = gpd.GeoDataFrame({"code": ["A", "B", "C"], "name": ["Northland", "Middleland", "Southland"],
                            "label": ["north", "middle", "south"]},
                           geometry=[box(-100 + i * 10, 30, -91 + i * 10, 39) for i in range(3)], crs="EPSG:4326")
    at = AppTest.from_string(UPLOAD_SCRIPT, default_timeout=180)
    at.session_state["layer_bytes"] = gdf.to_json(drop_id=True).encode()
    at.session_state["rg_layer"] = "Upload a layer"
    at.run()
    at.selectbox(key="rg_id").set_value("code").run()
    assert not at.exception, at.exception
    assert at.selectbox(key="rg_name").value == "name"
    assert any("Middleland" in o for o in at.selectbox(key=keys.REGION).options)
    at.selectbox(key="rg_name").set_value("label").run()
    assert not at.exception, at.exception
    listed = at.selectbox(key=keys.REGION).options
    assert any("middle" in o for o in listed) and not any("Middleland" in o for o in listed), listed


def test_the_layer_key_tells_apart_names_and_parents():
    """The key a built release is cached under names the regions' ids, names, parents and outlines: the same
    file read with another name or parent column is another layer (a region release is fitted to its tree)."""
    import geopandas as gpd
    from shapely.geometry import box

    from psdviz import regions as rg
    from psdviz.ui.regions_page import _layer_digest
    gdf = gpd.GeoDataFrame({"code": ["A", "B", "C", "D"], "name": ["An", "Be", "Ce", "De"],
                            "label": ["a", "b", "c", "d"], "up1": ["A", "A", "A", "A"], "up2": ["A", "A", "A", "C"]},
                           geometry=[box(i, 0, i + 1, 1) for i in range(4)], crs="EPSG:4326")
    plain = rg.Regions.from_frame(gdf, id="code", name="name")
    keys_ = {_layer_digest(plain), _layer_digest(rg.Regions.from_frame(gdf, id="code", name="label")),
             _layer_digest(rg.Regions.from_frame(gdf.assign(up1=[None, "A", "A", "A"]), id="code", name="name",
                                                 parent="up1")),
             _layer_digest(rg.Regions.from_frame(gdf.assign(up2=[None, "A", "A", "C"]), id="code", name="name",
                                                 parent="up2"))}
    assert len(keys_) == 4 and _layer_digest(plain) == _layer_digest(rg.Regions.from_frame(gdf, id="code",
                                                                                           name="name"))
