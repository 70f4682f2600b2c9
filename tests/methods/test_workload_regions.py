"""A region layer as the quadtree's workload: its canonical nodes, the plan it gives, the release and the
neighbouring-data law of a planned count."""
from __future__ import annotations

import geopandas as gpd
import numpy as np
import pytest
import shapely
from shapely.geometry import Polygon, box

import psdviz as pv
from psdviz.methods.quadtree import quad_structure
from psdviz.methods.workload_budget import canonical_counts, check_workload, workload_epsilons
from psdviz.methods.workload_regions import layer_plan, region_canonical_counts
from psdviz.regions import Regions

DOM = pv.Domain(0, 0, 1, 1)


def _layer() -> Regions:
    """Two top regions (a triangle-cut square pair) and three children of the lower one, in [0, 1]^2."""
    tri_a = Polygon([(0, 0), (1, 0), (0, 1)])
    tri_b = Polygon([(1, 0), (1, 1), (0, 1)])
    kids = [tri_a.intersection(box(0, 0, 0.25, 1)), tri_a.intersection(box(0.25, 0, 0.625, 1)),
            tri_a.intersection(box(0.625, 0, 1, 1))]    # dyadic cuts: their corners on the diagonal are exact
    gdf = gpd.GeoDataFrame({"id": ["A", "B", "A0", "A1", "A2"], "p": [None, None, "A", "A", "A"]},
                           geometry=[tri_a, tri_b, *kids], crs=None)
    return Regions.from_frame(gdf, id="id", parent="p", crs=None)


def _brute(geometry, dom, h):
    """Node by node over the complete tree: nodes inside a region whose parent is not, per depth, and at
    the leaves each cut pair's area share squared (prepared polygons, as the counter uses)."""
    geometry = np.array([shapely.from_wkb(shapely.to_wkb(g)) for g in geometry], dtype=object)
    shapely.prepare(geometry)
    s = quad_structure(dom, h)
    r, dep, par = s["rect"], s["depth"], s["parent"]
    boxes = shapely.box(r[:, 0], r[:, 1], r[:, 2], r[:, 3])
    want = np.zeros(h + 1)
    for g in geometry:
        inside = shapely.contains(g, boxes)
        canon = inside & np.r_[True, ~inside[par[1:]]]
        want += np.bincount(dep[canon], minlength=h + 1)
        share = shapely.area(shapely.intersection(g, boxes)) / shapely.area(boxes)
        cut = (dep == h) & (share > 0) & ~inside
        want[h] += (share[cut] ** 2).sum()
    return want


@pytest.mark.parametrize("h", [1, 3, 5])
def test_region_counts_equal_a_node_by_node_count(h):
    np.testing.assert_allclose(region_canonical_counts(_layer().geometry, DOM, h), _brute(_layer().geometry, DOM, h),
                               atol=1e-9)


@pytest.mark.parametrize("h", [2, 6])
def test_rectangles_given_as_polygons_count_as_the_rectangle_workload(h):
    rng = np.random.default_rng(4)
    dom = pv.Domain(0, 0, 8, 4)
    a, b = np.sort(rng.uniform(0, 8, (30, 2)), 1), np.sort(rng.uniform(0, 4, (30, 2)), 1)
    rects = np.column_stack([a[:, 0], b[:, 0], a[:, 1], b[:, 1]])
    np.testing.assert_allclose(region_canonical_counts(shapely.box(*rects.T), dom, h),
                               canonical_counts(rects, dom, h), atol=1e-9)


