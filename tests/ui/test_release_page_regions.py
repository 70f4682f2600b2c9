"""The analyst's route on "Open a release": a spatial release answers every region of a layer on a choropleth
with each region's whole interval and exports; a region release of a bundled layer opens on its choropleth."""
from __future__ import annotations

import pytest

pytest.importorskip("geopandas")
from streamlit.testing.v1 import AppTest

SPATIAL = """
import psdviz as pv
from psdviz.io.samples import sample_points
from psdviz.ui import mapview, release_page
mapview.show_map = lambda *a, **k: {}
rel = pv.build(sample_points("geonames"), pv.Domain(-180, -90, 180, 90), "quadtree", 1.0)
release_page.region_counts(rel, "spatial-test")
"""

REGIONS = """
import psdviz as pv
from psdviz.io.samples import sample_points
from psdviz.regions import us_states
from psdviz.ui import mapview, release_page
mapview.show_map = lambda *a, **k: {}
rel = pv.build_regions(sample_points("geonames"), us_states(), epsilon=1.0)
release_page.other_release(rel, "regions-test")
"""


def _labels(at) -> list[str]:
    return [b.proto.label for b in at.get("download_button")]


def test_a_spatial_release_answers_every_region_of_a_layer():
    at = AppTest.from_string(SPATIAL, default_timeout=180)
    at.run()
    assert not at.exception and not at.get("download_button")          # nothing until the analyst asks
    at.toggle(key="rel_rg_on").set_value(True).run()
    at.selectbox(key="rel_rg_layer").set_value("US states").run()
    assert not at.exception, at.exception
    region = at.selectbox(key="rel_rg_region")
    region.set_value("06").run()                                        # California
    assert not at.exception
    assert [m.label for m in at.metric][:2] == ["Private count", "95 % interval"]
    assert "the cells the edges cut" in " ".join(c.value for c in at.caption)   # the whole error, not the noise
    assert {"Counts (CSV)", "Counts with outlines (GeoJSON)"} <= set(_labels(at))
    assert "Release file (JSON)" not in _labels(at)                    # the analyst opened that file already
    # the map page's keys are untouched: the Regions page keeps its own state
    assert "rg_region" not in at.session_state


def test_a_region_release_of_a_bundled_layer_opens_on_its_choropleth():
    at = AppTest.from_string(REGIONS, default_timeout=180)
    at.run()
    assert not at.exception, at.exception
    assert at.selectbox(key="rel_rg_region") is not None               # a region to pick: the choropleth's view
    assert [m.label for m in at.metric][:1] == ["Private count"]
    assert "Counts (CSV)" in _labels(at)


def test_regions_outside_the_releases_domain_are_said_to_have_no_answer():
    script = SPATIAL.replace("pv.Domain(-180, -90, 180, 90)", "pv.Domain(-125, 24, -66, 50)")   # the lower 48
    at = AppTest.from_string(script, default_timeout=180)
    at.run()
    at.toggle(key="rel_rg_on").set_value(True).run()
    at.selectbox(key="rel_rg_layer").set_value("World countries").run()
    assert not at.exception, at.exception
    at.selectbox(key="rel_rg_region").set_value("250").run()                 # France
    assert not at.exception
    assert any("says nothing about this region" in i.value for i in at.info)
    assert any("White: outside the release's domain" in c.value for c in at.caption)
    assert not [m for m in at.metric if m.label == "Private count"]     # no number for France
