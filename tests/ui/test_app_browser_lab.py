"""Real-browser flows of the lab pages (Playwright driving Debian's chromium): run a comparison
and see its charts; pick a hierarchy node by clicking its marker and see its histograms; build a
sparse summary (points on a grid, then the flights table) and see the heatmap. Reuses the map
page's server fixture; screenshots are saved under test-artifacts/ (lab_*.png)."""
from __future__ import annotations

import re

import pytest
from test_app_browser import ARGS, ARTIFACTS, CHROMIUM, MAP_IFRAME, server  # noqa: F401

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def browser_page(server):  # noqa: F811
    from playwright.sync_api import sync_playwright
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        ctx = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
        pg = ctx.new_page()
        pg.set_default_timeout(240_000)
        yield pg
        browser.close()


def _wait_idle(pg, timeout_ms: int = 240_000):
    """Wait until the script run ends (Streamlit's status widget goes away); generous, the 2 cores are shared."""
    pg.wait_for_timeout(300)
    pg.locator("[data-testid='stStatusWidget']").wait_for(state="detached", timeout=timeout_ms)


def _shot(pg, name):
    pg.screenshot(path=str(ARTIFACTS / name), full_page=True)


def test_compare_runs_and_shows_charts(browser_page, server):  # noqa: F811
    pg = browser_page
    pg.goto(f"{server}/compare")
    pg.get_by_role("button", name=re.compile("Run comparison")).wait_for()
    _wait_idle(pg)
    pg.get_by_role("button", name=re.compile("Run comparison")).click()
    pg.get_by_text("Relative error per query shape", exact=False).first.wait_for()
    _wait_idle(pg)
    assert pg.locator(".js-plotly-plot").count() == 3
    assert pg.locator(".js-plotly-plot .boxlayer path.box").count() >= 4   # boxes drawn
    assert pg.get_by_text("Done:", exact=False).count() == 1
    with pg.expect_download() as dl:
        pg.get_by_role("button", name="Download the error table (CSV)").click()
    assert dl.value.path().read_text().startswith("method,algorithm,epsilon,shape")
    _shot(pg, "lab_01_compare.png")


def test_coco_map_click_picks_a_node(browser_page, server):  # noqa: F811
    pg = browser_page
    pg.goto(f"{server}/coco")
    frame = pg.frame_locator(MAP_IFRAME).last
    markers = frame.locator("path.leaflet-interactive")   # level 1: the states as regions (us-atlas)
    markers.first.wait_for()
    _wait_idle(pg)
    assert markers.count() >= 40
    assert "USA" in pg.locator(".js-plotly-plot .gtitle").first.text_content()
    markers.nth(min(4, markers.count() - 1)).click(force=True)
    pg.wait_for_function("""() => { const t = document.querySelector('.js-plotly-plot .gtitle');
                                     return t && !t.textContent.includes(' USA'); }""")
    _wait_idle(pg)
    title = pg.locator(".js-plotly-plot .gtitle").first.text_content()
    node = title.split(" at ", 1)[1].split(":", 1)[0]
    assert node != "USA"
    pg.locator(".js-plotly-plot").first.scroll_into_view_if_needed()
    pg.wait_for_timeout(500)
    pg.screenshot(path=str(ARTIFACTS / "lab_02_coco_histograms.png"))
    shown = pg.evaluate("""() => [...document.querySelectorAll("[data-testid='stSelectbox']")].map(
        e => e.innerText + ' ' + [...e.querySelectorAll('input')]
            .map(i => i.value + ' ' + (i.getAttribute('aria-label') || '')).join(' '))""")
    assert any(node in s.replace("\u00a0", " ") for s in shown), shown   # the tree selector follows the click
    assert pg.locator(".js-plotly-plot .bars path").count() > 2
    assert pg.get_by_text("Earthmover's error", exact=True).count() == 1
    _shot(pg, "lab_02_coco.png")


def test_sparse_builds_and_shows_the_heatmap(browser_page, server):  # noqa: F811
    pg = browser_page
    pg.goto(f"{server}/sparse")
    pg.get_by_text("Block sums: truth and private summary").last.wait_for()
    _wait_idle(pg)
    assert pg.locator(".js-plotly-plot .heatmaplayer image, .js-plotly-plot .hm image").count() >= 2 or \
        pg.locator(".js-plotly-plot .heatmaplayer").count() >= 1
    assert pg.get_by_text("Summary size").count() == 1
    pg.locator(".js-plotly-plot").first.scroll_into_view_if_needed()
    pg.mouse.wheel(0, 250)
    pg.wait_for_timeout(500)
    pg.screenshot(path=str(ARTIFACTS / "lab_03_sparse.png"))
    assert pg.get_by_text("65,536 cells", exact=False).count() >= 1   # default: the world places on a 256 x 256 grid
    pg.get_by_text("Flights sample: tail number x scheduled service").click()
    pg.get_by_text("48,750,494 cells", exact=False).first.wait_for()
    assert pg.get_by_text("looks like pure noise", exact=False).count() == 1
    _wait_idle(pg)
    pg.get_by_text("Block sums: truth and private summary").last.wait_for()
    pg.wait_for_timeout(1000)
    pg.get_by_text("Block sums: truth and private summary").last.scroll_into_view_if_needed()
    pg.mouse.wheel(0, 250)
    pg.wait_for_timeout(500)
    pg.screenshot(path=str(ARTIFACTS / "lab_04_sparse_flights.png"))
