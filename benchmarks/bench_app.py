"""App speed in headless chromium: first paint (cold and warm server), draw-to-answer, a 500,000-cell
release on "Open a release" (shown after choosing the file, a click's details), the Regions page's US
counties and the spatial release planned for them; and the bytes of the map the page sends as it opens.

Starts `streamlit run app.py` on 127.0.0.1, drives Debian's chromium with Playwright and prints the
figures, median of 5 by default (targets: first paint <= 1.5 s warm and <= 3 s cold, rectangle to answer
<= 0.3 s, Regions page to painted counties <= 2 s warm, the planned release <= 5 s). The
default view is the GeoNames sample (144,563 points) with method "auto". "Cold" is the first visitor
after the server reports healthy; the server imports the pages while it starts (app.py's st.App
start-up hook), so the start-up time is printed too. The figures are written to docs/reproduction/app_speed.md
(the one place they live). Usage: python benchmarks/bench_app.py [repeats] [--print]  (--print: do not write)
"""
from __future__ import annotations

import os
import platform
import re
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from reproduction import publish_section  # noqa: E402

OUT = ROOT / "docs" / "reproduction" / "app_speed.md"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]
TITLE: list[float] = []  # time until the page title shows (Streamlit's own boot)
STARTUP: list[float] = []  # server start until healthy (includes the pages' imports)
IFRAME = "iframe[title='streamlit_folium.st_folium']"


def start_server() -> tuple[subprocess.Popen, str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.address", "127.0.0.1",
                             "--server.port", str(port), "--server.headless", "true"], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    t0 = time.perf_counter()
    for _ in range(2400):
        try:
            urllib.request.urlopen(f"{url}/_stcore/health", timeout=1)
            STARTUP.append(time.perf_counter() - t0)
            return proc, url
        except OSError:
            time.sleep(0.025)
    raise RuntimeError("server did not start")


def first_paint(browser, url: str) -> tuple[float, object]:
    page = browser.new_page(viewport={"width": 1500, "height": 1100})
    t0 = time.perf_counter()
    page.goto(url)
    page.get_by_text("psdviz: private maps, built, seen and queried").wait_for(timeout=120_000)
    TITLE.append(time.perf_counter() - t0)
    page.frame_locator(IFRAME).last.locator("canvas.leaflet-zoom-animated").first.wait_for(timeout=120_000)
    return time.perf_counter() - t0, page


def idle(page, patience: int = 120_000) -> None:
    page.wait_for_timeout(300)
    page.locator("[data-testid='stStatusWidget']").wait_for(state="detached", timeout=patience)


WATCH_RUNS = ("() => { const app = document.querySelector('[data-test-script-state]'); window.__runs = 0; "
              "new MutationObserver(() => { if (app.getAttribute('data-test-script-state') === 'running') "
              "window.__runs += 1; }).observe(app, {attributes: true}); }")


def rerun_done(page, act, patience: int = 120_000) -> None:
    """Do ``act`` and wait until the script run it starts has ended (Streamlit's own run state on the app's
    root, watched from before the act: a run too short for the status widget still counts)."""
    page.evaluate(WATCH_RUNS)
    act()
    page.wait_for_function("() => window.__runs > 0", timeout=patience)
    page.wait_for_function("() => document.querySelector('[data-test-script-state]')"
                           ".getAttribute('data-test-script-state') === 'notRunning'", timeout=patience)


def query_number(page) -> int:
    """The number of the last answered query on the map page ("Query #n on ..."; 0 before the first)."""
    caption = page.locator("[data-testid='stCaptionContainer']", has_text="Query #")
    return caption.count() and int(caption.last.inner_text().split("#")[1].split(" ")[0])


def map_box(page, patience: int) -> dict:
    """The map's box on the page, waiting while the map is being replaced (its frame then has none)."""
    end = time.perf_counter() + patience / 1000
    while (box := page.locator(IFRAME).last.bounding_box()) is None:
        if time.perf_counter() > end:
            raise PlaywrightTimeout(f"the map was not laid out within {patience} ms")
        page.wait_for_timeout(100)
    return box


