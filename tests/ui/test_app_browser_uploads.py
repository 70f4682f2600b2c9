"""Uploads through the real file uploader, in a real browser: good CSV, GeoJSON and Parquet
files on the Map page, and CSV / Parquet tables on the Count-of-counts and Sparse pages, are accepted;
bad files (empty, text in the coordinate columns, latitudes of 200, binary garbage named .csv,
polygons instead of points) each give an st.error saying what to fix, and the app keeps running
(the next upload on the same page works)."""
from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
from test_app_browser import ARTIFACTS, MAP_IFRAME, _drag, server  # noqa: F401
from test_app_browser_release import pg  # noqa: F401  (one 1400 x 1000 page per module)

pytestmark = pytest.mark.browser
UPLOADER = "[data-testid='stFileUploaderDropzoneInput']"
ERROR = "[data-testid='stAlertContentError']"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("uploads")
    rng = np.random.default_rng(0)
    pts = pd.DataFrame({"lon": rng.uniform(-10, 30, 400), "lat": rng.uniform(35, 60, 400),
                        "user": rng.integers(0, 50, 400), "kind": rng.choice(["a", "b", "c"], 400)})
    pts.to_csv(d / "points.csv", index=False)
    pts.to_parquet(d / "points.parquet")
    feats = [{"type": "Feature", "properties": {"id": i},
              "geometry": {"type": "Point", "coordinates": [float(x), float(y)]}}
             for i, (x, y) in enumerate(pts[["lon", "lat"]].to_numpy()[:200])]
    (d / "points.geojson").write_text(json.dumps({"type": "FeatureCollection", "features": feats}))
    (d / "empty.csv").write_text("")
    pd.DataFrame({"lon": ["north"] * 5, "lat": ["east"] * 5}).to_csv(d / "text.csv", index=False)
    pd.DataFrame({"lon": [10.0] * 5, "lat": [200.0] * 5}).to_csv(d / "lat200.csv", index=False)
    (d / "garbage.csv").write_bytes(bytes(rng.integers(0, 256, 4000, dtype=np.uint8)))
    poly = {"type": "FeatureCollection", "features": [{"type": "Feature", "properties": {}, "geometry": {
        "type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 0]]]}}]}
    (d / "polygons.geojson").write_text(json.dumps(poly))
    return d


def _idle(page):
    page.wait_for_timeout(400)
    page.locator("[data-testid='stStatusWidget']").wait_for(state="detached", timeout=120_000)


def _upload(page, path, wait: bool = True):
    _idle(page)                                   # the previous run has ended
    page.locator(UPLOADER).first.set_input_files(str(path))
    if wait:
        _idle(page)


def choose_bounds(page, choice: str = "the world", wait: bool = True):
    """An upload's public bounds, a step of its own in the main area: pick one and use it (``wait``: until the
    build it starts has ended)."""
    _idle(page)
    page.locator("[data-testid='stRadio']", has_text="Public bounds of the points").get_by_text(
        choice, exact=True).click()
    _idle(page)
    page.get_by_role("button", name="Use these bounds").click()
    if wait:
        _idle(page)


def _open(page, server, path, radio_label):  # noqa: F811
    page.goto(f"{server}/{path}")
    page.get_by_text(radio_label, exact=True).first.wait_for()
    page.get_by_text(radio_label, exact=True).first.click()
    page.locator(UPLOADER).first.wait_for(state="attached")
    _idle(page)


MAP_BAD = [("empty.csv", "is empty: upload a table with a header row"), ("text.csv", "no numeric values"),
           ("lat200.csv", "lies inside the domain"), ("garbage.csv", "is not UTF-8 text"),
           ("polygons.geojson", "no Point geometries")]


def test_map_page_uploads(pg, server, files):  # noqa: F811
    _open(pg, server, "", "upload a file")
    for name in ("points.csv", "points.geojson", "points.parquet"):
        _upload(pg, files / name)
        choose_bounds(pg)                               # each new file: its own public bounds
        pg.get_by_text("PRIVATE release").first.wait_for()
        assert pg.locator(ERROR).count() == 0, name
    pg.screenshot(path=str(ARTIFACTS / "07_upload_map.png"), full_page=True)
    for name, says in MAP_BAD:
        _upload(pg, files / name, wait=name == "lat200.csv")
        if name == "lat200.csv":                        # read well: the bounds, then the points' error
            choose_bounds(pg)
        err = pg.locator(ERROR, has_text=re.compile(re.escape(says), re.I)).first
        err.wait_for()                             # the error saying what to fix, for this file
        assert pg.get_by_text(name).count() >= 1
    _upload(pg, files / "points.csv")                   # still running: a good file works again
    choose_bounds(pg)
    pg.get_by_text("PRIVATE release").first.wait_for()


TABLE_PAGES = [("coco", "Upload a table of records", "Group columns", "08_upload_coco.png"),
               ("sparse", "Upload a table (two categorical columns)", "Row attribute", "09_upload_sparse.png")]


@pytest.mark.parametrize("path,radio,ready,shot", TABLE_PAGES, ids=["count-of-counts", "sparse"])
def test_table_page_uploads(pg, server, files, path, radio, ready, shot):  # noqa: F811
    _open(pg, server, path, radio)
    for name in ("points.csv", "points.parquet"):
        _upload(pg, files / name)
        pg.get_by_text(ready).first.wait_for()
        errors = [e.inner_text() for e in pg.locator(ERROR).all()]
        assert not [e for e in errors if "Data problem" in e], (name, errors)   # a good file: no red error
    for name in ("empty.csv", "garbage.csv"):
        _upload(pg, files / name, wait=False)
        says = "is empty" if name == "empty.csv" else "is not UTF-8 text"
        err = pg.locator(ERROR, has_text=re.compile("Data problem.*" + re.escape(says))).first
        err.wait_for()                          # this file's error (not the previous one's, still on screen)
        assert name in err.inner_text()
    _upload(pg, files / "points.csv")
    pg.get_by_text(ready).first.wait_for()
    pg.screenshot(path=str(ARTIFACTS / shot), full_page=True)


def _legend_classes(page) -> int:
    """The data classes in the legend (its first swatch is the pale one: not distinguishable from zero)."""
    legend = page.locator("div", has_text=re.compile(r"^\s*not distinguishable from zero")).last
    return legend.locator("span").count() - 1


def test_uniform_points_draw_near_one_colour_where_the_sample_shows_structure(pg, server, tmp_path):  # noqa: F811
    """Honest colours in the browser: 100,000 uniform points over the world (auto) draw a legend of at most
    two classes (noise is not painted as structure), while the GeoNames sample keeps at least four."""
    pg.goto(server)
    pg.get_by_text("estimated density", exact=False).first.wait_for()
    _idle(pg)
    sample = _legend_classes(pg)
    rng = np.random.default_rng(8)
    pd.DataFrame({"lon": rng.uniform(-180, 180, 100_000), "lat": rng.uniform(-90, 90, 100_000)}).to_csv(
        tmp_path / "uniform.csv", index=False)
    pg.get_by_text("upload a file", exact=True).first.click()
    pg.locator(UPLOADER).first.wait_for(state="attached")
    _upload(pg, tmp_path / "uniform.csv")
    choose_bounds(pg)
    pg.get_by_text("PRIVATE release").first.wait_for()
    _idle(pg)
    uniform = _legend_classes(pg)
    pg.screenshot(path=str(ARTIFACTS / "07_uniform_colours.png"), full_page=True)
    assert sample >= 4 and 1 <= uniform <= 2, (sample, uniform)


def test_a_rectangle_drawn_on_the_sample_is_not_answered_on_an_upload(pg, server, files):  # noqa: F811
    """A query belongs to the data it was asked of: after an upload the old rectangle is gone."""
    pg.goto(server)
    pg.frame_locator(MAP_IFRAME).last.locator("canvas.leaflet-zoom-animated").first.wait_for()
    _idle(pg)
    pg.frame_locator(MAP_IFRAME).last.locator("a.leaflet-draw-draw-rectangle").click()
    _drag(pg, (0.45, 0.30), (0.62, 0.45))
    pg.get_by_text("True answer (not private)").wait_for()
    _idle(pg)
    pg.get_by_text("upload a file", exact=True).first.click()
    pg.locator(UPLOADER).first.wait_for(state="attached")
    _upload(pg, files / "points.csv")
    choose_bounds(pg)
    pg.get_by_text("PRIVATE release").first.wait_for()
    _idle(pg)
    assert pg.get_by_text("Draw a rectangle on the map", exact=False).count() >= 1
    assert pg.locator("[data-testid='stMetric']", has_text="Private answer").count() == 0
