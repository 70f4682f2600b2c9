"""Real-browser tests of the map page: Playwright driving Debian's chromium against `streamlit run app.py`.

One server and one page for the module; the steps run in file order (map, draw, click, switch
method, export) like a person would, and each saves a screenshot under test-artifacts/. Timings
(first paint, draw-to-answer) are printed, never asserted.
"""
from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

import psdviz as pv

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]
MAP_IFRAME = "iframe[title='streamlit_folium.st_folium']"
# the labels among these elements whose text is cut (a text element narrower than its text; inputs aside)
CUT_LABELS = ("els => els.filter(e => [e, ...e.querySelectorAll('*')].some(n => n.tagName !== 'INPUT' && "
              "n.clientWidth > 0 && n.scrollWidth > n.clientWidth + 1)).map(e => e.innerText)")
TIMINGS: dict[str, float] = {}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server():
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: run `bash .ci/setup test`")
    port = _free_port()
    log = open(ARTIFACTS.mkdir(exist_ok=True) or ARTIFACTS / "streamlit.log", "w")  # noqa: SIM115 (the server writes it until teardown)
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.address", "127.0.0.1",
                             "--server.port", str(port), "--server.headless", "true",
                             "--browser.gatherUsageStats", "false"],
                            cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 60
        while True:
            try:
                urllib.request.urlopen(f"{url}/_stcore/health", timeout=1)
                break
            except OSError:
                if time.time() > deadline or proc.poll() is not None:
                    pytest.fail("streamlit did not become healthy; see test-artifacts/streamlit.log")
                time.sleep(0.25)
        yield url
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
        log.close()


@pytest.fixture(scope="module")
def page(server):
    from playwright.sync_api import sync_playwright
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        ctx = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
        pg = ctx.new_page()
        pg.set_default_timeout(90_000)
        pg.failed = []
        pg.on("requestfailed", lambda r: pg.failed.append(r.url))
        t0 = time.time()
        pg.goto(server)
        _map_frame(pg).locator("canvas.leaflet-zoom-animated").first.wait_for()
        TIMINGS["first paint, cold server (s)"] = time.time() - t0
        yield pg
        print("\nbrowser timings:", {k: round(v, 2) for k, v in TIMINGS.items()})
        browser.close()


def _map_frame(pg):
    """The map's iframe (the last one: during a rerun the old one may linger for a moment)."""
    return pg.frame_locator(MAP_IFRAME).last


def _shot(pg, name):
    pg.screenshot(path=str(ARTIFACTS / name), full_page=True)


def _wait_idle(pg):
    """Streamlit shows a 'running' status widget while the script runs."""
    pg.wait_for_timeout(300)
    pg.locator("[data-testid='stStatusWidget']").wait_for(state="detached", timeout=90_000)


def _canvas_ink(pg) -> int:
    """Number of non-transparent pixels on the map's canvas (cells are drawn there)."""
    frame = pg.frame(url=lambda u: "streamlit_folium" in u) or next(
        f for f in pg.frames if f.locator("canvas.leaflet-zoom-animated").count())
    return frame.evaluate("""() => {
        let ink = 0;
        for (const c of document.querySelectorAll('canvas.leaflet-zoom-animated')) {
            const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
            for (let i = 3; i < d.length; i += 4 * 7) if (d[i] > 0) ink++;
        }
        return ink; }""")


def test_map_is_not_blank_and_served_offline(page, server):
    _wait_idle(page)
    assert _canvas_ink(page) > 1000
    assert page.get_by_text("PRIVATE release").count() >= 1
    js = urllib.request.urlopen(f"{server}/app/static/leaflet/leaflet.js")
    assert "javascript" in js.headers.get("Content-Type", "")
    assert not [u for u in page.failed if "leaflet" in u], page.failed
    # a second session on the warm server (build cached): first paint as a returning visitor sees it
    other = page.context.new_page()
    t0 = time.time()
    other.goto(server)
    _map_frame(other).locator("canvas.leaflet-zoom-animated").first.wait_for()
    TIMINGS["first paint, warm server (s)"] = time.time() - t0
    other.close()
    _shot(page, "01_map.png")
    # the map is the main element (the query's answer sits in a narrow column beside it): at least 45 % of the
    # window's width, taller than wide on the world domain
    box = page.locator(MAP_IFRAME).last.bounding_box()
    assert box["width"] >= 0.45 * page.viewport_size["width"] and box["height"] > box["width"], box
    # offline by default: no tile basemap (switched on: tests/ui/test_app_browser_first_screen.py)
    assert "tile.openstreetmap.org" not in _map_frame(page).locator("html").inner_html()


