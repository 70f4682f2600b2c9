"""The Regions page in a real browser: the choropleth renders offline, a click on a region answers
with its private count, standard error and 95 % interval; a region release file opens on "Open a
release"."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from test_app_browser import ARTIFACTS, CUT_LABELS, MAP_IFRAME, server  # noqa: F401
from test_app_browser_release import _wait_idle, pg  # noqa: F401

import psdviz as pv
from psdviz.io.samples import sample_points
from psdviz.regions import us_counties, us_states

pytestmark = pytest.mark.browser


def _click_at(page, lon: float, lat: float) -> None:
    """Click the map where it draws (lon, lat): Leaflet's own projection gives the point in the map's frame."""
    frame = page.frame_locator(MAP_IFRAME).last
    x, y = frame.locator("body").evaluate(
        "(e, [lon, lat]) => { const m = Object.keys(window).filter(k => k.startsWith('map_')).map(k => window[k])"
        ".find(v => v && v.latLngToContainerPoint); const p = m.latLngToContainerPoint([lat, lon]);"
        "return [p.x, p.y]; }", [lon, lat])
    box = page.locator(MAP_IFRAME).last.bounding_box()
    page.mouse.click(box["x"] + x, box["y"] + y)


def test_a_click_on_a_region_answers_it(pg, server):  # noqa: F811
    pg.goto(f"{server}/regions")
    frame = pg.frame_locator(MAP_IFRAME).last
    frame.locator("path.leaflet-interactive").first.wait_for()
    _wait_idle(pg)
    before = pg.locator("[data-testid='stHeading'] h3").first.inner_text()
    _click_at(pg, -98.0, 38.5)                                     # Kansas: the middle of the US
    pg.screenshot(path=str(ARTIFACTS / "08_regions_clicked.png"))
    pg.wait_for_function(f"() => ![...document.querySelectorAll('[data-testid=stHeading] h3')]"
                         f".some(e => e.innerText === {before!r})", timeout=60_000)
    _wait_idle(pg)
    after = pg.locator("[data-testid='stHeading'] h3").first.inner_text()
    names = set(us_states().table()["name"])
    assert after in names and after != before
    for label in ("Private count", "95 % interval"):
        assert pg.locator("[data-testid='stMetric']", has_text=label).count() == 1
    interval = pg.locator("[data-testid='stMetric']", has_text="95 % interval").locator("[data-testid='stMetricValue']")
    assert re.fullmatch("-?[0-9,.]+ to [0-9,.]+", interval.inner_text().strip())
    noise_words = re.compile("^95 % interval of the noise \\(a region release counts whole regions")
    assert pg.get_by_text(noise_words).count() == 1
    assert pg.get_by_text(re.compile("Colour classes:")).count() == 1
    pg.screenshot(path=str(ARTIFACTS / "08_regions.png"), full_page=True)
    # the files are made when their button is pressed: the counts and the counts with outlines
    with pg.expect_download() as dl:
        pg.get_by_role("button", name="Counts (CSV)").click()
    csv = Path(dl.value.path()).read_text().splitlines()
    assert csv[0].startswith("id,") and len(csv) == 1 + len(us_counties().table())
    with pg.expect_download() as dl:
        pg.get_by_role("button", name="Counts with outlines (GeoJSON)").click()
    gj = json.loads(Path(dl.value.path()).read_text())
    assert gj["type"] == "FeatureCollection" and {"estimate", "standard_error"} <= set(gj["features"][0]["properties"])


def test_a_region_release_opens_on_the_release_page(pg, server, tmp_path):  # noqa: F811
    rel = pv.build_regions(sample_points("geonames"), us_states(), epsilon=1.0)
    path = rel.save(tmp_path / "states.json")
    pg.goto(f"{server}/release")
    pg.get_by_text("Upload a release file").wait_for()
    pg.locator("[data-testid='stFileUploaderDropzoneInput']").set_input_files(str(path))
    pg.get_by_text(re.compile("a region equals the sum of the regions inside it")).wait_for()
    _wait_idle(pg)
    assert pg.get_by_text(re.compile("regions")).count() >= 1
    assert pg.get_by_text(re.compile("a region equals the sum of the regions inside it")).count() == 1
    # a bundled layer's release opens on its choropleth, not as a bare table
    pg.frame_locator(MAP_IFRAME).last.locator("path.leaflet-interactive").first.wait_for()
    assert pg.get_by_text(re.compile("Colour classes:")).count() == 1
    pg.screenshot(path=str(ARTIFACTS / "09_release_regions.png"), full_page=True)


def test_counties_by_density_with_pooled_ones_dashed(pg, server):  # noqa: F811
    pg.goto(f"{server}/regions")
    frame = pg.frame_locator(MAP_IFRAME).last
    frame.locator("path.leaflet-interactive").first.wait_for()
    _wait_idle(pg)
    pg.get_by_text("level 1", exact=True).click()
    _wait_idle(pg)
    pg.get_by_text("density per km²", exact=True).click()
    _wait_idle(pg)
    pg.get_by_text(re.compile("Colour classes: .* per km²")).wait_for()
    frame = pg.frame_locator(MAP_IFRAME).last
    frame.locator("path.leaflet-interactive").first.wait_for()
    assert frame.locator("path.leaflet-interactive[stroke-dasharray]").count() > 0      # pooled counties
    # styled in the browser from each region's properties: no region keeps Leaflet's default blue
    assert frame.locator('path.leaflet-interactive[fill="#3388ff"]').count() == 0
    assert frame.locator('path.leaflet-interactive[fill-opacity="0.85"]').count() > 100
    assert pg.get_by_text(re.compile("Dashed outline: not measured")).count() == 1
    pg.screenshot(path=str(ARTIFACTS / "08_regions_density.png"), full_page=True)


def test_counties_from_a_spatial_release_planned_for_them(pg, server):  # noqa: F811
    """"Counts from" the quadtree planned for the layer: the choropleth renders, the page says where the
    numbers come from, and a click on a county answers it with the spatial release's noise words and the
    interval with the cut cells' modelled error; the legend says what the classes' width holds."""
    pg.goto(f"{server}/regions")
    pg.frame_locator(MAP_IFRAME).last.locator("path.leaflet-interactive").first.wait_for()
    _wait_idle(pg)
    pg.get_by_text("Spatial release planned for these regions", exact=True).click()
    _wait_idle(pg)
    pg.get_by_text(re.compile("Private counts for places from a spatial release")).wait_for()
    pg.get_by_text("level 1", exact=True).click()
    _wait_idle(pg)
    frame = pg.frame_locator(MAP_IFRAME).last
    frame.locator("path.leaflet-interactive").first.wait_for()
    before = pg.locator("[data-testid='stHeading'] h3").first.inner_text()
    _click_at(pg, -98.0, 38.5)
    pg.wait_for_function(f"() => ![...document.querySelectorAll('[data-testid=stHeading] h3')]"
                         f".some(e => e.innerText === {before!r})", timeout=60_000)
    _wait_idle(pg)
    assert pg.get_by_text(re.compile("inside the cells the region's border cuts is modelled")).count() == 1
    assert pg.get_by_text(re.compile(r"^95 % interval, noise and the cells the edges cut. In it: .*a model.s "
                                     r"standard deviation")).count() == 1
    assert pg.get_by_text(re.compile("two typical errors of noise and cut cells together")).count() == 1
    assert pg.get_by_text(re.compile("deepened to")).count() >= 1          # the release's note on its depth
    pg.screenshot(path=str(ARTIFACTS / "08_regions_planned.png"), full_page=True)


@pytest.mark.parametrize("size", [(1400, 1000), (1024, 768)])
def test_the_choropleth_fits_the_layer_and_its_key_is_in_view(pg, server, size):  # noqa: F811
    """At both window sizes the counties' map opens on the whole US (the west coast, Maine, Florida's tip,
    Alaska) and the key of colour swatches is on the map, inside the window."""
    page = pg.context.browser.new_context(viewport={"width": size[0], "height": size[1]}).new_page()
    page.goto(f"{server}/regions")
    frame = page.frame_locator(MAP_IFRAME).last
    frame.locator("path.leaflet-interactive").first.wait_for(timeout=120_000)
    _wait_idle(page)
    page.get_by_text("level 1", exact=True).click()
    _wait_idle(page)
    frame = page.frame_locator(MAP_IFRAME).last
    page.wait_for_function("() => [...document.querySelectorAll('iframe')].some(f => f.contentDocument && "
                           "f.contentDocument.querySelectorAll('path.leaflet-interactive').length > 3000)",
                           timeout=120_000)
    bounds = frame.locator("body").evaluate(
        "() => { const m = Object.keys(window).filter(k => k.startsWith('map_')).map(k => window[k])"
        ".find(v => v && v.getBounds); const b = m.getBounds();"
        "return [b.getWest(), b.getSouth(), b.getEast(), b.getNorth()]; }")
    west, south, east, north = bounds
    for lon, lat in [(-124.6, 48.3), (-117.1, 32.6), (-80.2, 25.2), (-67.0, 44.8), (-149.9, 61.2)]:
        assert west <= lon <= east and south <= lat <= north, (size, bounds, lon, lat)
    key = frame.locator(".psdviz-key")
    assert key.count() == 1 and key.locator("span").count() >= 2
    box = key.bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= size[1], (size, box)
    assert box["x"] >= 0 and box["x"] + box["width"] <= size[0], (size, box)
    page.screenshot(path=str(ARTIFACTS / f"08_regions_counties_{size[0]}.png"))
    labels = page.locator("[data-testid='stDownloadButton'] button")
    cut = labels.evaluate_all(CUT_LABELS)
    assert labels.count() >= 4 and not cut, (size, cut)          # every export's whole label
    toggle = page.get_by_text("True count (NOT private)", exact=True).first
    assert not toggle.evaluate("e => [e, e.parentElement, e.parentElement.parentElement]"
                               ".some(n => n.scrollWidth > n.clientWidth + 1)"), size
    page.context.close()