def test_a_layer_workload_plans_the_quadtree_and_is_recorded(tmp_path):
    layer = _layer()
    pts = np.random.default_rng(0).random((5_000, 2))
    rel = pv.build(pts, DOM, "quadtree", 1.0, seed=2, height=5, workload=layer)
    want = workload_epsilons(1.0, 5, layer, DOM)
    np.testing.assert_allclose(np.unique(rel.tree.count_eps[rel.tree.depth == 5]), want[5:])
    assert rel.tree.path_epsilons().max() == pytest.approx(1.0) and rel.ledger.total() == pytest.approx(1.0)
    record = rel.params["workload_regions"]
    assert record.startswith("5 regions in 2 level(s), sha256 ") and "workload" not in rel.params
    assert any("workload of 5 regions" in n for n in rel.notes)
    back = pv.load_release(rel.save(tmp_path / "r.parquet", allow_seeded=True))
    assert back.params["workload_regions"] == record
    est = rel.answer_regions(layer).set_index("id")["estimate"]
    assert est["A"] + est["B"] == pytest.approx(rel.answer([[0, 0, 1, 1]])[0], rel=1e-6)
    assert est["A0"] + est["A1"] + est["A2"] == pytest.approx(est["A"], rel=1e-6)
    other = _layer()
    other.frame.loc[0, "geometry"] = box(0, 0, 0.5, 0.5)     # a different layer records a different digest
    assert pv.build(pts, DOM, "quadtree", 1.0, seed=2, height=5, workload=other).params["workload_regions"] != record


def test_a_layer_outside_the_domain_is_named():
    with pytest.raises(ValueError, match="workload region 'A' lies outside the domain"):
        check_workload(_layer(), pv.Domain(5, 5, 6, 6))


def test_planned_count_law_moves_by_at_most_e_epsilon():
    """D vs D': a point added in the leaf [0.75, 1)^2 moves the law of that leaf's released count by at most
    e^eps_leaf, the epsilon the plan for a layer of the depth-2 cells gives the leaves (0.58 of epsilon, the
    upper levels keeping their floor; the plan sums to epsilon on every path); claiming a third of eps_leaf
    fails (power)."""
    from tests.privacy.test_grid_audit import ratio_ok

    corners = [(x, y) for x in (0, .25, .5, .75) for y in (0, .25, .5, .75)]
    cells = gpd.GeoDataFrame({"id": [f"c{i}" for i in range(16)]},
                             geometry=[box(x, y, x + 0.25, y + 0.25) for x, y in corners])
    layer, runs, eps = Regions.from_frame(cells, id="id", crs=None), 1000, 1.6   # leaf: 0.93
    d = np.array([[0.1, 0.1], [0.2, 0.3], [0.8, 0.8], [0.85, 0.9]])

    def law(data):
        out = []
        for s in range(runs):
            t = pv.build(data, DOM, "quadtree", eps, seed=s, resolution=10, height=2, prune=None, workload=layer).tree
            out.append(t.noisy[np.flatnonzero((t.depth == 2) & (t.rect[:, 0] == 0.75) & (t.rect[:, 1] == 0.75))[0]])
        return np.asarray(out)

    a, b = law(d), law(np.vstack([d, [[0.8, 0.9]]]))
    lo = int(min(a.min(), b.min()))
    n = int(max(a.max(), b.max())) - lo + 1
    ca, cb = np.bincount((a - lo).astype(int), minlength=n), np.bincount((b - lo).astype(int), minlength=n)
    eps_leaf = workload_epsilons(eps, 2, layer, DOM)[2]
    assert eps_leaf <= eps and ratio_ok(ca, cb, runs, eps_leaf)
    assert not ratio_ok(ca, cb, runs, eps_leaf / 3)


def _cells(k: int) -> Regions:
    """A k x k grid of square regions over [0, 1]^2 (one level)."""
    edges = np.arange(k) / k
    frame = gpd.GeoDataFrame({"id": [f"c{i}_{j}" for i in range(k) for j in range(k)]},
                             geometry=[box(x, y, x + 1 / k, y + 1 / k) for x in edges for y in edges])
    return Regions.from_frame(frame, id="id", crs=None)


def test_the_depth_for_a_layer_is_where_half_a_region_lies_in_whole_nodes():
    assert layer_plan(_cells(8).geometry, DOM, 0, 11)[0] == 3         # the cells are the depth-3 nodes
    assert layer_plan(_cells(8).geometry, DOM, 0, 2)[0] == 2          # capped
    geometry = _layer().geometry                                    # brute force: the first depth with a mean
    s = quad_structure(DOM, 7)                                      # cut share of at most 1/2
    boxes = shapely.box(*s["rect"].T)
    for d in range(8):
        at = s["depth"] == d
        cut = [shapely.area(shapely.intersection(g, boxes[at][~shapely.contains(g, boxes[at])])).sum() / g.area
               for g in geometry]
        if np.mean(cut) <= 0.5:
            break
    assert layer_plan(geometry, DOM, 0, 11)[0] == d


