"""The "Open a release" page in a real browser: a release file saved by the engine is
uploaded through the page's file uploader, drawn, and a drawn rectangle is answered with its error
bar, as a data consumer would see it (no raw data). A file that is not a release gives an st.error."""
from __future__ import annotations

import re

import numpy as np
import pytest
from test_app_browser import ARGS, ARTIFACTS, CHROMIUM, MAP_IFRAME, _drag, server  # noqa: F401

import psdviz as pv
from psdviz.io.samples import get_sample, load_sample

pytestmark = pytest.mark.browser
BUILT = "[data-testid='stMarkdownContainer']:has-text('PRIVATE release')"   # the map page's release line


@pytest.fixture(scope="module")
def release_file(tmp_path_factory):
    s = get_sample("geonames")
    xy = load_sample("geonames")[[s.x, s.y]].to_numpy(float)
    rel = pv.build(xy, s.domain, "privtree", 1.0, seed=4, resolution=16)
    return rel, rel.save(tmp_path_factory.mktemp("rel") / "consumer.parquet", crs="EPSG:4326", allow_seeded=True)


@pytest.fixture(scope="module")
def pg(server):  # noqa: F811
    from playwright.sync_api import sync_playwright
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
        page.set_default_timeout(120_000)
        yield page
        browser.close()


def _wait_idle(page):
    page.wait_for_timeout(300)
    page.locator("[data-testid='stStatusWidget']").wait_for(state="detached", timeout=120_000)


def test_open_a_release_and_answer_a_drawn_query(pg, server, release_file):  # noqa: F811
    rel, path = release_file
    pg.goto(f"{server}/release")
    pg.get_by_text("Upload a release file").wait_for()
    pg.locator("[data-testid='stFileUploaderDropzoneInput']").set_input_files(str(path))
    pg.frame_locator(MAP_IFRAME).last.locator("canvas.leaflet-zoom-animated").first.wait_for()
    _wait_idle(pg)
    assert pg.get_by_text(re.compile(r"epsilon = 1, privacy unit: one point")).count() >= 1
    assert pg.get_by_text("Privacy ledger").count() == 1
    frame = pg.frame_locator(MAP_IFRAME).last
    frame.locator("a.leaflet-draw-draw-rectangle").click()
    _drag(pg, (0.40, 0.25), (0.65, 0.50))
    pg.get_by_text("Estimated count", exact=True).wait_for()
    _wait_idle(pg)
    value = pg.locator("[data-testid='stMetric']", has_text="Estimated count").locator("[data-testid='stMetricValue']")
    est = float(value.inner_text().replace(",", ""))
    iv = pg.locator("[data-testid='stMetric']", has_text="95 % interval").locator("[data-testid='stMetricValue']")
    low, high = (float(v.replace(",", "")) for v in iv.inner_text().split(" to "))
    assert low < est < high
    # the shown answer is the release's answer for some rectangle inside the domain: within the total
    assert 0 <= est <= float(rel.answer(np.array([rel.domain.as_rect()]))[0]) * 1.01
    assert pg.get_by_text(re.compile("^95 % interval, noise and the cells the edges cut. In it: the noise's "
                                     "standard error")).count() == 1
    assert pg.get_by_text(re.compile("bars: 95 % intervals with the cut cells' model")).count() == 1
    assert pg.get_by_text("True answer").count() == 0     # a consumer has no truth
    pg.screenshot(path=str(ARTIFACTS / "06_open_release.png"), full_page=True)


def test_a_file_that_is_not_a_release_gives_an_error(pg, server, tmp_path):  # noqa: F811
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"PAR1 this is not parquet")
    pg.goto(f"{server}/release")
    pg.get_by_text("Upload a release file").wait_for()
    pg.locator("[data-testid='stFileUploaderDropzoneInput']").set_input_files(str(bad))
    pg.get_by_text(re.compile("Cannot open bad.parquet")).wait_for()
    assert pg.get_by_text(re.compile("not a readable Parquet file")).count() >= 1
    pg.get_by_text("Upload a release file").count()   # the page is still there


def test_open_a_release_holds_none_of_the_map_view_in_its_address(pg, server):  # noqa: F811
    """The map page's view (method, epsilon, ...) is in the address on the map, not on Open a release, which uses
    none of it (a link to it with those parameters drops them), and comes back with the map."""
    pg.goto(f"{server}/?method=ug&epsilon=1")
    pg.locator(BUILT).first.wait_for()
    _wait_idle(pg)
    assert "method=ug" in pg.url and "epsilon=1" in pg.url
    pg.get_by_role("link", name="Open a release").click()
    pg.get_by_text("Upload a release file").wait_for()
    _wait_idle(pg)
    assert "/release" in pg.url and "?" not in pg.url, pg.url
    pg.get_by_role("link", name="Map: build, see, query").click()
    pg.locator(BUILT).first.wait_for()
    _wait_idle(pg)
    assert "method=ug" in pg.url and "epsilon=1" in pg.url
    pg.goto(f"{server}/release?method=kdtree&epsilon=2&rect=1,2,3,4")
    pg.get_by_text("Upload a release file").wait_for()
    _wait_idle(pg)
    assert "?" not in pg.url, pg.url
