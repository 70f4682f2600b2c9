"""Finer parts of a viewed cell drawn pale: they light the empty side of a cell holding a few far points,
stay rare on even data, never nest, and the pieces a map draws tile their cells exactly."""
from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

import psdviz as pv
from psdviz.present import PALE_WORDS, cell_pieces, frontier, legend_html, shade_grid, view_colours
from psdviz.publish.colours import PARTS_WORDS
from psdviz.publish.pale_parts import pale_parts

UNIT = pv.Domain(0.0, 0.0, 1.0, 1.0)
PIXELS = (np.arange(200) + 0.5) / 200


def _area(rect: np.ndarray) -> np.ndarray:
    return (rect[:, 2] - rect[:, 0]) * (rect[:, 3] - rect[:, 1])


@pytest.fixture(scope="module")
def island() -> np.ndarray:
    """20,000 points in one square and 150 on an island far from it: a kd-tree's upper cells hold both."""
    rng = np.random.default_rng(3)
    return np.concatenate([rng.uniform(0.1, 0.3, (20_000, 2)), rng.normal(0.9, 0.005, (150, 2))])


def _pale_share(rel, nodes, colours, pts) -> tuple[float, float]:
    """(share of the pixels holding no point drawn pale, share of those holding points drawn in a class)."""
    grid = shade_grid(rel, nodes, colours, PIXELS, PIXELS).T
    cnt, _, _ = np.histogram2d(pts[:, 0], pts[:, 1], bins=200, range=[[0, 1], [0, 1]])
    return float((grid[cnt == 0] == 0).mean()), float((grid[cnt > 0] > 0).mean())


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_a_cell_holding_an_island_leaves_the_water_beside_it_pale(island, seed):
    rel = pv.build(island, UNIT, method="kdtree", epsilon=0.5, seed=seed)
    nodes = frontier(rel.tree, 2)                     # 16 strips, most holding the square or the island
    colours = view_colours([(rel, nodes)])[0]
    without = dataclasses.replace(colours, parts=np.zeros(0, np.int64))
    empty_pale, held_drawn = _pale_share(rel, nodes, colours, island)
    before, _ = _pale_share(rel, nodes, without, island)
    assert before < 0.1                               # the cells alone paint the water as data
    assert empty_pale >= 0.8 and held_drawn >= 0.95, (empty_pale, held_drawn)


def test_even_points_rarely_get_pale_parts():
    """On uniform points a part is pale only when its estimate falls two noise sds below its area's share of
    its cell: for Laplace noise at most 1/2 exp(-2 sqrt 2) = 0.030 of each level's area on average (a
    level's nodes tile the domain; least squares only narrows the noise), so at most 0.030 per level tested."""
    pts = np.random.default_rng(5).uniform(0, 1, (50_000, 2))
    rel = pv.build(pts, UNIT, method="kdtree", epsilon=0.5, seed=11)
    nodes = frontier(rel.tree, 2)
    parts = pale_parts(rel, nodes)
    levels = rel.tree.height - 2
    assert _area(rel.tree.rect[parts]).sum() <= 0.5 * math.exp(-2 * math.sqrt(2)) * levels


@pytest.mark.parametrize("method", ["kdtree", "quadtree", "hybrid"])
def test_parts_lie_in_one_viewed_cell_and_never_nest(island, method):
    rel = pv.build(island, UNIT, method=method, epsilon=0.5, seed=4)
    t = rel.tree
    nodes = frontier(t, 2)
    parts = pale_parts(rel, nodes)
    assert parts.size and not np.isin(parts, nodes).any()
    ancestors = []
    for p in parts:                                   # a test's loop over a few hundred parts
        chain, v = [], int(t.parent[p])
        while v >= 0:
            chain.append(v)
            v = int(t.parent[v])
        ancestors.append(chain)
        assert np.isin(chain, nodes).sum() == 1       # under exactly one viewed cell
    assert not np.isin(np.concatenate(ancestors), parts).any()


def test_the_pieces_tile_their_cells(island):
    rel = pv.build(island, UNIT, method="kdtree", epsilon=0.5, seed=2)
    nodes = frontier(rel.tree, 3)
    colours = view_colours([(rel, nodes)])[0]
    pieces, cell = cell_pieces(rel, nodes, colours.parts)
    assert np.isin(colours.parts, pieces).all()
    split = np.unique(cell)
    np.testing.assert_allclose(np.bincount(cell, _area(rel.tree.rect[pieces]), nodes.size)[split],
                               _area(rel.tree.rect[nodes[split]]))
    r = rel.tree.rect[pieces]                         # and do not overlap: every pixel centre in at most one
    x, y = PIXELS[None, :, None], PIXELS[None, None, :]
    inside = ((r[:, 0, None, None] <= x) & (x < r[:, 2, None, None])
              & (r[:, 1, None, None] <= y) & (y < r[:, 3, None, None]))
    assert inside.sum(axis=0).max() == 1


def test_no_parts_for_leaves_or_overlapping_boxes(island):
    kd = pv.build(island, UNIT, method="kdtree", epsilon=0.5, seed=1)
    assert pale_parts(kd, kd.tree.leaf_index()).size == 0
    hil = pv.build(island, UNIT, method="hilbert", epsilon=0.5, seed=1)
    assert pale_parts(hil, frontier(hil.tree, 1)).size == 0


def test_the_legend_says_so_when_parts_are_drawn(island):
    rel = pv.build(island, UNIT, method="kdtree", epsilon=0.5, seed=1)
    with_parts = view_colours([(rel, frontier(rel.tree, 2))])[0]
    leaves = view_colours([(rel, rel.tree.leaf_index())])[0]
    assert with_parts.parts.size and PARTS_WORDS in legend_html(with_parts)
    assert PALE_WORDS in legend_html(leaves) and PARTS_WORDS not in legend_html(leaves)
    for html in (legend_html(with_parts), legend_html(leaves)):   # one sentence: clauses joined, a full stop
        assert html.endswith(".</div>") and "; ." not in html and not html.endswith(";</div>")


def test_the_legend_rounds_its_class_edges_for_people_and_keeps_them_apart():
    """Edges of dense cells read as two significant digits (1,234,567 points per square degree is 1,200,000), with
    a third only where two edges would otherwise read alike."""
    from psdviz.present import legend_entries
    from psdviz.publish.colours import Colours
    edges = tuple(math.log10(v) for v in (0.01234, 12.34, 1_234_567.0, 9_876_543.0))
    ranges = [text for _, text in legend_entries(Colours(np.zeros(3, np.int64), edges[0], edges[-1], edges))]
    assert ranges == ["0.012-12", "12-1,200,000", "1,200,000-9,900,000"]
    close = tuple(math.log10(v) for v in (1000.0, 1040.0, 1100.0))
    ranges = [text for _, text in legend_entries(Colours(np.zeros(2, np.int64), close[0], close[-1], close))]
    assert ranges == ["1,000-1,040", "1,040-1,100"]
