"""Empty land is not painted as data, read from the drawn map in a real browser.

The US zip codes (vega-datasets, no test was tuned on them; ``bash .ci/fetch_test_data``) uploaded on a
world domain, seeded, for auto, the kd-tree, the quadtree and PrivTree at the app's default epsilon: the
map iframe is captured as a PNG, each pixel is located in longitude/latitude with Leaflet's own
projection, and its colour is matched to the cells' palette blended over the map's background. Of the
pixels whose half-degree cell holds no point, at least 90 % are drawn pale; of the pixels in the
half-degree cells that hold 99 % of the points, at least 90 % are not. The kd-tree opens a few levels
above its leaves, where strips holding a few islands span the ocean: their finer parts that the release
tells apart from them and cannot tell from empty are drawn pale (docs/decisions/honest-colours.md)."""
from __future__ import annotations

import io
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from playwright.sync_api import expect
from test_app_browser import ARTIFACTS, MAP_IFRAME, _map_frame, server  # noqa: F401
from test_app_browser_release import pg  # noqa: F401  (one 1400 x 1000 page per module)
from test_app_browser_uploads import UPLOADER, _idle, _upload, choose_bounds

from psdviz.ui.map_layers import PALETTE

pytestmark = pytest.mark.browser
ZIPCODES = Path(__file__).resolve().parents[2] / ".cache" / "vega-datasets" / "zipcodes.csv"
METHODS = {"auto": "auto (recommended)", "kdtree": "kdtree", "quadtree": "quadtree", "privtree": "privtree"}
OPACITY = 0.55            # the cells' fill opacity (map_layers.CellsLayer)
STEP = 3                  # sample every third pixel


def _rgb(h: str) -> np.ndarray:
    return np.array([int(h[i:i + 2], 16) for i in (1, 3, 5)], float)


LOCATE = """(step) => {
  const map = Object.values(window).find(v => v && v instanceof L.Map);
  const box = map.getContainer().getBoundingClientRect();
  const size = map.getSize();
  const xs = [], ys = [], lon = [], lat = [];
  for (let y = 0; y < size.y; y += step) for (let x = 0; x < size.x; x += step) {
    const ll = map.containerPointToLatLng([x + 0.5, y + 0.5]);
    xs.push(Math.round(box.left + x)); ys.push(Math.round(box.top + y)); lon.push(ll.lng); lat.push(ll.lat);
  }
  return {xs, ys, lon, lat, bg: getComputedStyle(map.getContainer()).backgroundColor};
}"""


