"""A seeded run is a teaching artefact: trying seeds regenerates its noise and recovers every exact
count, so writing it as a release (file, cells, count-of-counts or sparse export) is refused unless
the caller says so, and what is then written says NOT private."""
from __future__ import annotations

import json

import numpy as np
import pytest

import psdviz as pv
from psdviz import coco, sparse
from psdviz.publish.cells import cells_geojson

PTS = np.random.default_rng(0).random((2000, 2))
DOM = pv.Domain(0, 0, 1, 1)


def test_the_attack_the_refusal_prevents():
    """A seed regenerates the noise: the release minus the noise drawn from the same seed on no data
    is every exact count. Nothing in a file need name the seed for this: small seeds are tried."""
    rel = pv.build(PTS, DOM, "ug", 1.0, seed=42, grid_size=4)
    with pytest.warns(pv.EmptyReleaseWarning):
        noise = pv.build(np.zeros((0, 2)), DOM, "ug", 1.0, seed=42, grid_size=4).tree.noisy[1:]
    assert np.array_equal(rel.tree.noisy[1:] - noise, pv.true_answer(PTS, rel.tree.rect[1:]))


def test_saving_a_seeded_release_is_refused_unless_allowed(tmp_path):
    rel = pv.build(PTS, DOM, "quadtree", 1.0, seed=3, height=3)
    with pytest.raises(ValueError, match="built from a seed, so it is NOT private"):
        rel.save(tmp_path / "r.parquet")
    assert not (tmp_path / "r.parquet").exists()
    back = pv.load_release(rel.save(tmp_path / "r.parquet", allow_seeded=True))
    assert back.report()["warning"].startswith("NOT PRIVATE") and back.randomness.seeded
    with pytest.raises(ValueError, match="NOT private"):           # a loaded seeded file stays seeded
        back.save(tmp_path / "again.parquet")
    with pytest.raises(ValueError, match="NOT private"):
        cells_geojson(rel)
    assert cells_geojson(rel, allow_seeded=True)["properties"]["warning"].startswith("NOT PRIVATE")


def test_fresh_releases_save_without_a_word(tmp_path):
    rel = pv.build(PTS, DOM, "quadtree", 1.0, height=3)
    back = pv.load_release(rel.save(tmp_path / "r.parquet"))
    assert "warning" not in back.report() and not back.randomness.seeded
    assert "warning" not in cells_geojson(rel)["properties"]


def test_count_of_counts_and_sparse_exports_are_refused_and_never_hold_the_seed(tmp_path):
    h = coco.Hierarchy.from_paths([("a",), ("b",)], root="root")
    table = coco.group_records([1, 1, 2, 3], ["a", "a", "b", "b"], h, max_size=4)
    rel = coco.publish(table, None, "hc", [0.5, 0.5], seed=1234)
    with pytest.raises(ValueError, match="NOT private"):
        rel.save(tmp_path / "c.json")
    doc = json.loads(rel.save(tmp_path / "c.json", allow_seeded=True).read_text())
    assert doc["report"]["warning"].startswith("NOT PRIVATE") and "1234" not in json.dumps(doc)
    assert pv.load_release(tmp_path / "c.json").report()["warning"].startswith("NOT PRIVATE")
    summary = sparse.summarize(sparse.make_table(np.array([0, 2, 5]), np.array([3, 5, 9]), 6), "filter", 1.0,
                               seed=4321, theta=1)
    with pytest.raises(ValueError, match="NOT private"):
        summary.save(tmp_path / "s.json")
    out = json.loads(summary.save(tmp_path / "s.json", allow_seeded=True).read_text())
    assert out["report"]["warning"].startswith("NOT PRIVATE") and "4321" not in json.dumps(out)
    with pytest.warns(DeprecationWarning):                 # the earlier export names still work
        assert "NOT PRIVATE" in rel.to_json(allow_seeded=True) and "warning" in summary.to_dict(allow_seeded=True)


def test_an_unknown_crs_is_a_clear_error(tmp_path):
    rel = pv.build(PTS, DOM, "ug", 1.0)
    with pytest.raises(ValueError, match="not a coordinate reference system"):
        rel.save(tmp_path / "r.parquet", crs="EPSG:999999")
    assert not (tmp_path / "r.parquet").exists()
