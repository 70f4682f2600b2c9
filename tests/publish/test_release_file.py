"""Release files: round trip for every method and variant, GeoParquet for GIS tools, refusals."""
from __future__ import annotations

import json

import numpy as np
import pyarrow.parquet as pq
import pytest

import psdviz as pv
from psdviz.publish.release_file import FORMAT_VERSION, META_KEY

DOM = pv.Domain(-5.0, 40.0, 5.0, 50.0)
RECTS = np.array([[-4, 41, -1, 45], [-5, 40, 5, 50], [-2.37, 43.11, 3.83, 49.7], [0.1, 44.9, 0.2, 45.3],
                  [-6, 39, 0, 45]])

VARIANTS = [(m, {}) for m in pv.METHODS] + [
    ("quadtree", {"height": 6, "prune": 20}), ("quadtree", {"height": 5, "postprocess": False}),
    ("quadtree", {"height": 5, "budget": "leaf", "postprocess": False, "prune": 5}),
    ("ug", {"grid_size": 7}), ("ag", {"postprocess": False}), ("htree", {"postprocess": False}),
    ("htree", {"variant": "hybrid"}), ("htree", {"variant": "composite"}), ("kdtree", {"prune": None}),
    ("hybrid", {"postprocess": False}),
]


@pytest.fixture(scope="module")
def points():
    rng = np.random.default_rng(7)
    a = rng.normal([-2, 44], [0.8, 0.9], (3000, 2))
    b = rng.uniform([-5, 40], [5, 50], (1000, 2))
    return np.vstack([a, b])


@pytest.mark.parametrize("method,params", VARIANTS, ids=[f"{m}-{i}" for i, (m, _) in enumerate(VARIANTS)])
def test_round_trip_answers_exactly(points, tmp_path, method, params):
    rel = pv.build(points, DOM, method=method, epsilon=0.8, seed=11, resolution=12, **params)
    path = rel.save(tmp_path / "r.parquet", allow_seeded=True)
    back = pv.load_release(path)
    np.testing.assert_array_equal(back.answer(RECTS), rel.answer(RECTS))
    np.testing.assert_array_equal(back.answer_variance(RECTS), rel.answer_variance(RECTS))
    np.testing.assert_array_equal(back.answer_uniformity_error(RECTS), rel.answer_uniformity_error(RECTS))
    np.testing.assert_array_equal(back.leaves()[["x0", "y0", "x1", "y1", "estimate"]].to_numpy(),
                                  rel.leaves()[["x0", "y0", "x1", "y1", "estimate"]].to_numpy())
    assert back.ledger.records() == rel.ledger.records() and back.epsilon == rel.epsilon
    assert back.report() == rel.report()
    assert back.grid == rel.grid and back.query_model == rel.query_model


def test_file_holds_no_seed_and_no_audit(points, tmp_path):
    rel = pv.build(points, DOM, method="ag", epsilon=1.0, seed=12345, resolution=12)
    path = rel.save(tmp_path / "r.parquet", allow_seeded=True)
    meta = json.loads(pq.read_schema(path).metadata[META_KEY])
    text = json.dumps(meta)
    assert '"seed"' not in text and "12345" not in text
    assert "rows_in" not in text and "rows_used" not in text and str(points.shape[0]) not in text
    assert meta["privacy_unit"] == {"kind": "point", "limit": 1} and meta["randomness"].startswith("seeded")
    back = pv.load_release(path)
    assert back.audit()["seed"] is None and "not available" in back.audit()["counts"]


def test_geoparquet_opens_in_geopandas(points, tmp_path):
    gpd = pytest.importorskip("geopandas")
    rel = pv.build(points, DOM, method="privtree", epsilon=1.0, seed=1, resolution=12)
    path = rel.save(tmp_path / "r.parquet", crs="EPSG:4326", allow_seeded=True)
    gdf = gpd.read_parquet(path)
    assert gdf.crs.to_epsg() == 4326 and len(gdf) == rel.tree.n_nodes
    cells = gdf[gdf["is_leaf"]]
    np.testing.assert_allclose(cells.geometry.bounds.to_numpy(), cells[["x0", "y0", "x1", "y1"]].to_numpy())
    np.testing.assert_allclose(cells.geometry.set_crs(None, allow_override=True).area.to_numpy(),
                               ((cells.x1 - cells.x0) * (cells.y1 - cells.y0)).to_numpy())
    assert gpd.read_parquet(rel.save(tmp_path / "u.parquet", allow_seeded=True)).crs is None


def _rewrite(path, out, edit_meta=None, edit_table=None):
    table = pq.read_table(path)
    meta = dict(table.schema.metadata)
    doc = json.loads(meta[META_KEY])
    if edit_meta:
        edit_meta(doc)
    meta[META_KEY] = json.dumps(doc).encode()
    if edit_table:
        table = edit_table(table)
    pq.write_table(table.replace_schema_metadata(meta), out)
    return out


def test_refuses_other_versions_and_tampered_files(points, tmp_path):
    import pyarrow as pa
    rel = pv.build(points, DOM, method="quadtree", epsilon=0.5, seed=2, resolution=12, height=5)
    path = rel.save(tmp_path / "r.parquet", allow_seeded=True)

    def newer(doc):
        doc["format_version"] = FORMAT_VERSION + 1
    with pytest.raises(ValueError, match="version"):
        pv.load_release(_rewrite(path, tmp_path / "v.parquet", newer))

    def lower_epsilon(doc):
        doc["epsilon"] = 0.25    # claims a stronger guarantee than the ledger spent
    with pytest.raises(ValueError, match=r"ledger spends epsilon 0.5, more than its stated epsilon 0.25"):
        pv.load_release(_rewrite(path, tmp_path / "l.parquet", lower_epsilon))

    def drop_spend(doc):   # ledger made to look cheaper: the nodes still record what was spent
        doc["epsilon"] = doc["epsilon_spent"] = doc["ledger"][0]["epsilon"]
        doc["ledger"] = doc["ledger"][:1]

    with pytest.raises(ValueError, match="root-to-leaf path"):
        pv.load_release(_rewrite(path, tmp_path / "d.parquet", drop_spend))

    plain = tmp_path / "plain.parquet"
    pq.write_table(pa.table({"a": [1, 2]}), plain)
    with pytest.raises(ValueError, match="not a psdviz release file"):
        pv.load_release(plain)
    junk = tmp_path / "junk.parquet"
    junk.write_bytes(b"not parquet at all")
    with pytest.raises(ValueError, match="not a psdviz release file"):
        pv.load_release(junk)


def test_references_are_not_saved(points, tmp_path):
    rel = pv.build(points, DOM, method="kd-pure", epsilon=1.0, seed=1, resolution=12)
    with pytest.raises(ValueError, match="non-private reference"):
        rel.save(tmp_path / "r.parquet", allow_seeded=True)