def _pixels(page, name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(lon, lat, palette index or -1 where no cell colour, RGB) of every sampled pixel of the map."""
    from PIL import Image
    frame = next(f for f in reversed(page.frames) if f.locator("canvas.leaflet-zoom-animated, "
                                                                 "img.leaflet-image-layer").count())
    loc = frame.evaluate(LOCATE, STEP)
    shot = page.locator(MAP_IFRAME).last.screenshot()
    (ARTIFACTS / f"10_pale_{name}.png").write_bytes(shot)
    img = np.asarray(Image.open(io.BytesIO(shot)).convert("RGB"), float)
    xs, ys = np.asarray(loc["xs"]), np.asarray(loc["ys"])
    ok = (xs >= 2) & (ys >= 2) & (xs < img.shape[1] - 2) & (ys < img.shape[0] - 2)
    xs, ys = xs[ok], ys[ok]
    bg = np.array([float(v) for v in re.findall(r"[\d.]+", loc["bg"])[:3]])
    blended = np.array([OPACITY * _rgb(c) + (1 - OPACITY) * bg for c in PALETTE])
    # each sample: the palette colour most of its 5 x 5 neighbourhood matches (cell borders are thin lines)
    d = np.arange(-2, 3)
    win = img[ys[:, None, None] + d[None, :, None], xs[:, None, None] + d[None, None, :]].reshape(xs.size, 25, 3)
    dist = np.linalg.norm(win[:, :, None, :] - blended[None, None, :, :], axis=3)
    cls = np.where(dist.min(axis=2) <= 12, dist.argmin(axis=2), -1)
    votes = np.stack([(cls == k).sum(axis=1) for k in range(len(PALETTE))], axis=1)
    idx = np.where(votes.max(axis=1) > 0, votes.argmax(axis=1), -1)
    return np.asarray(loc["lon"])[ok], np.asarray(loc["lat"])[ok], idx, img[ys, xs]


def _truth_cells(pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Half-degree cells: (holds no point, among the fullest cells holding 99 % of the points)."""
    cnt, _, _ = np.histogram2d(pts[:, 0], pts[:, 1], bins=[720, 360], range=[[-180, 180], [-90, 90]])
    order = np.sort(cnt.ravel())[::-1]
    k = np.searchsorted(np.cumsum(order), 0.99 * cnt.sum())
    return cnt == 0, cnt >= max(order[k], 1)


def _select(page, label: str) -> None:
    page.locator("[data-testid='stSelectbox']", has_text=re.compile("^Method")).click()
    page.keyboard.type(label)                        # the list is virtual: filter it to the one option
    page.get_by_role("option", name=label, exact=True).click()
    _idle(page)


@pytest.mark.skipif(not ZIPCODES.is_file(), reason="vega-datasets not fetched (bash .ci/fetch_test_data)")
def test_points_in_one_country_leave_the_rest_of_the_world_pale(pg, server):  # noqa: F811
    pts = pd.read_csv(ZIPCODES)[["longitude", "latitude"]].dropna().to_numpy(float)
    empty, dense = _truth_cells(pts)
    pg.goto(server)
    pg.get_by_text("upload a file", exact=True).first.click()
    pg.locator(UPLOADER).first.wait_for(state="attached")
    _upload(pg, ZIPCODES)
    choose_bounds(pg, "the world")                               # the rest of the world in the domain
    pg.get_by_text("PRIVATE release").first.wait_for()
    pg.get_by_text("seed", exact=True).first.click()             # reproducible: the figures are the same each run
    _idle(pg)
    pg.get_by_text("Country outlines", exact=True).first.click()   # outlines off: only cells are drawn
    _idle(pg)
    legend = pg.locator("div", has_text=re.compile(r"^\s*not distinguishable from zero")).last
    expect(legend.locator("span").first).to_have_css(       # retried: a rerun may still be replacing the legend
        "background-color", "rgb({}, {}, {})".format(*_rgb(PALETTE[0]).astype(int)))   # the pale swatch leads
    figures = {}
    for method, label in METHODS.items():
        if method != "auto":
            _select(pg, label)
        pg.locator("code", has_text=method).first.wait_for()
        expect(pg.locator(MAP_IFRAME)).to_have_count(1, timeout=60_000)   # the old map goes when the rerun ends
        _map_frame(pg).locator("canvas.leaflet-zoom-animated, img.leaflet-image-layer").first.wait_for()
        pg.wait_for_timeout(1500)                                         # the cells drawn
        lon, lat, idx, _ = _pixels(pg, method)
        inside = (idx >= 0) & (np.abs(lat) < 85) & (np.abs(lon) < 180)
        i = np.clip(((lon + 180) * 2).astype(int), 0, 719)
        j = np.clip(((lat + 90) * 2).astype(int), 0, 359)
        e, d = empty[i, j] & inside, dense[i, j] & inside
        figures[method] = ((idx[e] == 0).mean(), (idx[d] > 0).mean(), int(e.sum()), int(d.sum()))
    print(figures)
    for method, (empty_pale, dense_drawn, n_empty, n_dense) in figures.items():
        assert n_empty > 1000 and n_dense > 100, (method, figures)
        assert empty_pale >= 0.9, (method, figures)
        assert dense_drawn >= 0.9, (method, figures)
