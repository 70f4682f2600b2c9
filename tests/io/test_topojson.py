"""The TopoJSON decoder (psdviz.io.topojson) on a hand-made topology: two squares sharing an edge,
quantized and delta-encoded, the shared arc used forwards by one square and reversed by the other."""
import json
from pathlib import Path

import numpy as np
import pytest

from psdviz.io import topojson as tj

# integer grid: left square x 0..2, right square x 2..4, y 0..2; shared edge (2,0)-(2,2)
ARCS_ABS = [[[2, 0], [2, 2]],                          # arc 0: the shared edge, upwards
            [[2, 2], [0, 2], [0, 0], [2, 0]],          # arc 1: rest of the left square
            [[2, 0], [4, 0], [4, 2], [2, 2]]]          # arc 2: rest of the right square


def _delta(arc):
    a = np.array(arc)
    return np.vstack([a[:1], np.diff(a, axis=0)]).tolist()


def _topology(quantized: bool) -> dict:
    t = {"type": "Topology",
         "arcs": [_delta(a) for a in ARCS_ABS] if quantized else ARCS_ABS,
         "objects": {"shapes": {"type": "GeometryCollection", "geometries": [
             {"type": "Polygon", "arcs": [[0, 1]], "id": "L", "properties": {"name": "left"}},
             {"type": "Polygon", "arcs": [[-1, 2]], "properties": {"name": "right"}},
             {"type": "MultiPolygon", "arcs": [[[0, 1]], [[~0, 2]]], "properties": {"name": "both"}},
             {"type": None, "properties": {"name": "nothing"}}]}}}
    if quantized:
        t["transform"] = {"scale": [0.5, 2.0], "translate": [10.0, 20.0]}
    return t


LEFT = [[2, 0], [2, 2], [0, 2], [0, 0], [2, 0]]
RIGHT = [[2, 2], [2, 0], [4, 0], [4, 2], [2, 2]]          # arc 0 reversed, then arc 2 without its first point


def _world(ring):
    return [[10 + 0.5 * x, 20 + 2.0 * y] for x, y in ring]


def test_quantized_delta_encoded_arcs_with_a_reversed_arc():
    feats = tj.features(_topology(True), "shapes")
    assert [f["properties"]["name"] for f in feats] == ["left", "right", "both", "nothing"]
    assert feats[0]["id"] == "L" and "id" not in feats[1]
    assert feats[0]["geometry"] == {"type": "Polygon", "coordinates": [_world(LEFT)]}
    assert feats[1]["geometry"] == {"type": "Polygon", "coordinates": [_world(RIGHT)]}
    assert feats[2]["geometry"] == {"type": "MultiPolygon", "coordinates": [[_world(LEFT)], [_world(RIGHT)]]}
    assert feats[3]["geometry"] is None
    assert feats[0]["geometry"]["coordinates"][0][0] == [11.0, 20.0]   # first position: translate + 2 * 0.5


def test_unquantized_arcs_are_used_as_they_are():
    feats = tj.features(_topology(False), "shapes")
    assert feats[0]["geometry"]["coordinates"] == [LEFT] and feats[1]["geometry"]["coordinates"] == [RIGHT]


def test_vectorised_arc_decoding_matches_a_slow_loop():
    rng = np.random.default_rng(3)
    arcs = [rng.integers(-50, 50, size=(int(n), 2)).tolist() for n in rng.integers(2, 9, size=30)]
    t = {"type": "Topology", "arcs": arcs, "transform": {"scale": [0.25, 3.0], "translate": [-7.0, 1.5]},
         "objects": {}}
    fast = tj.decode_arcs(t)
    for a, got in zip(arcs, fast):
        x = y = 0
        slow = []
        for dx, dy in a:
            x, y = x + dx, y + dy
            slow.append([-7.0 + 0.25 * x, 1.5 + 3.0 * y])
        assert np.allclose(got, slow)


def test_bad_input_names_the_parameter():
    with pytest.raises(ValueError, match="name"):
        tj.features(_topology(True), "missing")
    bad = _topology(True)
    bad["objects"]["shapes"]["geometries"][0]["arcs"] = [[0, 7]]
    with pytest.raises(ValueError, match="arc index 7"):
        tj.features(bad, "shapes")
    bad = _topology(True)
    bad["objects"]["shapes"]["geometries"][0]["type"] = "LineString"
    with pytest.raises(ValueError, match="LineString"):
        tj.features(bad, "shapes")
    with pytest.raises(ValueError, match="type"):
        tj.features({"type": "FeatureCollection"}, "shapes")


def test_contains_with_a_hole_against_a_slow_version():
    outer = [[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]]
    hole = [[3, 3], [3, 6], [6, 6], [6, 3], [3, 3]]
    geom = {"type": "MultiPolygon", "coordinates": [[outer, hole], [[[20, 0], [25, 5], [20, 10], [20, 0]]]]}

    def slow(x, y):
        inside = False
        for poly in geom["coordinates"]:
            for ring in poly:
                for (x0, y0), (x1, y1) in zip(ring, ring[1:]):
                    if (y0 > y) != (y1 > y) and x < x0 + (y - y0) * (x1 - x0) / (y1 - y0):
                        inside = not inside
        return inside

    rng = np.random.default_rng(0)
    for x, y in rng.uniform(-2, 27, size=(400, 2)):
        assert tj.contains(geom, x, y) == slow(x, y)
    assert tj.contains(geom, 1, 1) and not tj.contains(geom, 4, 4) and tj.contains(geom, 21, 5)
    assert not tj.contains(None, 1, 1)


def test_round_geometry_and_bbox():
    ring = [[0.001, 0.0], [0.002, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0], [0.001, 0.0]]
    tiny = [[5.0, 5.0], [5.001, 5.0], [5.001, 5.001], [5.0, 5.0]]
    g = tj.round_geometry({"type": "MultiPolygon", "coordinates": [[ring], [tiny]]}, 1)
    assert g == {"type": "Polygon", "coordinates": [[[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0], [0.0, 0.0]]]}
    assert tj.round_geometry({"type": "Polygon", "coordinates": [tiny]}, 1) is None
    assert tj.bbox({"type": "Polygon", "coordinates": [ring]}) == (0.0, 0.0, 1.0, 1.0)
    assert tj.bbox(None) is None


ATLAS = Path(__file__).resolve().parents[2] / "psdviz" / "ui" / "static"


@pytest.mark.skipif(not (ATLAS / "world-atlas/countries-110m.json").is_file(), reason="run .ci/fetch_assets")
def test_the_fetched_world_and_us_atlases_decode():
    world = tj.features(json.loads((ATLAS / "world-atlas/countries-110m.json").read_text()), "countries")
    assert len(world) == 177
    boxes = np.array([tj.bbox(f["geometry"]) for f in world])
    assert boxes[:, 0].min() >= -180 and boxes[:, 2].max() <= 180 and boxes[:, 1].min() >= -90
    states = tj.features(json.loads((ATLAS / "us-atlas/states-10m.json").read_text()), "states")
    fl = next(f for f in states if f["properties"]["name"] == "Florida")
    assert tj.contains(fl["geometry"], -81.4, 28.5)                 # Orlando
    assert not tj.contains(fl["geometry"], -86.8, 33.5)             # Birmingham
