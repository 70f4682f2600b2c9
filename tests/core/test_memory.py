"""memory_limit as the build's budget: DuckDB gets its share, and a tree's size is lowered to the tree's share
(a note in the release), from public inputs alone; without a limit nothing changes."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import psdviz as pv
from psdviz.core.memory import (
    BYTES_PER_NODE,
    MAX_NODES,
    TREE_SHARE,
    cap_by_memory,
    cap_cells,
    memory_budget,
    memory_bytes,
    node_cap,
)
from psdviz.core.tree import check_node_count
from psdviz.methods.htree import BYTES_PER_CELL as HTREE_BYTES
from psdviz.methods.quadtree import quad_nodes
from psdviz.sources.files import DuckDBSource

DOM = pv.Domain(0, 0, 1, 1)
SKEWED = np.random.default_rng(5).random((20_000, 2)) ** 2    # skewed towards a corner


@pytest.fixture(scope="module")
def parquet(tmp_path_factory):
    xy = SKEWED
    path = tmp_path_factory.mktemp("budget") / "p.parquet"
    pd.DataFrame({"lon": xy[:, 0], "lat": xy[:, 1]}).to_parquet(path)
    return str(path)


def test_the_node_cap_is_the_trees_share_of_the_limit_and_unchanged_without_one():
    assert node_cap() == MAX_NODES
    with memory_budget("20MB"):
        assert node_cap() == int(20e6 * TREE_SHARE) // BYTES_PER_NODE == 25_000
        assert cap_by_memory(8, quad_nodes, "height") == (7, "height 8 lowered to 7: memory_limit 20MB holds a "
                                                             "tree of at most 25,000 nodes (87,381 asked for)")
        assert cap_by_memory(7, quad_nodes, "height") == (7, None)
        with pytest.raises(ValueError, match=r"above the 25,000 nodes memory_limit 20MB holds; .* or raise "
                                             "memory_limit"):
            check_node_count(quad_nodes(8), "a quadtree of height 8")
    assert node_cap() == MAX_NODES                       # the budget ends with its build
    assert cap_by_memory(12, quad_nodes, "height") == (12, None)   # no limit: the node check refuses instead
    assert cap_cells(12, lambda b: 4 ** b, "order", 64) == (12, None)


def test_duckdb_is_capped_at_its_share(parquet):
    src = DuckDBSource(parquet, DOM, lon="lon", lat="lat", memory_limit="200MB")
    try:
        got = src.con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0]
    finally:
        src.close()
    assert got == "95.3 MiB"     # 10^8 bytes: half of 200MB


@pytest.mark.parametrize("method", ["quadtree", "kdtree", "ug", "kd-cell"])
def test_a_size_beyond_the_trees_share_is_lowered_with_a_note(parquet, method):
    size = {"quadtree": {"height": 8, "prune": None}, "kdtree": {"height": 8}, "ug": {"grid_size": 200},
            "kd-cell": {"grid": 1024}}[method]
    kw = dict(seed=2, lon="lon", lat="lat", resolution=12)
    rel = pv.build(parquet, DOM, method, 1.0, memory_limit="20MB", **kw, **size)
    name, asked = next(iter(size.items()))
    got = rel.params[name]
    assert got < asked and any(f"{name} {asked} lowered to {got}: memory_limit 20MB" in n for n in rel.notes)
    assert rel.tree.n_nodes <= node_cap_of("20MB")
    # the limit changes the public size only: the same release as asking for that size
    also = {"height": rel.params["height"]} if "height" in rel.params else {}   # kd-cell's tree is lowered too
    same = pv.build(parquet, DOM, method, 1.0, **kw, **{**size, **also, name: got})
    np.testing.assert_array_equal(rel.tree.est, same.tree.est)


def node_cap_of(limit: str) -> int:
    return int(memory_bytes(limit) * TREE_SHARE) // BYTES_PER_NODE


def test_the_quadtree_height_rule_is_lowered_too(parquet):
    kw = dict(seed=2, lon="lon", lat="lat", resolution=12, n_public=20_000, prune=None)
    free = pv.build(parquet, DOM, "quadtree", 10.0, **kw)
    tight = pv.build(parquet, DOM, "quadtree", 10.0, memory_limit="10MB", **kw)
    # h = ceil(log4(20,000 x 10 / 10)) = 8; 10MB holds 12,500 nodes: height 6 (5,461), not 7 (21,845)
    assert free.params["height"] == 8 and tight.params["height"] == 6
    assert any("height 8 lowered to 6" in n for n in tight.notes)


def test_a_quadtree_that_stops_holds_only_its_levels_counts_and_keeps_a_deeper_tree():
    # pruning during the build makes only the measured nodes: 5MB at 24 bytes a complete node holds 104,166
    # nodes (height 7: 21,845; 8: 87,381), where the complete tree's 400 bytes would hold 6,250 (height 5)
    rel = pv.build(SKEWED, DOM, "quadtree", 1.0, seed=3, height=9, memory_limit="10MB")
    assert rel.params["height"] == 8 and any("height 9 lowered to 8: memory_limit 10MB holds at most" in n
                                             for n in rel.notes)
    np.testing.assert_array_equal(rel.tree.est, pv.build(SKEWED, DOM, "quadtree", 1.0, seed=3, height=8).tree.est)
    with pytest.raises(ValueError, match=r"its plan measures the leaves only.*raise memory_limit"):
        pv.build(SKEWED, DOM, "quadtree", 1.0, seed=3, height=9, budget="leaf", memory_limit="10MB")


def test_the_htree_slices_coarser_cells_under_a_tight_limit():
    rel = pv.build(SKEWED, DOM, "htree", 1.0, seed=4, resolution=12, memory_limit="2MB")   # points in memory
    bits = int(np.log2(np.sqrt(memory_bytes("2MB") * TREE_SHARE / HTREE_BYTES)))    # 4^b cells fit: b = 6
    assert bits == 6 and any(f"resolution (bits a side of the cells it slices) 12 lowered to {bits}" in n
                             for n in rel.notes)
    corners = rel.tree.rect * (1 << bits)
    np.testing.assert_array_equal(corners, np.rint(corners))      # every box on the coarser grid's lines
    assert rel.grid.bits == 12                                     # the release is on the source's grid


def test_the_hilbert_order_is_lowered_under_a_tight_limit():
    rel = pv.build(SKEWED, DOM, "hilbert", 1.0, seed=1, resolution=12, memory_limit="2MB")
    assert rel.params["order"] == 6 and any("order 12 lowered to 6" in n for n in rel.notes)   # 4^6 x 64 B <= 1 MB


def test_in_memory_points_are_budgeted_as_well():
    rel = pv.build(SKEWED, DOM, "quadtree", 1.0, seed=1, height=9, prune=None, memory_limit="20MB")
    assert rel.params["height"] == 7 and rel.tree.n_nodes == quad_nodes(7)


def test_ags_second_level_is_scaled_down_together_to_fit():
    free = pv.build(SKEWED, DOM, "ag", 1.0, seed=1, resolution=12, m1=20)
    tight = pv.build(SKEWED, DOM, "ag", 1.0, seed=1, resolution=12, m1=20, memory_limit="2MB")   # 2,500 nodes
    assert free.tree.n_nodes > 2_500 >= tight.tree.n_nodes
    assert any("second level's sub-grids lowered" in n and "memory_limit 2MB" in n for n in tight.notes)
    m2_free, m2_tight = np.asarray(free.tree.n_children[1:401]), np.asarray(tight.tree.n_children[1:401])
    assert (m2_tight <= m2_free).all()           # every cell's sub-grid at most the rule's
    np.testing.assert_allclose(tight.tree.path_epsilons(), 1.0)


def test_privtree_is_cut_at_the_first_depth_that_would_pass_the_cap():
    free = pv.build(SKEWED, DOM, "privtree", 1.0, seed=1, resolution=12)
    tight = pv.build(SKEWED, DOM, "privtree", 1.0, seed=1, resolution=12, memory_limit="2MB")   # 2,500 nodes
    assert free.tree.n_nodes > 2_500 >= tight.tree.n_nodes
    cut = int(tight.tree.height)
    assert any(f"the tree cut at depth {cut}" in n for n in tight.notes)
    # the same decisions above the cut (a truncation of the same draws), the leaves measured with the rest
    top = free.tree.depth <= cut
    np.testing.assert_array_equal(np.sort(free.tree.rect[top], axis=0), np.sort(tight.tree.rect, axis=0))
    assert tight.ledger.total() == pytest.approx(1.0)
