"""What a newcomer sees at 1280 x 800 without scrolling, offline: a clicked cell's answer beside the map (not
below the expanders), and a map on the page's white with no tile basemap by default; switched on with no
internet, the basemap removes itself and the map says so once. The first screen as it opens is saved as
test-artifacts/01_map_opens_1280.png (the README's docs/screenshots/map.png)."""
from __future__ import annotations

import re

import pytest
from test_app_browser import ARGS, ARTIFACTS, CHROMIUM, MAP_IFRAME, _map_frame, server  # noqa: F401
from test_app_browser_uploads import _idle

pytestmark = pytest.mark.browser
WIDTH, HEIGHT = 1280, 800


@pytest.fixture(scope="module")
def small(server):  # noqa: F811
    """One 1280 x 800 page on the map, its cells drawn."""
    from playwright.sync_api import sync_playwright
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        page = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT}).new_page()
        page.set_default_timeout(120_000)
        page.goto(server)
        _map_frame(page).locator("canvas.leaflet-zoom-animated, img.leaflet-image-layer").first.wait_for()
        _idle(page)
        yield page
        browser.close()


def _in_view(page, locator) -> bool:
    box = locator.bounding_box()
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= HEIGHT


def test_the_map_has_no_tile_basemap_by_default_and_no_grey_under_it(small):
    frame = _map_frame(small)
    assert "tile.openstreetmap.org" not in frame.locator("html").inner_html()
    background = frame.locator(".leaflet-container").first.evaluate("e => getComputedStyle(e).backgroundColor")
    assert background == "rgb(255, 255, 255)", background          # Leaflet's own is grey (221, 221, 221)
    assert "OpenStreetMap" not in frame.locator(".leaflet-control-attribution").inner_text()
    small.screenshot(path=str(ARTIFACTS / "01_map_opens_1280.png"))


def _numbers(text: str) -> list[float | None]:
    """A cell's level, noisy and estimated counts from the tooltip's or the panel's words (None: not measured)."""
    number = r"\**(not measured|-?[\d,.]+)\**"
    found = re.search(rf"level \**(\d+)\**.*?noisy count {number}.*?estimated count {number}", text, re.S)
    assert found is not None, text
    return [None if v == "not measured" else float(v.replace(",", "")) for v in found.groups()]


def test_a_cells_tooltip_gives_the_clicked_cells_own_level_and_counts(small):
    """One tooltip serves the whole group of cells: hovering a cell shows that cell's own level and counts (to a
    tenth), the ones its click shows beside the map (rounded for people)."""
    box = small.locator(MAP_IFRAME).last.bounding_box()
    seen = min(box["y"] + box["height"], HEIGHT) - box["y"]
    x, y = box["x"] + box["width"] * 0.42, box["y"] + seen * 0.45          # Europe on the world map
    small.mouse.move(x - 5, y - 5)
    small.mouse.move(x, y, steps=3)
    tip = _map_frame(small).locator(".leaflet-tooltip").first
    tip.wait_for()
    hovered = _numbers(tip.inner_text())
    small.mouse.click(x, y)
    small.get_by_text("Clicked cell").wait_for()
    _idle(small)
    clicked = _numbers(small.locator("[data-testid='stMarkdownContainer']", has_text="its count's epsilon").first
                       .inner_text())
    assert hovered[0] == clicked[0], (hovered, clicked)
    for a, b in zip(hovered[1:], clicked[1:]):
        assert (a is None and b is None) or abs(a - b) <= 0.5, (hovered, clicked)


def test_a_clicked_cell_is_answered_in_the_first_screen(small):
    small.evaluate("() => { const m = document.querySelector('[data-testid=\"stMain\"]'); if (m) m.scrollTop = 0; }")
    box = small.locator(MAP_IFRAME).last.bounding_box()
    assert box is not None and box["y"] < HEIGHT / 2, box
    seen = min(box["y"] + box["height"], HEIGHT) - box["y"]          # the part of the map in the window
    small.mouse.click(box["x"] + box["width"] * 0.5, box["y"] + seen * 0.6)
    small.get_by_text("Clicked cell").wait_for()
    _idle(small)
    small.evaluate("() => { const m = document.querySelector('[data-testid=\"stMain\"]'); if (m) m.scrollTop = 0; }")
    small.wait_for_timeout(200)
    assert _in_view(small, small.get_by_text("Clicked cell", exact=True).first)
    assert _in_view(small, small.get_by_text("count's epsilon", exact=False).first)
    assert _in_view(small, small.get_by_text("estimated count", exact=False).first)


def test_the_basemap_switched_on_offline_removes_itself_and_says_so_once(small):
    small.get_by_text("Basemap (OpenStreetMap)", exact=True).click()
    _idle(small)
    frame = _map_frame(small)
    frame.locator(".psdviz-basemap-note").first.wait_for()
    assert "did not load" in frame.locator(".psdviz-basemap-note").inner_text()
    assert frame.locator(".psdviz-basemap-note").count() == 1
    live = next(f for f in reversed(small.frames) if f.locator(".psdviz-basemap-note").count())
    live.wait_for_function("() => document.querySelectorAll('img.leaflet-tile').length === 0")
    assert "OpenStreetMap" not in frame.locator(".leaflet-control-attribution").inner_text()
