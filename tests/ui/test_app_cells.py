"""Engine helpers behind the app's map: frontier views, cell lookup, GeoJSON export, rasterising."""
import json

import numpy as np
import pytest

import psdviz as pv
from psdviz.publish.cells import (
    cell_at,
    cell_details,
    cell_intervals,
    cells_geojson,
    frontier,
    frontier_sizes,
    path_epsilon,
    view_depth,
)
from psdviz.query.raster import mercator_centres, rasterize


@pytest.fixture(scope="module")
def rel():
    rng = np.random.default_rng(3)
    pts = rng.uniform(0, 1, (3000, 2)) ** 2
    return pv.build(pts, pv.Domain(0, 0, 1, 1), method="quadtree", epsilon=1.0, seed=5, height=4, prune=None)


def test_frontier_partitions_the_domain(rel):
    for d in range(rel.tree.height + 1):
        nodes = frontier(rel.tree, d)
        assert nodes.size == 4 ** d == frontier_sizes(rel.tree)[d]
        r = rel.tree.rect[nodes]
        assert np.isclose(((r[:, 2] - r[:, 0]) * (r[:, 3] - r[:, 1])).sum(), 1.0)
        # consistent estimates: every view sums to the root estimate
        assert np.isclose(rel.tree.est[nodes].sum(), rel.tree.est[0])


def test_frontier_of_pruned_tree_keeps_shallow_leaves():
    rng = np.random.default_rng(1)
    pts = rng.normal(0.2, 0.02, (4000, 2)).clip(0, 1)
    r = pv.build(pts, pv.Domain(0, 0, 1, 1), method="quadtree", epsilon=2.0, seed=2, height=5, prune=30)
    t = r.tree
    for d in range(t.height + 1):
        nodes = frontier(t, d)
        slow = [v for v in range(t.n_nodes) if t.depth[v] == d or (t.n_children[v] == 0 and t.depth[v] < d)]
        assert nodes.tolist() == slow
        assert frontier_sizes(t)[d] == len(slow)
    assert view_depth(t, 10 ** 9) == t.height and view_depth(t, 1) == 1


def test_cell_lookup_and_details(rel):
    nodes = frontier(rel.tree, 2)
    v = cell_at(rel.tree, nodes, 0.3, 0.6)
    x0, y0, x1, y1 = rel.tree.rect[v]
    assert x0 <= 0.3 <= x1 and y0 <= 0.6 <= y1 and (x1 - x0) == 0.25
    assert cell_at(rel.tree, nodes, 2.0, 0.5) is None
    c = cell_details(rel, v)
    assert c["level"] == 2 and c["count_epsilon"] == rel.tree.count_eps[v]
    assert np.isclose(c["noise_sd"] ** 2, rel.tree.noise_var[v])
    assert [c["low_95"], c["high_95"]] == list(cell_intervals(rel, np.array([v]))[0])   # the map's own interval
    assert 0 <= c["low_95"] <= max(c["estimate"], 0) <= c["high_95"]
    leaf = cell_at(rel.tree, rel.tree.leaf_index(), 0.3, 0.6)
    # along a root-to-leaf path the epsilons add up to the budget (geometric plan spends it all)
    assert np.isclose(path_epsilon(rel.tree, leaf), 1.0)


def test_geojson_has_no_truth_and_refuses_references(rel):
    with pytest.raises(ValueError, match="built from a seed, so it is NOT private"):
        cells_geojson(rel, 2)
    gj = json.loads(json.dumps(cells_geojson(rel, 2, allow_seeded=True)))
    assert len(gj["features"]) == 16 and gj["properties"]["warning"].startswith("NOT PRIVATE")
    props = gj["features"][0]["properties"]
    assert set(props) == {"node", "level", "noisy", "estimate", "low_95", "high_95", "count_epsilon", "noise_sd"}
    assert props["low_95"] < props["estimate"] < props["high_95"]
    ring = np.array(gj["features"][0]["geometry"]["coordinates"][0])
    assert ring.shape == (5, 2) and (ring[0] == ring[-1]).all()
    assert len(cells_geojson(rel, allow_seeded=True)["features"]) == int(rel.tree.is_leaf.sum())
    from dataclasses import replace
    with pytest.raises(ValueError, match="non-private"):
        cells_geojson(replace(rel, private=False), allow_seeded=True)
    with pytest.raises(ValueError, match="depth"):
        frontier(rel.tree, -1)


def test_rasterize_matches_point_in_rect_loop():
    rng = np.random.default_rng(0)
    # a random kd-like partition of [0, 1]^2 into disjoint rectangles
    rects = [[0.0, 0.0, 1.0, 1.0]]
    for _ in range(25):
        i = rng.integers(len(rects))
        x0, y0, x1, y1 = rects.pop(i)
        if rng.random() < 0.5:
            s = rng.uniform(x0, x1)
            rects += [[x0, y0, s, y1], [s, y0, x1, y1]]
        else:
            s = rng.uniform(y0, y1)
            rects += [[x0, y0, x1, s], [x0, s, x1, y1]]
    rects = np.array(rects)
    vals = np.arange(len(rects), dtype=float)
    xs, ys = (np.arange(37) + 0.5) / 37, np.sort(rng.uniform(0, 1, 23))
    img = rasterize(rects, vals, xs, ys, fill=-1)
    for j, y in enumerate(ys):
        for i, x in enumerate(xs):
            inside = np.flatnonzero((rects[:, 0] <= x) & (x < rects[:, 2]) & (rects[:, 1] <= y) & (y < rects[:, 3]))
            assert img[j, i] == (vals[inside[0]] if inside.size else -1)


def test_mercator_centres_monotone_and_clamped():
    lat = mercator_centres(-90, 90, 100)
    assert (np.diff(lat) > 0).all() and lat[0] > -85.06 and lat[-1] < 85.06
    assert np.allclose(lat, -lat[::-1])
