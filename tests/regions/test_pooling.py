"""Pooling sparse regions in the region release: which regions stop, what a stopped region's two
counts cost and give, area shares below it, the per-path budget, the file, and the command line."""
from __future__ import annotations

import json
import math

import geopandas as gpd
import numpy as np
import pandas as pd
import pytest
from shapely.geometry import box

import psdviz as pv
from psdviz.cli import main
from psdviz.core.ledger import Ledger
from psdviz.core.noise import geometric_variance
from psdviz.core.rng import make_randomness
from psdviz.regions import Regions
from psdviz.regions import build as rb
from psdviz.regions.release import MEASURED, SHARED, SOURCES, STOPPED


def uneven() -> Regions:
    """A (empty in the tests) cut into a wide and a narrow child; B cut in halves."""
    gdf = gpd.GeoDataFrame({"id": ["A", "B", "A0", "A1", "B0", "B1"], "p": [None, None, "A", "A", "B", "B"]},
                           geometry=[box(0, 0, 1, 1), box(1, 0, 2, 1), box(0, 0, 0.75, 1), box(0.75, 0, 1, 1),
                                     box(1, 0, 1.5, 1), box(1.5, 0, 2, 1)], crs="EPSG:4326")
    return Regions.from_frame(gdf, id="id", parent="p")


def dense_b(n=2000, seed=0) -> np.ndarray:
    return np.random.default_rng(seed).uniform([1, 0], [2, 1], (n, 2))


def test_a_sparse_region_is_measured_twice_and_its_children_get_area_shares():
    rel = pv.build_regions(dense_b(), uneven(), epsilon=1.0, seed=3, resolution=10)
    assert rel.status.tolist() == [STOPPED, MEASURED, SHARED, SHARED, MEASURED, MEASURED]
    assert np.isnan(rel.noisy[2:4]).all() and np.isfinite(rel.noisy[[0, 1, 4, 5]]).all()
    v = float(geometric_variance(0.5))
    # A: two counts at 0.5 each, no measured child: its estimate is their mean, variance v / 2
    assert rel.standard_error[0] == pytest.approx(math.sqrt(v / 2))
    np.testing.assert_allclose(rel.least_squares[2:4], rel.least_squares[0] * np.array([0.75, 0.25]))
    np.testing.assert_allclose(rel.standard_error[2:4], rel.standard_error[0] * np.array([0.75, 0.25]))
    est = rel.estimate
    assert (est >= 0).all() and est[2] + est[3] == est[0] and est[4] + est[5] == est[1]
    c = rel.counts()
    assert c["source"].tolist() == [SOURCES[1], SOURCES[0], SOURCES[2], SOURCES[2], SOURCES[0], SOURCES[0]]
    assert any("2 descendants were not measured" in n for n in rel.notes)
    assert rel.params["pooling"] == "sparse"


def test_pooling_none_measures_every_region_and_a_bad_choice_is_named():
    rel = pv.build_regions(dense_b(), uneven(), epsilon=1.0, seed=3, resolution=10, pooling="none")
    assert (rel.status == MEASURED).all() and np.isfinite(rel.noisy).all()
    with pytest.raises(ValueError, match=r"pooling must be one of \('sparse', 'none'\)"):
        pv.build_regions(dense_b(), uneven(), epsilon=1.0, pooling="some")


def _three_levels() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(truth, parent, level) of N > {A, B}, E > E0 > E00; A, E and E's line are empty."""
    #            N  E  A  B  E0 A0 A1 B0 B1 E00
    parent = np.array([-1, -1, 0, 0, 1, 2, 2, 3, 3, 4])
    level = np.array([0, 0, 1, 1, 1, 2, 2, 2, 2, 2])
    truth = np.array([900, 0, 0, 900, 0, 0, 0, 450, 450, 0])
    return truth, parent, level