def draw_to_answer(page, k: int, patience: int = 60_000) -> float:
    """Draw a rectangle; time from mouse-up until the answer for *this* rectangle is shown (waits up to
    ``patience`` ms for the map to be laid out and for the answer)."""
    page.frame_locator(IFRAME).last.locator("a.leaflet-draw-draw-rectangle").click(timeout=patience)
    page.wait_for_function(f"() => {{ const f = [...document.querySelectorAll({IFRAME!r})].pop(); "
                           "return f && f.getBoundingClientRect().height > 0; }", timeout=patience)
    box = map_box(page, patience)
    fx, fy = 0.40 + 0.03 * k, 0.25 + 0.02 * k
    x0, y0 = box["x"] + box["width"] * fx, box["y"] + box["height"] * fy
    x1, y1 = x0 + box["width"] * 0.15, y0 + box["height"] * 0.15
    n_before = query_number(page)
    page.mouse.move(x0, y0)
    page.mouse.down()
    page.mouse.move(x1, y1, steps=6)
    t0 = time.perf_counter()
    page.mouse.up()
    page.get_by_text(f"Query #{n_before + 1} on").wait_for(timeout=patience)
    dt = time.perf_counter() - t0
    idle(page, patience)
    return dt


COUNTIES = ("() => [...document.querySelectorAll('iframe')].some(f => f.contentDocument && "
            "f.contentDocument.querySelectorAll('path.leaflet-interactive').length > 3000)")


def regions_counties(browser, url: str) -> tuple[float, float]:
    """Seconds from opening the Regions page to its states painted, and from choosing level 1 to the 3,230
    counties painted (a region release of the GeoNames sample, fresh noise, epsilon 1)."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    t0 = time.perf_counter()
    page.goto(f"{url}/regions")
    page.frame_locator(IFRAME).last.locator("path.leaflet-interactive").first.wait_for(timeout=120_000)
    states = time.perf_counter() - t0
    idle(page)
    t0 = time.perf_counter()
    page.get_by_text("level 1", exact=True).click()
    page.wait_for_function(COUNTIES, timeout=120_000)
    counties = time.perf_counter() - t0
    page.close()
    return states, counties


def planned_counties(browser, url: str, repeats: int) -> list[float]:
    """Seconds from choosing "Spatial release planned for these regions" to its counties painted, then from
    each "Draw new noise" (fresh randomness: a new build every time, nothing cached) to the new ones painted."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{url}/regions")
    page.frame_locator(IFRAME).last.locator("path.leaflet-interactive").first.wait_for(timeout=120_000)
    idle(page)
    page.get_by_text("level 1", exact=True).click()
    page.wait_for_function(COUNTIES, timeout=120_000)
    idle(page)
    out = []
    for k in range(repeats):
        t0 = time.perf_counter()
        if k == 0:
            rerun_done(page, page.get_by_text("Spatial release planned for these regions", exact=True).click)
        else:
            rerun_done(page, page.get_by_role("button", name="Draw new noise").click)
        idle(page)
        page.get_by_text(re.compile("Private counts for places from a spatial release")).wait_for(timeout=120_000)
        page.wait_for_function(COUNTIES, timeout=120_000)
        out.append(time.perf_counter() - t0)
    page.close()
    return out


def big_release(path: Path) -> Path:
    """A uniform grid of 708 x 708 = 501,264 cells over the world (1,000,000 uniform points, epsilon 1)."""
    import numpy as np

    import psdviz as pv
    rng = np.random.default_rng(6)
    xy = np.column_stack([rng.uniform(-180, 180, 1_000_000), rng.uniform(-85, 85, 1_000_000)])
    rel = pv.build(xy, pv.Domain.world(), method="ug", epsilon=1.0, seed=6, grid_size=708)
    return rel.save(path, allow_seeded=True)


