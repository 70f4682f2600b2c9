"""Two visitors at once: two browser sessions on one server build at the same time (one from an uploaded
file, one from a bundled sample); both finish, and each sees its own data and release, never the other's."""
from __future__ import annotations

import numpy as np
import pytest
from test_app_browser import ARGS, CHROMIUM, MAP_IFRAME, server  # noqa: F401
from test_app_browser_uploads import UPLOADER, _idle, choose_bounds

pytestmark = pytest.mark.browser
DATA_CAPTION = "[data-testid='stCaptionContainer']:has-text(' rows read; ')"   # the data's own caption


def _session(browser, url):
    page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    page.set_default_timeout(180_000)
    page.goto(url)
    page.get_by_text("PRIVATE release").first.wait_for()
    _idle(page)
    return page


def _what_it_shows(page) -> tuple[str, str]:
    page.locator(MAP_IFRAME).last.wait_for()
    _idle(page)
    page.get_by_text("Data, parameters and public grid of this release").click()
    caption = page.locator(DATA_CAPTION).first
    caption.wait_for()
    return page.get_by_text("PRIVATE release").first.locator("..").inner_text(), caption.inner_text()


def test_two_sessions_building_at_once_each_see_their_own_data(server, tmp_path):  # noqa: F811
    from playwright.sync_api import sync_playwright
    rng = np.random.default_rng(5)
    pts = np.column_stack([rng.uniform(5, 15, 4000), rng.uniform(44, 52, 4000)])     # central Europe
    upload = tmp_path / "alpha_points.csv"
    upload.write_text("lon,lat\n" + "\n".join(f"{x:.5f},{y:.5f}" for x, y in pts))
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        a, b = _session(browser, server), _session(browser, server)
        a.get_by_text("upload a file", exact=True).first.click()
        a.locator(UPLOADER).first.wait_for(state="attached")
        _idle(a)
        a.locator(UPLOADER).first.set_input_files(str(upload))
        choose_bounds(a, wait=False)                                    # A's build starts ...
        b.get_by_text("sample: flight_airports", exact=True).first.click()   # ... and B's at the same time
        a.get_by_text("alpha_points.csv").first.wait_for()
        line_a, data_a = _what_it_shows(a)
        line_b, data_b = _what_it_shows(b)
        browser.close()
    assert "alpha_points.csv" in data_a and "flight_airports" not in data_a
    assert "flight_airports" in data_b and "alpha_points" not in data_b
    assert "4,000 rows read" in data_a
    assert line_a != line_b                                             # two releases, one per session