def test_every_path_pays_epsilon_once(monkeypatch):
    """With the noise recorded (and zero), the draws are: level 0 at eps/3 for N and E; E's second
    count with the two levels below it; level 1 for A and B; A's second count with one level; level 2
    for B's children. Every root-to-leaf path sums to epsilon, and the ledger's lines say so."""
    draws = []

    def recorded(rng, size, epsilon, sensitivity=1.0):
        draws.append((int(size), round(float(epsilon), 12)))
        return np.zeros(size, dtype=np.int64)

    monkeypatch.setattr(rb, "geometric_noise", recorded)
    truth, parent, level = _three_levels()
    ledger = Ledger(0.9)
    noisy, var, status = rb.measure(truth, parent, level, 0.9, make_randomness(1), ledger, "sparse")
    assert draws == [(2, 0.3), (1, 0.6), (2, 0.3), (1, 0.3), (2, 0.3)]
    assert status.tolist() == [MEASURED, STOPPED, STOPPED, MEASURED, SHARED, SHARED, SHARED, MEASURED, MEASURED,
                               SHARED]
    drawn_for = [{0, 1}, {1}, {2, 3}, {2}, {7, 8}]          # the regions of each draw, in order
    for leaf in (5, 6, 7, 8, 9):                           # every root-to-leaf path costs epsilon
        path, r = set(), leaf
        while r >= 0:
            path.add(r)
            r = parent[r]
        assert sum(e for (_, e), rows in zip(draws, drawn_for) if rows & path) == pytest.approx(0.9)
    assert [(r["level"], r["nodes"]) for r in ledger.records()] == [(0, 2), (1, 3), (2, 4)]
    assert ledger.total() == pytest.approx(0.9)
    v3, v6 = geometric_variance(0.3), geometric_variance(0.6)
    assert var[1] == pytest.approx(1 / (1 / v3 + 1 / v6)) and var[2] == pytest.approx(v3 / 2)


def test_a_stopped_region_is_unbiased_with_the_stated_variance_when_far_below_its_threshold():
    """E (8 empty children, threshold 8 sds) stops in practically every run; over 400 seeds its
    combined count has mean 0 and the inverse-variance variance (5 standard errors of each)."""
    parent = np.array([-1, -1] + [0] * 2 + [1] * 8)
    level = np.array([0, 0] + [1] * 10)
    truth = np.array([1000, 0, 500, 500] + [0] * 8)
    runs = np.array([rb.measure(truth, parent, level, 1.0, make_randomness(s), Ledger(1.0), "sparse")[0][1]
                     for s in range(400)])
    var = float(geometric_variance(0.5)) / 2
    assert abs(runs.mean()) < 5 * math.sqrt(var / 400)
    assert abs(runs.var() / var - 1) < 5 * math.sqrt(5 / 400)


def test_a_pooled_release_survives_its_file_and_a_tampered_status_is_refused(tmp_path):
    rel = pv.build_regions(dense_b(), uneven(), epsilon=1.0, resolution=10, seed=5)   # fixed: A pooled
    assert rel.status[0] == STOPPED and rel.status[2] == SHARED
    back = pv.load_release(rel.save(tmp_path / "r.json", allow_seeded=True))
    pd.testing.assert_frame_equal(back.counts(), rel.counts(), check_dtype=False)
    np.testing.assert_array_equal(back.status, rel.status)
    doc = json.loads((tmp_path / "r.json").read_text())
    doc["status"][2] = MEASURED                        # a pooled region said to be measured
    (tmp_path / "bad.json").write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="exactly the pooled regions have no noisy count"):
        pv.load_release(tmp_path / "bad.json")


def test_the_command_line_passes_the_pooling(tmp_path, capsys):
    gdf = uneven().frame[["id", "parent", "geometry"]]
    gdf.to_file(tmp_path / "layer.geojson", driver="GeoJSON")
    pd.DataFrame(dense_b(), columns=["lon", "lat"]).to_csv(tmp_path / "p.csv", index=False)
    out = {}
    for pooling in ("sparse", "none"):
        assert main(["regions", str(tmp_path / "p.csv"), "--regions", str(tmp_path / "layer.geojson"), "--id", "id",
                     "--parent", "parent", "--lon", "lon", "--lat", "lat", "--epsilon", "1",
                     "--seed", "3", "--allow-seeded", "--pooling", pooling,
                     "--out", str(tmp_path / f"{pooling}.csv")]) == 0
        out[pooling] = pd.read_csv(tmp_path / f"{pooling}.csv", dtype={"id": str})
    capsys.readouterr()
    assert (out["sparse"]["source"] == SOURCES[2]).sum() == 2 and (out["none"]["source"] == SOURCES[0]).all()