def open_big(browser, url: str, path: Path) -> tuple[float, float]:
    """Seconds from choosing the file to the drawn raster, and from a click to the cell's details."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{url}/release")
    page.get_by_text("Upload a release file").wait_for(timeout=120_000)
    t0 = time.perf_counter()
    page.locator("[data-testid='stFileUploaderDropzoneInput']").set_input_files(str(path))
    page.frame_locator(IFRAME).last.locator("img.leaflet-image-layer").first.wait_for(timeout=120_000)
    shown = time.perf_counter() - t0
    idle(page)
    box = page.locator(IFRAME).last.bounding_box()
    t0 = time.perf_counter()
    page.mouse.click(box["x"] + box["width"] * 0.55, box["y"] + box["height"] * 0.55)
    page.get_by_text("Clicked cell").wait_for(timeout=120_000)
    clicked = time.perf_counter() - t0
    page.close()
    return shown, clicked


def map_message(seed: int = 1) -> tuple[int, int, int]:
    """Bytes of the map the page sends as it opens (the GeoNames sample, auto, epsilon 0.5, the world, outlines on;
    a seeded build, so the figure is the same on every machine): the component's script, of which the release's
    layers (the cells) and the public frame (the outlines, Leaflet's set-up)."""
    import psdviz as pv
    from psdviz.io.samples import sample_points
    from psdviz.present import view_depth
    from psdviz.ui.map_layers import MAX_SHAPES, release_view
    rel = pv.build(sample_points("geonames"), pv.Domain.world(), "auto", 0.5, seed=seed)
    view, _ = release_view(rel, view_depth(rel.tree, MAX_SHAPES))
    return len(view.script.encode()), len(view.layers.encode()), len(view.frame.script.encode())


def page_text(lines: list[str], repeats: int) -> str:
    """The generated page: the machine, its load, the date and the figures (the one place they live)."""
    load = " / ".join(f"{v:.2f}" for v in os.getloadavg())
    return (f"# The app's speed in a browser\n\n_Generated by `python benchmarks/bench_app.py {repeats}` on "
            f"{time.strftime('%Y-%m-%d')} ({platform.machine()}, {os.cpu_count()} cores, Python "
            f"{platform.python_version()}, Chromium at /usr/bin/chromium, headless); median of {repeats}; load "
            f"average at the end {load} (the machine may be shared: latencies under load are pessimistic). Targets "
            f"and what is out of reach: [docs/decisions/app-speed.md](../decisions/app-speed.md)._\n\n"
            + "\n".join(lines) + "\n")


def main(repeats: int = 5, write: bool = True) -> None:
    import tempfile
    tmp = tempfile.TemporaryDirectory()
    big = big_release(Path(tmp.name) / "big.parquet")
    proc, url = start_server()
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=ARGS)
            cold, page = first_paint(browser, url)
            idle(page)
            warm = []
            for _ in range(repeats):
                t, p = first_paint(browser, url)
                warm.append(t)
                p.close()
            draws = [draw_to_answer(page, k) for k in range(repeats)]
            bigs = [open_big(browser, url, big) for _ in range(repeats)]
            regions = [regions_counties(browser, url) for _ in range(repeats)]
            planned = planned_counties(browser, url, repeats)
            browser.close()
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
    script, cells, frame = map_message()
    lines = [
        f"- the map as the page opens (seeded build, bytes: the same on every machine): {script:,} bytes of script, "
        f"of which the cells {cells:,} and the public frame (outlines, Leaflet's set-up) {frame:,}",
        f"- server start until healthy (imports the pages): {STARTUP[0]:.2f} s",
        f"- first paint, cold server (first visitor: sample load, build): {cold:.2f} s",
        f"- first paint, warm server (new session, cached build): median {statistics.median(warm):.2f} s "
        f"(runs: {', '.join(f'{t:.2f}' for t in warm)}); of which Streamlit's page boot (title visible): median "
        f"{statistics.median(TITLE[1:]):.2f} s",
        f"- draw-to-answer at 4,096 cells: median {statistics.median(draws):.2f} s "
        f"(runs: {', '.join(f'{t:.2f}' for t in draws)})",
        f"- 500,000-cell release (UG 708 x 708) on 'Open a release': shown median "
        f"{statistics.median(b[0] for b in bigs):.2f} s after choosing the file, a click's details median "
        f"{statistics.median(b[1] for b in bigs):.2f} s (runs: {', '.join(f'{a:.2f}/{c:.2f}' for a, c in bigs)})",
        f"- Regions page (region release, fresh noise): states painted median "
        f"{statistics.median(r[0] for r in regions):.2f} s after opening it (the first, building: "
        f"{regions[0][0]:.2f} s), level 1's counties painted median "
        f"{statistics.median(r[1] for r in regions):.2f} s after the click "
        f"(runs: {', '.join(f'{a:.2f}/{c:.2f}' for a, c in regions)})",
        f"- spatial release planned for the counties (GeoNames sample, fresh noise: a new build each run): median "
        f"{statistics.median(planned):.2f} s from choosing it or drawing new noise to the counties painted "
        f"(runs: {', '.join(f'{t:.2f}' for t in planned)})",
    ]
    publish_section(page_text(lines, repeats), OUT, write=write)
    tmp.cleanup()


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--print"]
    main(int(args[0]) if args else 5, write="--print" not in sys.argv[1:])