def test_drawing_a_rectangle_shows_private_and_true_answers(page):
    frame = _map_frame(page)
    frame.locator("a.leaflet-draw-draw-rectangle").click()
    box = page.locator(MAP_IFRAME).last.bounding_box()
    x0, y0 = box["x"] + box["width"] * 0.45, box["y"] + box["height"] * 0.25
    x1, y1 = box["x"] + box["width"] * 0.62, box["y"] + box["height"] * 0.45
    page.mouse.move(x0, y0)
    page.mouse.down()
    page.mouse.move((x0 + x1) / 2, (y0 + y1) / 2, steps=5)
    page.mouse.move(x1, y1, steps=5)
    t0 = time.time()
    page.mouse.up()
    page.get_by_text("True answer (not private)").wait_for()
    TIMINGS["draw-to-answer (s)"] = time.time() - t0
    _wait_idle(page)
    for label in ("Private answer", "95 % interval", "Absolute error", "Relative error"):
        assert page.get_by_text(label, exact=True).count() >= 1
    truth = page.locator("[data-testid='stMetric']", has_text="True answer").locator("[data-testid='stMetricValue']")
    assert int(truth.inner_text().replace(",", "")) > 0
    # beside the map, in view without scrolling at 1400 x 1000: the answer, its error and interval, the truth
    page.evaluate("() => { const m = document.querySelector('[data-testid=\"stMain\"]'); if (m) m.scrollTop = 0; }")
    page.wait_for_timeout(200)
    assert page.get_by_text(re.compile("^95 % interval, noise and the cells the edges cut. In it: the noise's "
                                       "standard error")).count() == 1
    for text in ("Private answer", "95 % interval", "True answer (not private)"):
        box = page.get_by_text(text).first.bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= page.viewport_size["height"], text
    _shot(page, "02_query.png")
    # the toggles' labels are whole (not cut with an ellipsis) at 1400 px
    for label in ("True points (NOT private)", "Country outlines", "Basemap (OpenStreetMap)"):
        cut = page.get_by_text(label, exact=True).first.evaluate(
            "e => [e, e.parentElement, e.parentElement.parentElement].some(n => n.scrollWidth > n.clientWidth + 1)")
        assert not cut, label


def _drag(page, a, b):
    box = page.locator(MAP_IFRAME).last.bounding_box()
    page.mouse.move(box["x"] + box["width"] * a[0], box["y"] + box["height"] * a[1])
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] * b[0], box["y"] + box["height"] * b[1], steps=6)
    page.mouse.up()


def test_a_new_rectangle_replaces_the_drawn_one(page):
    """Leaflet.draw keeps every drawn shape; starting a new one clears the old (one query at a time)."""
    frame = _map_frame(page)
    frame.locator("a.leaflet-draw-draw-rectangle").click()
    _drag(page, (0.30, 0.30), (0.40, 0.40))
    _wait_idle(page)
    _map_frame(page).locator("a.leaflet-draw-draw-rectangle").click()
    _drag(page, (0.50, 0.30), (0.60, 0.45))
    _wait_idle(page)
    live = next(f for f in reversed(page.frames) if f.locator("canvas.leaflet-zoom-animated").count())
    drawn = live.evaluate("() => document.querySelector('.leaflet-container').drawnItems.getLayers().length")
    assert drawn == 1, drawn


def test_a_typed_rectangle_replaces_the_drawn_one(page):
    """One rectangle at a time: a rectangle typed in becomes the query, and the one drawn before leaves the
    map (only the kept outline of the answered rectangle stays)."""
    page.get_by_text("Type a query rectangle instead of drawing").click()
    for key, value in (("query x min", "-10"), ("query x max", "20"), ("query y min", "40"), ("query y max", "55")):
        box = page.get_by_label(key, exact=True)
        box.fill(value)
        box.press("Enter")
    page.get_by_role("button", name="Answer this rectangle").click()
    page.get_by_text(re.compile(r"x \[-10, 20\], y \[40, 55\]")).wait_for()
    _wait_idle(page)
    live = next(f for f in reversed(page.frames) if f.locator("canvas.leaflet-zoom-animated").count())
    live.wait_for_function("() => document.querySelector('.leaflet-container').drawnItems.getLayers().length === 0")
    assert live.evaluate("() => (window.feature_group || []).some(g => Object.keys(g._layers).length > 0)")
    page.evaluate("() => { const m = document.querySelector('[data-testid=\"stMain\"]'); if (m) m.scrollTop = 0; }")
    page.wait_for_timeout(200)                         # typing scrolled the page: the next tests click the map


def _point_on_an_outline(pg):
    """Client coordinates (inside the map's iframe) of a point ON a country outline, or None."""
    frame = next(f for f in pg.frames if f.locator(".leaflet-outlines-pane").count())
    return frame.evaluate("""() => {
        const box = document.querySelector('.leaflet-container').getBoundingClientRect();
        for (const p of document.querySelectorAll('.leaflet-outlines-pane path')) {
            const n = p.getTotalLength(), m = p.getScreenCTM();
            for (let k = 1; k < 20; k++) {
                const q = p.getPointAtLength(n * k / 20).matrixTransform(m);
                if (q.x > box.left + 80 && q.x < box.right - 80 && q.y > box.top + 80 && q.y < box.bottom - 80)
                    return [q.x, q.y];
            }
        }
        return null; }""")


def test_country_outlines_are_drawn_and_ignore_the_pointer(page):
    frame = _map_frame(page)
    assert frame.locator(".leaflet-outlines-pane path").count() > 20
    outline = frame.locator(".leaflet-outlines-pane path").first
    assert outline.evaluate("e => getComputedStyle(e).pointerEvents") == "none"


