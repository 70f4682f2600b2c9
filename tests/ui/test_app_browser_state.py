"""Inputs survive navigation in a real browser, after the map's own fragment has run: move epsilon, draw
a rectangle (a run of the map fragment alone), open the Regions page and come back through the page
links: the same epsilon and the same release (its line of cells and nodes) and answer."""
from __future__ import annotations

import pytest
from test_app_browser import MAP_IFRAME, _drag, _map_frame, server  # noqa: F401
from test_app_browser_release import pg  # noqa: F401  (one 1400 x 1000 page per module)
from test_app_browser_uploads import _idle

pytestmark = pytest.mark.browser
RELEASE_LINE = "[data-testid='stMarkdownContainer']:has-text('PRIVATE release')"


def _epsilon(page):
    return page.locator("[data-testid='stSlider']", has_text="epsilon (privacy budget)").get_by_role("slider")


def _map_drawn(page):
    _map_frame(page).locator("canvas.leaflet-zoom-animated, img.leaflet-image-layer").first.wait_for(timeout=120_000)
    _idle(page)


def test_epsilon_and_the_release_survive_a_drawn_rectangle_and_another_page(pg, server):  # noqa: F811
    pg.goto(server)
    _map_drawn(pg)
    _epsilon(pg).press("ArrowRight")                   # 0.5 -> 1
    _idle(pg)
    _map_drawn(pg)
    _map_frame(pg).locator("a.leaflet-draw-draw-rectangle").click()
    _drag(pg, (0.40, 0.30), (0.55, 0.45))
    pg.get_by_text("Query #").first.wait_for(timeout=120_000)
    _idle(pg)
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
