"""Inputs survive navigation in a real browser, after the map's own fragment has run: move epsilon, draw
a rectangle (a run of the map fragment alone), open the Regions page and come back through the page
links: the same epsilon and the same release (its line of cells and nodes) and answer."""
from __future__ import annotations

import pytest
from test_app_browser import ARTIFACTS, MAP_IFRAME, _drag, _map_frame, server  # noqa: F401
from test_app_browser_release import pg  # noqa: F401  (one 1400 x 1000 page per module)
from test_app_browser_uploads import _idle

pytestmark = pytest.mark.browser
RELEASE_LINE = "[data-testid='stMarkdownContainer']:has-text('PRIVATE release')"


def _epsilon(page):
    return page.locator("[data-testid='stSlider']", has_text="epsilon (privacy budget)").get_by_role("slider")


def _map_drawn(page):
    _map_frame(page).locator("canvas.leaflet-zoom-animated, img.leaflet-image-layer").first.wait_for(timeout=120_000)
    _idle(page)


def _epsilon_one_and_a_rectangle(page):
    """Epsilon 0.5 -> 1 with the keyboard, then a rectangle drawn on the map and answered."""
    _epsilon(page).press("ArrowRight")
    _idle(page)
    _map_drawn(page)
    _map_frame(page).locator("a.leaflet-draw-draw-rectangle").click()
    _drag(page, (0.40, 0.30), (0.55, 0.45))
    page.get_by_text("Query #").first.wait_for(timeout=120_000)
    _idle(page)


def test_epsilon_and_the_release_survive_a_drawn_rectangle_and_another_page(pg, server):  # noqa: F811
    pg.goto(server)
    _map_drawn(pg)
    _epsilon_one_and_a_rectangle(pg)
    line = pg.locator(RELEASE_LINE).first.inner_text()
    answer = pg.locator("[data-testid='stMetric']").first.inner_text()
    assert "epsilon = 1 " in line
    pg.get_by_role("link", name="Regions").click()
    pg.frame_locator("iframe").last.locator("path.leaflet-interactive").first.wait_for(timeout=120_000)
    _idle(pg)
    pg.get_by_role("link", name="Map: build, see, query").click()
    _map_drawn(pg)
    assert _epsilon(pg).get_attribute("aria-valuetext") == "1.0"
    assert pg.locator(RELEASE_LINE).first.inner_text() == line
    assert pg.locator("[data-testid='stMetric']").first.inner_text() == answer


def test_a_reload_opens_the_same_view_and_the_map_and_its_answer_fill_the_first_screen_at_1280_by_800(pg, server):  # noqa: F811
    """Set a view by hand (method, epsilon, a drawn rectangle) at 1280 x 800, reload: the same method, epsilon
    and rectangle (the address holds them), and the map with the answer beside it in the first screen."""
    import re
    page = pg.context.browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    page.set_default_timeout(120_000)
    page.goto(server)
    _map_drawn(page)
    page.locator("[data-testid='stSelectbox']", has_text=re.compile("^Method")).click()
    page.keyboard.type("kdtree")
    page.get_by_role("option", name="kdtree", exact=True).click()
    page.locator(RELEASE_LINE, has_text="kdtree").first.wait_for()
    _map_drawn(page)
    _epsilon_one_and_a_rectangle(page)
    asked = page.get_by_text(re.compile(r"^Query #")).first.inner_text()
    rect = re.search(r"x \[[^\]]+\], y \[[^\]]+\]", asked)
    assert rect is not None and "rect=" in page.url and "method=kdtree" in page.url and "epsilon=1" in page.url
    page.reload()
    _map_drawn(page)
    line = page.locator(RELEASE_LINE).first.inner_text()
    assert "kdtree" in line and "epsilon = 1 " in line
    assert _epsilon(page).get_attribute("aria-valuetext") == "1.0"
    page.get_by_text("Query #").first.wait_for()
    assert rect.group(0) in page.get_by_text(re.compile(r"^Query #")).first.inner_text()
    page.evaluate("() => { const m = document.querySelector('[data-testid=\"stMain\"]'); if (m) m.scrollTop = 0; }")
    page.wait_for_timeout(200)
    box = page.locator(MAP_IFRAME).last.bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + 0.6 * box["height"] <= 800, box   # most of the map
    for text in ("Private answer", "95 % interval"):
        b = page.get_by_text(text, exact=True).first.bounding_box()
        assert b is not None and b["y"] >= 0 and b["y"] + b["height"] <= 800, (text, b)
        value = page.locator("[data-testid='stMetric']", has_text=text).first.locator("[data-testid='stMetricValue']")
        cut = value.evaluate("e => [e, ...e.querySelectorAll('*')].some(n => n.scrollWidth > n.clientWidth + 1)")
        assert not cut, (text, value.inner_text())                  # the whole number, never "30,..."
    page.screenshot(path=str(ARTIFACTS / "01_map_1280.png"))
    page.context.close()
