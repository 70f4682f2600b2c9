"""The Teach page in a real browser, offline: two releases on linked maps (pan one, the other follows),
one rectangle answered by both beside the truth, "draw the noise again", and the owner's
private-minus-true map labelled NOT private."""
from __future__ import annotations

import pytest
from test_app_browser import ARTIFACTS, MAP_IFRAME, server  # noqa: F401
from test_app_browser_release import _wait_idle, pg  # noqa: F401

pytestmark = pytest.mark.browser

CENTRES = "() => [map_div.getCenter(), map_div2.getCenter(), map_div.getZoom(), map_div2.getZoom()]"
SAME_VIEW = """() => { const a = map_div.getCenter(), b = map_div2.getCenter();
    return Math.abs(a.lng - b.lng) < 1e-6 && Math.abs(a.lat - b.lat) < 1e-6 && map_div.getZoom() === map_div2.getZoom()
        ? [a.lng, a.lat] : null; }"""


def _maps(pg):  # noqa: F811
    return next(f for f in reversed(pg.frames) if f.locator("#map_div2").count())


def test_the_linked_maps_move_together_and_answer_one_rectangle(pg, server):  # noqa: F811
    pg.goto(f"{server}/teach")
    pg.frame_locator(MAP_IFRAME).last.locator("canvas.leaflet-zoom-animated").first.wait_for()
    _wait_idle(pg)
    maps = _maps(pg)
    maps.locator("#map_div2 canvas").first.wait_for()                        # both maps drawn, with outlines
    maps.locator(".leaflet-outlines-pane path").nth(20).wait_for(state="attached")
    papers = maps.evaluate("() => [map_div, map_div2].map(m => getComputedStyle(m.getContainer()).backgroundColor)")
    assert papers == ["rgb(255, 255, 255)"] * 2, papers      # the page's white, not Leaflet's grey (221, 221, 221)
    before = maps.evaluate(CENTRES)
    box = pg.locator(MAP_IFRAME).last.bounding_box()
    x, y = box["x"] + box["width"] * 0.25, box["y"] + box["height"] * 0.5   # the middle of the left map
    pg.mouse.move(x, y)
    pg.mouse.down()
    pg.mouse.move(x + 120, y + 60, steps=8)
    pg.mouse.up()
    pg.wait_for_timeout(1000)                    # the drag's inertia has ended
    same = maps.wait_for_function(SAME_VIEW).json_value()   # the same centre and zoom on both maps, read at once
    assert abs(same[0] - before[0]["lng"]) > 1          # the left map moved, and the right one with it
    maps.evaluate("() => { map_div2.setZoom(map_div2.getZoom() + 1, {animate: false}); }")   # ... and the other way
    maps.wait_for_function("() => map_div.getZoom() === map_div2.getZoom()")
    pg.mouse.move(x, box["y"] - 40)                                    # off the map: no tooltip in the picture
    maps.locator(".leaflet-tooltip").first.wait_for(state="detached")
    pg.screenshot(path=str(ARTIFACTS / "09_teach.png"), full_page=True)
    # one rectangle, drawn on the left map, answered by both releases beside the truth
    pg.frame_locator(MAP_IFRAME).last.locator("a.leaflet-draw-draw-rectangle").click()
    pg.mouse.move(x - 40, y - 40)
    pg.mouse.down()
    pg.mouse.move(x + 10, y + 10, steps=5)
    pg.mouse.move(x + 40, y + 30, steps=5)
    pg.mouse.up()
    pg.get_by_text("True count (NOT private", exact=False).wait_for()
    _wait_idle(pg)
    pg.locator("[data-testid='stDataFrame']").first.wait_for()   # the answers table (a rerun may redraw it)
    pg.get_by_role("button", name="Draw the noise again").click()
    pg.get_by_text("fresh releases: their answers spread", exact=False).wait_for(timeout=120_000)
    _wait_idle(pg)
    pg.get_by_text("Show the left release's errors", exact=False).click()
    pg.get_by_text("NOT PRIVATE: this map compares", exact=False).wait_for()
    _wait_idle(pg)
    assert pg.get_by_text("within one standard error of their true count", exact=False).count() == 1
    pg.screenshot(path=str(ARTIFACTS / "09_teach_answers.png"), full_page=True)
