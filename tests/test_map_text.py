"""Text from the user's files cannot run as code on a map: not as a Jinja template on the server (folium
compiles each element's rendered script again), not as HTML in the reader's browser (tooltips are HTML)."""
from __future__ import annotations

import os

import geopandas as gpd
import numpy as np
import pandas as pd
import pytest
from shapely.geometry import box

import psdviz as pv
from psdviz.core.map_text import ZERO_WIDTH, inert_columns, map_text
from psdviz.regions import Regions

EVIL = ["{{ 7*7 }}", "{{ cycler.__init__.__globals__.os.getpid() }}", "{% set x = 1 %}{#c#}",
        "<img src=x onerror=alert(1)>"]


def _harmless(html: str) -> None:
    """None of EVIL ran: no 49, no server pid, no live tag; the text is still there to read."""
    assert '"name": "49"' not in html and '"49: ' not in html and f"{os.getpid()}" not in html
    assert "<img src=x" not in html and ("&lt;img src=x" in html or "\\u0026lt;img src=x" in html)
    assert "{\\u200b{ 7*7 }}" in html or "{" + ZERO_WIDTH + "{ 7*7 }}" in html


def test_map_text_breaks_jinja_and_escapes_html_and_keeps_the_rest():
    assert map_text("{{ a }}{% b %}{# c #}") == "{\u200b{ a }}{\u200b% b %}{\u200b# c #}"
    assert map_text("<b>&</b>") == "&lt;b&gt;&amp;&lt;/b&gt;"
    assert map_text("Prince George's County {1}") == "Prince George's County {1}"
    assert map_text(7) == "7"


def test_inert_columns_copies_and_leaves_numbers_and_missing_values():
    frame = pd.DataFrame({"name": ["{{x}}", None], "n": [1, 2]})
    out = inert_columns(frame)
    assert out["name"][0] == "{\u200b{x}}" and pd.isna(out["name"][1]) and out["n"].tolist() == [1, 2]
    assert frame["name"][0] == "{{x}}"            # the caller's frame is not altered


def _layer() -> Regions:
    gdf = gpd.GeoDataFrame({"id": ["a", "b", "c", "d"], "name": EVIL},
                           geometry=[box(0, 0, 1, 1), box(1, 0, 2, 1), box(0, 1, 1, 2), box(1, 1, 2, 2)],
                           crs="EPSG:4326")
    return Regions.from_frame(gdf, id="id", name="name")


def test_region_release_explore_renders_hostile_names_as_text():
    pytest.importorskip("folium")
    lay = _layer()
    pts = np.random.default_rng(0).uniform(0, 2, (2_000, 2))
    rel = pv.build_regions(pts, lay, epsilon=1.0, seed=1)
    _harmless(pv.explore(rel, lay).get_root().render())


def test_the_regions_choropleth_renders_hostile_names_as_text():
    pytest.importorskip("folium")
    from psdviz.ui import regions_view as view
    lay = _layer()
    counts = pd.DataFrame({"id": list("abcd"), "name": EVIL, "level": 0, "estimate": [300.0, 100, 50, 10],
                           "standard_error": [3.0, 1, 1, 1]})
    fmap, _ = view.choropleth(lay.frame, counts, 0, "a")
    _harmless(fmap.get_root().render())


def test_the_count_of_counts_map_renders_hostile_node_names_as_text():
    pytest.importorskip("folium")
    from psdviz.ui import coco_view as view
    pos = pd.DataFrame({"node": [0, 1, 2, 3], "name": EVIL, "level": 1, "lat": [25.0, 26, 27, 28],
                        "lon": [-80.0, -81, -82, -83]})
    regions = {3: box(-84, 27, -82, 29).__geo_interface__}
    html = view.marker_map(pos, 1, np.array([5, 6, 7, 8]), 0, regions).get_root().render()
    _harmless(html)