def test_clicking_a_cell_shows_its_details(page):
    box = page.locator(MAP_IFRAME).last.bounding_box()
    at = _point_on_an_outline(page)   # click right on a border: it must reach the cell below
    assert at is not None
    page.mouse.click(box["x"] + at[0], box["y"] + at[1])
    page.get_by_text("Clicked cell").wait_for()
    _wait_idle(page)
    assert page.get_by_text("count's epsilon", exact=False).count() >= 1
    _shot(page, "03_cell.png")


def test_switching_the_method_rebuilds(page):
    page.locator("[data-testid='stSelectbox']", has_text=re.compile("^Method")).click()
    page.keyboard.type("ug")                # the option list is virtual: filter it to the one option
    page.get_by_role("option", name="ug", exact=True).click()
    page.locator("code", has_text="ug").first.wait_for()
    _wait_idle(page)
    from playwright.sync_api import expect
    expect(page.locator(MAP_IFRAME)).to_have_count(1, timeout=30_000)   # the old map goes when the rerun ends
    _map_frame(page).locator("canvas.leaflet-zoom-animated, img.leaflet-image-layer").first.wait_for()
    assert page.get_by_text("True answer (not private)").count() == 1  # the stored query is re-answered
    # the remounted map still shows the kept query rectangle (streamlit-folium's feature group)
    frame = next(f for f in reversed(page.frames) if f.locator("canvas.leaflet-zoom-animated, "
                                                                  "img.leaflet-image-layer").count())
    frame.wait_for_function("() => (window.feature_group || []).some(g => Object.keys(g._layers).length > 0)")
    _shot(page, "04_method_ug.png")


def test_export_downloads(page):
    _wait_idle(page)                    # the rebuild for ug has ended (the buttons hold its release)
    page.locator("code", has_text="ug").first.wait_for()
    with page.expect_download() as dl:
        page.get_by_role("button", name="Cells only (GeoJSON", exact=False).click()
    path = ARTIFACTS / "release.geojson"
    dl.value.save_as(path)
    gj = json.loads(path.read_text())
    assert gj["type"] == "FeatureCollection" and len(gj["features"]) > 100
    assert gj["properties"]["method"] == "ug"
    with page.expect_download() as dl:
        page.get_by_role("button", name="Query comparisons (CSV)").click()
    csv = Path(dl.value.path()).read_text()
    assert csv.startswith("xmin,ymin,xmax,ymax,private_answer") and len(csv.splitlines()) >= 2
    with page.expect_download() as dl:
        page.get_by_role("button", name="Release file (GeoParquet", exact=False).click()
    rel = pv.load_release(dl.value.path())
    assert rel.method == "ug" and rel.privacy_unit == "one point" and rel.tree.is_leaf.sum() > 100
    _shot(page, "05_export.png")


def test_at_1024_by_768_the_map_starts_above_the_fold_and_no_toggle_label_is_cut(page, server):
    """A small laptop's window: the map's top is in view without scrolling, each toggle's whole label shows, and a
    drawn rectangle's answer and interval show whole in the column beside the map."""
    small = page.context.browser.new_context(viewport={"width": 1024, "height": 768}).new_page()
    small.goto(server)
    small.frame_locator(MAP_IFRAME).last.locator("canvas.leaflet-zoom-animated").first.wait_for(timeout=120_000)
    _wait_idle(small)
    box = small.locator(MAP_IFRAME).last.bounding_box()
    assert box is not None and box["y"] + 150 <= 768, box          # at least its top 150 px in view
    for label in ("True points (NOT private)", "Country outlines", "Basemap (OpenStreetMap)"):
        cut = small.get_by_text(label, exact=True).first.evaluate(
            "e => [e, e.parentElement, e.parentElement.parentElement].some(n => n.scrollWidth > n.clientWidth + 1)")
        assert not cut, label
    small.screenshot(path=str(ARTIFACTS / "01_map_1024.png"))
    # a rectangle's answer in the narrow column beside the map: every number whole, never "31,519 to 32,..."
    _map_frame(small).locator("a.leaflet-draw-draw-rectangle").click()
    _drag(small, (0.40, 0.20), (0.60, 0.35))
    small.get_by_text("True answer (not private)").wait_for(timeout=120_000)
    _wait_idle(small)
    for text in ("Private answer", "95 % interval", "True answer", "Absolute error", "Relative error"):
        metric = small.locator("[data-testid='stMetric']", has_text=text).first
        cut = metric.evaluate("e => [e, ...e.querySelectorAll('*')].some(n => n.scrollWidth > n.clientWidth + 1)")
        assert not cut, (text, metric.inner_text())                 # neither its label nor its value cut
    small.screenshot(path=str(ARTIFACTS / "02_query_1024.png"))
    buttons = small.locator("[data-testid='stDownloadButton'] button")
    cut = buttons.evaluate_all(CUT_LABELS)
    assert buttons.count() >= 5 and not cut, cut                 # every export's whole label ("... NOT private")
    small.context.close()