def test_a_layer_deepens_the_rules_tree_and_a_given_height_stays():
    pts = np.random.default_rng(1).random((500, 2))
    rel = pv.build(pts, DOM, "quadtree", 0.1, seed=3, workload=_cells(8), n_public=500)
    assert rel.params["height"] == 3 and any("deepened to 3" in n for n in rel.notes)   # the rule gives 2
    assert rel.tree.path_epsilons().max() == pytest.approx(0.1)
    assert pv.build(pts, DOM, "quadtree", 0.1, seed=3, workload=_cells(8), height=2).params["height"] == 2


def test_auto_records_a_layer_it_did_not_plan_for():
    pts = np.random.default_rng(5).random((2_000, 2))
    rel = pv.build(pts, DOM, "auto", 0.5, seed=1, workload=_layer())
    assert rel.params["chosen"] != "quadtree" and rel.params["workload_regions"].startswith("5 regions")
    assert any("The workload was not used" in n for n in rel.notes)


def test_a_workload_is_typed_once_and_the_types_build_the_same_release():
    """A layer becomes a RegionLayer, an array Rectangles (psdviz.core.workload); passing the typed value
    builds the very release the layer or the array builds."""
    from psdviz.core.workload import Rectangles, RegionLayer, as_workload
    layer, rects = _layer(), np.array([[0.1, 0.1, 0.6, 0.4], [0.0, 0.5, 1.0, 1.0]])
    typed = as_workload(layer)
    assert isinstance(typed, RegionLayer) and len(typed) == 5 and typed.n_levels == 2
    assert isinstance(as_workload(rects), Rectangles) and as_workload(typed) is typed
    pts = np.random.default_rng(0).random((5_000, 2))
    for given, same in ((layer, typed), (rects, Rectangles(rects))):
        a = pv.build(pts, DOM, "quadtree", 1.0, seed=2, height=5, workload=given)
        b = pv.build(pts, DOM, "quadtree", 1.0, seed=2, height=5, workload=same)
        np.testing.assert_array_equal(a.tree.noisy, b.tree.noisy)
        assert a.params == b.params


def test_a_build_never_prepares_the_callers_polygons():
    """shapely.prepare attaches state to the objects it is given; the app shares one layer between sessions, and
    two builds preparing the same objects at once crashed its server in GEOS. Builds prepare copies."""
    layer = _layer()
    pts = np.random.default_rng(1).random((2_000, 2))
    pv.build(pts, DOM, "quadtree", 1.0, seed=1, workload=layer)
    pv.build_regions(pts, layer, epsilon=1.0, seed=1)
    assert not shapely.is_prepared(np.asarray(layer.geometry)).any()
    assert not shapely.is_prepared(layer.frame.geometry.to_numpy()).any()


def test_a_layer_workload_plans_the_hybrid_and_is_recorded():
    """The hybrid takes a region layer as it takes rectangles: its count levels by the layer's plan at its
    height, every path spending epsilon, the layer's digest recorded, the regions answered consistently."""
    layer = _layer()
    pts = np.random.default_rng(6).random((5_000, 2))
    geo = pv.build(pts, DOM, "hybrid", 1.0, seed=2, height=4, prune=None)
    rel = pv.build(pts, DOM, "hybrid", 1.0, seed=2, height=4, prune=None, workload=layer)
    counts = [s.epsilon for s in rel.ledger.spends if s.what == "count"]
    want = workload_epsilons(sum(s.epsilon for s in geo.ledger.spends if s.what == "count"), 4, layer, DOM)
    np.testing.assert_allclose(counts, want, rtol=1e-12)
    assert rel.tree.path_epsilons().max() == pytest.approx(1.0) and rel.ledger.total() == pytest.approx(1.0)
    assert rel.params["budget"] == "workload" and rel.params["workload_regions"].startswith("5 regions")
    est = rel.answer_regions(layer).set_index("id")["estimate"]
    assert est["A0"] + est["A1"] + est["A2"] == pytest.approx(est["A"], rel=1e-6)
