"""What the map page sends for a view of cells is small and says what the release says: the browser's decoding of
the compact tables (float32 shares of the domain, counts, uint16 codes) gives back every released corner exactly
and every count to the tenth the tooltip prints; one tooltip serves the whole group of cells."""
from __future__ import annotations

import base64
import json
import re

import numpy as np
import pytest

import psdviz as pv
from psdviz.io.samples import sample_points
from psdviz.present import view_depth
from psdviz.ui.map_layers import CELLS_JS, FLOAT32_COUNTS, MAX_SHAPES, _cells_js, _counts, _view, cell_table

TYPES = {"Float32Array": "<f4", "Float64Array": "<f8", "Uint16Array": "<u2"}


def _tables(js: str) -> dict[str, np.ndarray]:
    """The script's tables decoded as the browser's ``table(s, Type)`` does, by variable name."""
    found = re.findall(r'(\w+) = table\("([A-Za-z0-9+/=]*)", (\w+)\)', js)
    return {name: np.frombuffer(base64.b64decode(data), TYPES[kind]) for name, data, kind in found}


def _domain(js: str) -> np.ndarray:
    return np.array([float(v) for v in re.search(r"var d = \[([^\]]*)\]", js).group(1).split(",")])


def _corners(shares: np.ndarray, d: np.ndarray) -> np.ndarray:
    """The browser's ``box``: d[0] + share * d[2] (x) and d[1] + share * d[3] (y), in float64."""
    s = shares.astype(np.float64).reshape(-1, 4)
    return np.column_stack([d[0] + s[:, 0] * d[2], d[1] + s[:, 1] * d[3], d[0] + s[:, 2] * d[2],
                            d[1] + s[:, 3] * d[3]])


def _tenth(v: np.ndarray) -> np.ndarray:
    """The browser's ``tenth``: Math.round(v * 10) / 10 (halves up)."""
    return np.floor(v.astype(np.float64) * 10 + 0.5) / 10


@pytest.fixture(scope="module")
def world():
    rel = pv.build(sample_points("geonames"), pv.Domain.world(), "auto", 0.5, seed=1)
    nodes, colours = _view(rel, view_depth(rel.tree, MAX_SHAPES))
    return rel, nodes, colours


def test_the_browser_gets_back_every_released_corner_and_count(world):
    rel, nodes, colours = world
    js = _cells_js(rel, nodes, colours)
    t, d = _tables(js), _domain(js)
    rows, edges = cell_table(rel, nodes, colours)
    assert rel.grid.on_grid(rows[:, :4]).all()
    assert np.array_equal(_corners(t["shape"], d), rows[:, :4])            # exact: shares j / 2^bits in float32
    assert np.array_equal(_corners(t["edges"], d), edges)
    codes = t["codes"].reshape(-1, 3)
    assert np.array_equal(codes, rows[:, [4, 5, 8]])
    counts = t["counts"].reshape(-1, 2)
    assert t["counts"].dtype == np.dtype("<f4")
    released = rows[:, 6:8]
    assert np.array_equal(np.isnan(counts), np.isnan(released))
    seen = ~np.isnan(released)
    assert np.array_equal(_tenth(counts)[seen], released[seen])             # the tooltip's numbers, to a tenth
    assert np.array_equal(released[seen], np.round(released[seen], 1))


def test_counts_below_two_to_the_twenty_come_back_to_the_tenth_from_float32_and_larger_ones_go_as_float64():
    rng = np.random.default_rng(4)
    tenths = np.round(rng.uniform(-FLOAT32_COUNTS, FLOAT32_COUNTS, 400_000), 1)
    tenths[:4] = [FLOAT32_COUNTS - 0.1, -(FLOAT32_COUNTS - 0.1), -0.1, np.nan]
    rows = np.zeros((tenths.size // 2, 9))
    rows[:, 6:8] = tenths.reshape(-1, 2)
    data, kind = _counts(rows)
    back = np.frombuffer(base64.b64decode(json.loads(data)), TYPES[kind])
    assert kind == "Float32Array"
    assert np.array_equal(_tenth(back), tenths, equal_nan=True)
    rows[0, 7] = FLOAT32_COUNTS + 0.3                                   # float32 would lose this one's tenth
    data, kind = _counts(rows)
    assert kind == "Float64Array" and FLOAT32_COUNTS + 0.3 in np.frombuffer(base64.b64decode(json.loads(data)), "<f8")


def test_the_default_view_is_sent_in_at_most_32_bytes_a_cell_with_one_tooltip(world):
    """The GeoNames sample as the map opens: 72 bytes a cell (nine float64 columns) and one tooltip per cell
    before; now 30 bytes a cell and one tooltip for the group (base64 adds a third)."""
    rel, nodes, colours = world
    rows, edges = cell_table(rel, nodes, colours)
    js = _cells_js(rel, nodes, colours)
    assert len(js) <= 32 * 4 / 3 * rows.shape[0] + 16 * 4 / 3 * edges.shape[0] + 3000
    assert CELLS_JS.count("bindTooltip") == 1 and "g.bindTooltip(" in CELLS_JS
