"""Counts over time end to end on the public flights (vega-datasets: 3 million departures, January to June 2001):
the command line and a job file write releases over time from the flights' Parquet file, and in a real browser the
page shows the flights window by window (step and play), answers a rectangle box-selected on the map with its
series and the owner's true counts, builds the per-window releases of the teaching view, and opens the file the
command line wrote."""
from __future__ import annotations

import re
import subprocess
import sys

import pytest
from test_app_browser import ARTIFACTS, ROOT, server  # noqa: F401
from test_app_browser_release import _wait_idle, pg  # noqa: F401

import psdviz as pv
from psdviz import temporal

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not temporal.flights_available(), reason="run .ci/fetch_test_data (vega-datasets)")]


@pytest.fixture(scope="module")
def cli_release(tmp_path_factory):
    """The flights as a Parquet file, a weekly release written by psdviz build --time and a daily one by a job."""
    folder = tmp_path_factory.mktemp("flights")
    frame = temporal.flight_departures()
    frame[["lon", "lat", "time", "route"]].to_parquet(folder / "flights.parquet")
    cmd = [sys.executable, "-m", "psdviz.cli", "build", str(folder / "flights.parquet"), "--lon", "lon", "--lat",
           "lat", "--domain", "-125", "24", "-66", "50", "--time", "time", "--window", "1w", "--span", "2001-01-01",
           "2001-07-01", "--user", "route", "--max-points-per-window", "20", "--max-points-per-user", "400",
           "--epsilon", "1", "--out", str(folder / "weekly.json")]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    (folder / "job.yaml").write_text(
        "data: {path: flights.parquet, lon: lon, lat: lat, domain: [-125, 24, -66, 50]}\n"
        "releases:\n"
        "  - {kind: over-time, time: time, window: 1d, span: [2001-01-01, 2001-07-01], epsilon: 0.5, "
        "mechanism: tree, out: daily.json}\n")
    done = subprocess.run([sys.executable, "-m", "psdviz.cli", "run", str(folder / "job.yaml")], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    weekly, daily = pv.load_release(folder / "weekly.json"), pv.load_release(folder / "daily.json")
    assert weekly.windows == 26 and weekly.privacy_unit == "one user, at most 400 points"
    assert daily.windows == 181 and daily.mechanism == "tree"
    return folder / "weekly.json"


def _caption(pg, pattern: str) -> str:  # noqa: F811
    loc = pg.get_by_text(re.compile(pattern)).first
    loc.wait_for()
    return loc.inner_text()


def test_the_flights_over_time_in_a_browser(pg, server, cli_release):  # noqa: F811
    pg.goto(f"{server}/time")
    pg.locator("[data-testid='stPlotlyChart']").first.wait_for(timeout=180_000)
    _wait_idle(pg)
    assert "256 cells x 181 windows of 1 day" in _caption(pg, r"US flights.*cells x")
    pg.get_by_role("button", name="Step ▶").click()
    _wait_idle(pg)
    _caption(pg, r"^Window 2 of 181")
    pg.screenshot(path=str(ARTIFACTS / "20_time.png"), full_page=True)
    # box-select a rectangle on the map: its series and the caption follow
    before = _caption(pg, r"^Rectangle x")
    plot = pg.locator("[data-testid='stPlotlyChart']").first.locator(".nsewdrag").first
    box = plot.bounding_box()
    pg.mouse.move(box["x"] + box["width"] * 0.55, box["y"] + box["height"] * 0.25)
    pg.mouse.down()
    pg.mouse.move(box["x"] + box["width"] * 0.75, box["y"] + box["height"] * 0.45, steps=8)
    pg.mouse.up()
    pg.wait_for_function("(old) => [...document.querySelectorAll('p')].some(p => p.innerText.startsWith("
                         "'Rectangle x') && p.innerText !== old)", arg=before, timeout=120_000)
    _wait_idle(pg)
    # play advances the windows; pause stops
    pg.get_by_text("Play", exact=True).click()
    pg.wait_for_function("() => [...document.querySelectorAll('p')].some(p => /^Window ([4-9]|\\d\\d+) of 181/"
                         ".test(p.innerText))", timeout=60_000)
    pg.get_by_text("Play", exact=True).click()
    _wait_idle(pg)
    pg.get_by_text("Show the true counts", exact=False).click()
    pg.get_by_text("NOT PRIVATE: the dotted line is the true count", exact=False).wait_for()
    _wait_idle(pg)
    pg.get_by_text("one contributor over the whole span", exact=True).click()   # the teaching view's gap
    _wait_idle(pg)
    pg.get_by_role("button", name="Build the per-window releases too").click()
    _caption(pg, r"per-window releases' noise standard error is")
    _wait_idle(pg)
    pg.screenshot(path=str(ARTIFACTS / "20_time_series.png"), full_page=True)
    # the release the command line wrote, opened as a data consumer does
    pg.locator("[data-testid='stSelectbox']", has_text=re.compile("^Data")).click()
    pg.get_by_role("option", name=re.compile("Open a release over time")).click()
    pg.locator("[data-testid='stFileUploaderDropzoneInput']").set_input_files(str(cli_release))
    assert "26 windows of 1 week" in _caption(pg, r"the release file: .* cells x 26 windows")
    pg.locator("[data-testid='stPlotlyChart']").first.wait_for()
    _wait_idle(pg)
    assert pg.get_by_text("Show the true counts", exact=False).count() == 0       # no raw data behind a file
    pg.screenshot(path=str(ARTIFACTS / "20_time_file.png"), full_page=True)
