"""The map as a PNG: a PNG of the cells in the map's colour classes, the legend's swatches under them and the
privacy line on top; the map page offers it."""
from __future__ import annotations

import io

import numpy as np
import pytest

import psdviz as pv
from psdviz.io.samples import sample_points

PIL = pytest.importorskip("PIL.Image")


@pytest.fixture(scope="module")
def drawn():
    from psdviz.ui.map_layers import make_map
    rel = pv.build(sample_points("geonames"), pv.Domain.world(), "quadtree", 0.5, seed=2)
    _, info = make_map(rel, rel.tree.height, None, False, False)
    return rel, info


def test_the_png_holds_the_cells_the_legend_and_the_privacy_line(drawn):
    from psdviz.present import PALETTE, legend_entries
    from psdviz.ui.map_page import release_line
    from psdviz.ui.map_png import BACKGROUND, MARGIN, cells_image, map_png
    rel, info = drawn
    line = release_line(rel, markdown=False)
    data = map_png(rel, info.nodes, info.colours, line, width=900)
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    img = np.asarray(PIL.open(io.BytesIO(data)).convert("RGB"))
    cells = cells_image(rel, info.nodes, info.colours, 900 - 2 * MARGIN)
    top = next(y for y in range(img.shape[0]) if (img[y, MARGIN:MARGIN + 50] == cells[0, :50]).all())
    np.testing.assert_array_equal(img[top:top + cells.shape[0], MARGIN:MARGIN + cells.shape[1]], cells)
    assert (img[:top] < 100).any()                                     # the privacy line's text above the map
    legend = img[top + cells.shape[0]:]
    rgb = {tuple(int(c[i:i + 2], 16) for i in (1, 3, 5)) for c, _ in legend_entries(info.colours)}
    swatches = {tuple(p) for p in legend[:, MARGIN + 2].reshape(-1, 3).tolist()}
    assert rgb | {tuple(int(PALETTE[0][i:i + 2], 16) for i in (1, 3, 5))} <= swatches   # every class's swatch
    shown = {tuple(p) for p in cells.reshape(-1, 3)[::97].tolist()} - {BACKGROUND}
    assert shown and shown <= rgb | {tuple(int(c[i:i + 2], 16) for i in (1, 3, 5)) for c in PALETTE}
    assert "PRIVATE release" in line and "epsilon = 0.5" in line


def test_the_map_page_offers_the_png():
    from streamlit.testing.v1 import AppTest
    at = AppTest.from_string("""
from psdviz.ui import map_page, mapview
mapview.show_map = lambda *a, **k: {}
map_page.render()
""", default_timeout=120)
    at.run()
    assert not at.exception
    assert "Map (PNG, with its legend and privacy line)" in [b.proto.label for b in at.get("download_button")]
