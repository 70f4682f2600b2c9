"""Regions: the public layer (levels, overlap refused, files and CRS), the region release (consistent
non-negative integers, per-path ledger, least squares against a dense solve, a neighbouring-datasets
ratio test, identical releases from arrays, Parquet and Dask), answers of spatial releases on regions,
and release files."""
from __future__ import annotations

import json
import math

import geopandas as gpd
import numpy as np
import pandas as pd
import pytest
from shapely.geometry import box

import psdviz as pv
from psdviz.core.noise import geometric_variance
from psdviz.regions import Regions, us_counties
from psdviz.regions.consistency import integer_counts, least_squares, region_tree

# two "states" side by side, each cut into four "counties"
STATES = [("A", box(0, 0, 1, 1)), ("B", box(1, 0, 2, 1))]
COUNTIES = [(f"{s}{i}", s, box(x0 + (i % 2) * 0.5, (i // 2) * 0.5, x0 + (i % 2) * 0.5 + 0.5, (i // 2) * 0.5 + 0.5))
            for s, x0 in (("A", 0.0), ("B", 1.0)) for i in range(4)]


def layer(crs="EPSG:4326") -> Regions:
    gdf = gpd.GeoDataFrame({"code": [s for s, _ in STATES] + [c for c, _, _ in COUNTIES],
                            "up": [None, None] + [p for _, p, _ in COUNTIES],
                            "label": [f"state {s}" for s, _ in STATES] + [f"county {c}" for c, _, _ in COUNTIES]},
                           geometry=[g for _, g in STATES] + [g for _, _, g in COUNTIES], crs=crs)
    return Regions.from_frame(gdf, id="code", parent="up", name="label")


def points(n=4000, seed=0):
    rng = np.random.default_rng(seed)
    return np.column_stack([2 * rng.uniform(0, 1, n) ** 1.3, rng.uniform(0, 1, n)])


# ---- the layer ---------------------------------------------------------------------------------------
def test_levels_come_from_the_parent_links_and_rows_are_in_tree_order():
    r = layer()
    t = r.table()
    assert t["level"].tolist() == [0, 0] + [1] * 8
    assert t["id"].tolist()[:4] == ["A", "B", "A0", "A1"]
    parent = r.parent_index()
    assert (parent[2:6] == 0).all() and (parent[6:] == 1).all() and (parent[:2] == -1).all()


def test_overlapping_regions_of_a_level_are_refused_and_shared_borders_are_not():
    gdf = gpd.GeoDataFrame({"id": ["a", "b"]}, geometry=[box(0, 0, 1, 1), box(0.5, 0, 1.5, 1)], crs="EPSG:4326")
    with pytest.raises(ValueError, match="'a' and 'b' of level 0 overlap"):
        Regions.from_frame(gdf, id="id")
    touching = gpd.GeoDataFrame({"id": ["a", "b"]}, geometry=[box(0, 0, 1, 1), box(1, 0, 2, 1)], crs="EPSG:4326")
    assert Regions.from_frame(touching, id="id").n_levels == 1


@pytest.mark.parametrize("frame, message", [
    (gpd.GeoDataFrame({"id": ["r", "a", "a"], "p": [None, None, "r"]},
                      geometry=[box(5, 5, 9, 9), box(0, 0, 1, 1), box(1, 0, 2, 1)], crs=4326), "unique"),
    (gpd.GeoDataFrame({"id": ["a", "b"], "p": [None, "zz"]}, geometry=[box(0, 0, 1, 1), box(1, 0, 2, 1)], crs=4326),
     "parent 'zz' is not a region id"),
    (gpd.GeoDataFrame({"id": ["a", "b"], "p": ["b", "a"]}, geometry=[box(0, 0, 1, 1), box(1, 0, 2, 1)], crs=4326),
     "cycle"),
])
def test_bad_layers_get_a_clear_error(frame, message):
    with pytest.raises(ValueError, match=message):
        Regions.from_frame(frame, id="id", parent="p" if "p" in frame else None)


def test_files_and_crs(tmp_path):
    r = layer()
    projected = r.frame.rename(columns={"id": "code"}).to_crs("EPSG:3857")
    projected.to_file(tmp_path / "r.gpkg")
    projected.to_file(tmp_path / "r.geojson")
    for name in ("r.gpkg", "r.geojson"):
        back = Regions.from_file(tmp_path / name, id="code", parent="parent", name="name")
        assert back.frame.crs.to_epsg() == 4326
        np.testing.assert_allclose(back.frame.total_bounds, [0, 0, 2, 1], atol=1e-9)
        assert back.table()["id"].tolist() == r.table()["id"].tolist()
    with pytest.raises(ValueError, match="column 'nope'"):
        Regions.from_file(tmp_path / "r.gpkg", id="nope")
    with pytest.raises(ValueError, match="not found"):
        Regions.from_file(tmp_path / "missing.geojson", id="code")


def test_levels_from_single_level_layers_take_parents_from_the_geometry():
    r = layer()
    f = r.frame
    top = Regions.from_frame(f[f["level"] == 0][["id", "name", "geometry"]], id="id", name="name")
    low = Regions.from_frame(f[f["level"] == 1][["id", "name", "geometry"]], id="id", name="name")
    both = Regions.from_levels([top, low])
    pd.testing.assert_frame_equal(both.table(), r.table())


def test_levels_from_layers_refuse_what_would_miscount():
    top = Regions.from_frame(gpd.GeoDataFrame({"id": ["A", "B"]}, geometry=[box(0, 0, 1, 1), box(1, 0, 2, 1)],
                                              crs="EPSG:4326"), id="id")
    straddling = Regions.from_frame(gpd.GeoDataFrame({"id": ["c"]}, geometry=[box(0.5, 0, 1.5, 1)], crs="EPSG:4326"),
                                    id="id")
    with pytest.raises(ValueError, match=r"region 'c' of level 1 has 50.0% of its area inside 'A'"):
        Regions.from_levels([top, straddling])
    assert Regions.from_levels([top, straddling], within=0.5).table()["parent"].tolist()[-1] == "A"
    outside = Regions.from_frame(gpd.GeoDataFrame({"id": ["c"]}, geometry=[box(5, 5, 6, 6)], crs="EPSG:4326"), id="id")
    with pytest.raises(ValueError, match="no part of it inside a region of level 0"):
        Regions.from_levels([top, outside])
    twice = Regions.from_frame(gpd.GeoDataFrame({"id": ["A"]}, geometry=[box(0, 0, 0.5, 1)], crs="EPSG:4326"), id="id")
    with pytest.raises(ValueError, match="unique"):
        Regions.from_levels([top, twice])
    with pytest.raises(ValueError, match="one level per layer"):
        Regions.from_levels([layer(), top])
    metres = Regions.from_frame(gpd.GeoDataFrame({"id": ["m"]}, geometry=[box(0, 0, 1, 1)], crs="EPSG:3857"), id="id",
                                crs=None)
    with pytest.raises(ValueError, match="one coordinate reference system"):
        Regions.from_levels([top, metres])


def test_the_bundled_counties_hang_under_their_states():
    r = us_counties()
    t = r.table()
    counties = t[t["level"] == 1]
    assert len(counties) > 3000 and (counties["parent"] == counties["id"].str[:2]).all()
    assert set(t[t["level"] == 0]["name"]) >= {"California", "Texas", "New York"}


# ---- the region release ------------------------------------------------------------------------------
def test_release_is_consistent_non_negative_integers_and_the_ledger_is_per_path():
    r = layer()
    for seed in range(5):
        rel = pv.build_regions(points(), r, epsilon=0.3, seed=seed)
        c = rel.counts()
        est = c["estimate"].to_numpy()
        assert np.issubdtype(est.dtype, np.integer) and (est >= 0).all()
        parent = r.parent_index()
        sums = np.bincount(parent[parent >= 0], weights=est[parent >= 0], minlength=len(est))
        np.testing.assert_array_equal(sums[:2], est[:2])
        assert rel.ledger.total() == pytest.approx(0.3)
        assert [s["level"] for s in rel.ledger.records()] == [0, 1]     # one spend per level, each 0.15
        assert all(s["epsilon"] == pytest.approx(0.15) for s in rel.ledger.records())


def test_counts_are_the_truth_plus_geometric_noise():
    """Over 200 seeds the noisy counts' mean is the true count and their variance the geometric
    mechanism's (tolerances: 5 standard errors of each statistic)."""
    r = layer()
    xy = points()
    truth = np.array([((xy[:, 0] >= 0) & (xy[:, 0] < 1)).sum(), ((xy[:, 0] >= 1) & (xy[:, 0] <= 2)).sum()])
    runs = np.array([pv.build_regions(xy, r, epsilon=0.5, seed=s, resolution=12).noisy[:2] for s in range(200)])
    var = float(geometric_variance(0.25))
    assert np.abs(runs.mean(axis=0) - truth).max() < 5 * math.sqrt(var / 200)
    assert np.abs(runs.var(axis=0) / var - 1).max() < 5 * math.sqrt(5 / 200)     # kurtosis of Laplace-like noise 6


def test_least_squares_equals_a_dense_weighted_solve():
    r = layer()
    rng = np.random.default_rng(3)
    noisy = rng.normal(100, 10, 10)
    var = rng.uniform(1, 9, 10)
    tree = region_tree(r.parent_index(), r.levels, noisy, var)
    est, se = least_squares(tree)
    leaves = np.flatnonzero(tree.is_leaf)
    a = np.zeros((10, leaves.size))                 # each region = sum of its leaves (tree rows 1..10)
    for j, leaf in enumerate(leaves):
        v = leaf
        while v > 0:
            a[v - 1, j] = 1
            v = tree.parent[v]
    w = np.diag(1 / var)
    cov = np.linalg.inv(a.T @ w @ a)
    x = cov @ a.T @ w @ noisy
    np.testing.assert_allclose(est[1:], a @ x, rtol=1e-9)
    np.testing.assert_allclose(se[1:], np.sqrt(np.diag(a @ cov @ a.T)), rtol=1e-9)


def test_integer_rounding_keeps_sums_and_stays_near_the_real_values():
    r = layer()
    tree = region_tree(r.parent_index(), r.levels, np.zeros(10), np.ones(10))
    rng = np.random.default_rng(5)
    for _ in range(50):
        leaves = rng.uniform(0, 30, 8)
        est = np.r_[leaves.sum(), leaves[:4].sum(), leaves[4:].sum(), leaves]
        out = integer_counts(tree, est)
        assert out[1] + out[2] == out[0] and out[3:7].sum() == out[1] and out[7:].sum() == out[2]
        # a state is its estimate rounded; a county is its share of its state's integer, within 1.5
        assert np.abs(out[1:3] - est[1:3]).max() <= 0.5 and np.abs(out[3:] - est[3:]).max() < 1.5


def test_arrays_parquet_and_dask_give_identical_region_releases(tmp_path):
    import dask.dataframe as dd
    r = layer()
    xy = points()
    df = pd.DataFrame({"lon": xy[:, 0], "lat": xy[:, 1]})
    df.to_parquet(tmp_path / "p.parquet")
    ref = pv.build_regions(xy, r, epsilon=0.7, seed=4, resolution=14)
    for src in (str(tmp_path / "p.parquet"), dd.from_pandas(df, npartitions=3)):
        got = pv.build_regions(src, r, epsilon=0.7, seed=4, resolution=14, lon="lon", lat="lat")
        np.testing.assert_array_equal(got.noisy, ref.noisy)
        np.testing.assert_array_equal(got.estimate, ref.estimate)


def test_the_owner_is_told_points_in_no_region_and_the_misplacement_is_stated():
    r = layer()
    xy = np.vstack([points(), [[5.0, 5.0]]])
    rel = pv.build_regions(xy, r, epsilon=1.0, seed=1, domain=pv.Domain(0, 0, 8, 8), resolution=10)
    assert rel.audit()["rows_in_no_region"] == 1 and "rows_in_no_region" not in json.dumps(rel.report())
    assert rel.params["misplacement"] == pytest.approx(0.5 * math.hypot(8 / 1024, 8 / 1024))
    assert "counted in the neighbouring region" in rel.notes[0]


def test_user_level_region_release():
    r = layer()
    xy = points()
    users = np.arange(len(xy)) % 500
    rel = pv.build_regions(xy, r, epsilon=1.0, seed=2, user=users, max_points_per_user=4)
    assert rel.privacy_unit == "one user, at most 4 points" and rel.ledger.total() == pytest.approx(1.0)
    assert all(s["sensitivity"] == 4 for s in rel.ledger.records())


def test_save_load_and_tampering(tmp_path):
    rel = pv.build_regions(points(), layer(), epsilon=1.0)
    back = pv.load_release(rel.save(tmp_path / "r.json"))
    pd.testing.assert_frame_equal(back.counts(), rel.counts(), check_dtype=False)
    doc = json.loads((tmp_path / "r.json").read_text())
    doc["estimate"][0] += 1                              # a state no longer the sum of its counties
    (tmp_path / "bad.json").write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="sum of its children"):
        pv.load_release(tmp_path / "bad.json")


# ---- spatial releases answered on regions ---------------------------------------------------------
def test_answer_regions_equals_rectangle_answers_for_rectangular_regions_and_survives_a_file(tmp_path):
    xy = points()
    rel = pv.build(xy, pv.Domain(0, 0, 2, 1), "quadtree", 1.0, height=5)
    r = layer()
    got = rel.answer_regions(r)
    rects = np.array([g.bounds for g in r.geometry])
    np.testing.assert_allclose(got["estimate"], rel.answer(rects), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(got["standard_error"] ** 2, rel.answer_variance(rects), rtol=1e-6, atol=1e-9)
    back = pv.load_release(rel.save(tmp_path / "q.parquet"))
    pd.testing.assert_frame_equal(back.answer_regions(r), got)


def test_a_region_outside_the_releases_domain_has_no_answer_and_a_cut_one_says_how_much_is_inside():
    """The release says nothing outside its domain: a region wholly outside is answered NaN (never 0 with no
    error), one half outside counts its inside part and says so (domain_share)."""
    xy = points()
    rel = pv.build(xy[xy[:, 0] <= 1.5], pv.Domain(0, 0, 1.5, 1), "quadtree", 1.0, height=5, seed=1)
    got = rel.answer_regions(layer()).set_index("id")
    assert got.loc["A", "domain_share"] == 1.0 and got.loc["B", "domain_share"] == pytest.approx(0.5)
    for outside in ("B1", "B3"):                                     # x in [1.5, 2]: wholly outside
        row = got.loc[outside]
        assert row["domain_share"] == 0.0
        assert all(math.isnan(row[c]) for c in ("estimate", "standard_error", "uniformity_error", "low_95", "high_95"))
    inside = got.loc["B0"]
    assert inside["domain_share"] == 1.0 and math.isfinite(inside["estimate"]) and inside["standard_error"] > 0


def test_explore_colours_each_level_in_the_shared_region_classes():
    """``psdviz.explore`` draws a region release in the app's classes (psdviz.regions.colours): every region's fill
    is its class's shade for its level, or pale within two standard errors of zero."""
    pytest.importorskip("folium")
    from psdviz.regions.colours import PALE, classes, shades
    lay = layer()
    rel = pv.build_regions(points(), lay, epsilon=1.0, seed=3)
    gj = next(c for c in pv.explore(rel, lay)._children.values() if type(c).__name__ == "GeoJson").data
    fills = {f["properties"]["id"]: f["properties"]["colour"] for f in gj["features"]}
    counts = rel.counts()
    for level in counts["level"].unique():
        one = counts[counts["level"] == level]
        cls, edges = classes(one["estimate"].to_numpy(float), one["standard_error"].to_numpy(float))
        want = [shades(edges.size - 1)[c] if c >= 0 else PALE for c in cls]
        assert [fills[i] for i in one["id"]] == want
