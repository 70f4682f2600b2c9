"""A 500,000-cell release stays usable in a real browser: on "Open a release" it is drawn as one raster
image, pans, and answers a click on a cell and a drawn rectangle. Timings are printed, never asserted
(benchmarks/bench_app.py measures them)."""
from __future__ import annotations

import time

import numpy as np
import pytest
from test_app_browser import ARTIFACTS, MAP_IFRAME, _drag, server  # noqa: F401
from test_app_browser_release import _wait_idle, pg  # noqa: F401

import psdviz as pv

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def big_file(tmp_path_factory):
    rng = np.random.default_rng(6)
    xy = np.column_stack([rng.uniform(-180, 180, 1_000_000), rng.uniform(-85, 85, 1_000_000)])
    rel = pv.build(xy, pv.Domain.world(), method="ug", epsilon=1.0, seed=6, grid_size=708)
    assert rel.tree.is_leaf.sum() == 708 * 708
    return rel.save(tmp_path_factory.mktemp("big") / "big.parquet", allow_seeded=True)


def test_a_500k_cell_release_opens_pans_and_answers(pg, server, big_file):  # noqa: F811
    pg.goto(f"{server}/release")
    pg.get_by_text("Upload a release file").wait_for()
    t0 = time.time()
    pg.locator("[data-testid='stFileUploaderDropzoneInput']").set_input_files(str(big_file))
    frame = pg.frame_locator(MAP_IFRAME).last
    frame.locator("img.leaflet-image-layer").first.wait_for()
    shown = time.time() - t0
    _wait_idle(pg)
    assert pg.get_by_text("501,264 cells", exact=False).count() >= 1
    box = pg.locator(MAP_IFRAME).last.bounding_box()
    x, y = box["x"] + box["width"] * 0.5, box["y"] + box["height"] * 0.5
    pg.mouse.move(x, y)
    pg.mouse.down()
    pg.mouse.move(x + 80, y + 30, steps=6)     # pan: the image moves with the map, no rerun
    pg.mouse.up()
    assert frame.locator("img.leaflet-image-layer").count() == 1
    t1 = time.time()
    pg.mouse.click(x + 20, y + 20)
    pg.get_by_text("Clicked cell").wait_for()
    clicked = time.time() - t1
    _wait_idle(pg)
    assert pg.get_by_text("count's epsilon", exact=False).count() >= 1
    frame.locator("a.leaflet-draw-draw-rectangle").click()
    _drag(pg, (0.30, 0.30), (0.45, 0.45))
    pg.get_by_text("Estimated count", exact=True).wait_for()
    _wait_idle(pg)
    pg.screenshot(path=str(ARTIFACTS / "07_big_release.png"), full_page=True)
    print(f"\n500k-cell release: shown {shown:.2f} s after choosing the file, a click's details {clicked:.2f} s")
