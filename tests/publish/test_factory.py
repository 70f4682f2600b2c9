"""One factory makes every spatial release, and it checks the ledger's claims before the release exists:
no path spends more than the ledger, and parallel steps measured disjoint regions."""
from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import numpy as np
import pytest

import psdviz as pv
from psdviz.core.grid import Grid
from psdviz.core.ledger import Ledger
from psdviz.core.parallel import Checked, CurveRanges, TreeTiling, children_tile
from psdviz.core.tree import FlatTree
from psdviz.publish.factory import make_release

ENGINE = Path(pv.__file__).parent
PTS = np.random.default_rng(4).random((4000, 2))
UNIT = pv.Domain(0, 0, 1, 1)


def _constructor_calls() -> list[str]:
    found = []
    for path in ENGINE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Release":
                found.append(str(path.relative_to(ENGINE)))
    return found


def test_the_factory_is_the_only_place_a_release_is_constructed():
    assert _constructor_calls() == ["publish/factory.py"]


@pytest.mark.parametrize("method", pv.METHODS)
def test_every_method_builds_through_the_factory_and_its_levels_are_proven_disjoint(method):
    rel = pv.build(PTS, UNIT, method=method, epsilon=1.0, seed=5)
    if method != "hilbert":   # its boxes overlap by design; its curve ranges are checked while building
        assert TreeTiling.of(rel.tree, rel.grid).deepest == rel.tree.height


def _tree(rects: list[list[int]], parent: list[int], grid: Grid) -> FlatTree:
    n = len(rects)
    parent = np.array(parent, dtype=np.int64)
    depth = np.zeros(n, dtype=np.int16)
    for v in range(1, n):
        depth[v] = depth[parent[v]] + 1
    n_children = np.bincount(parent[parent >= 0], minlength=n).astype(np.int32)
    first = np.full(n, -1, dtype=np.int64)
    for v in range(n - 1, 0, -1):
        first[parent[v]] = v
    z = np.zeros(n)
    return FlatTree(rect=grid.rects(np.array(rects)), depth=depth, parent=parent, first_child=first,
                    n_children=n_children, noisy=z.copy(), count_eps=z.copy(), split_eps=z.copy(),
                    noise_var=z.copy())


GRID = Grid(UNIT, 4)


@pytest.mark.parametrize(("children", "tiles"), [
    ([[0, 0, 8, 16], [8, 0, 16, 16]], True),                                   # two halves
    ([[0, 0, 8, 8], [8, 0, 16, 8], [0, 8, 8, 16], [8, 8, 16, 16]], True),      # four quarters
    ([[0, 0, 10, 16], [8, 0, 16, 16]], False),                                 # overlap, area too big
    ([[0, 0, 8, 16], [8, 0, 16, 12]], False),                                  # a gap
    ([[0, 0, 10, 16], [8, 0, 16, 12], [10, 12, 16, 16]], False),               # overlap and gap, same area
    ([[0, 0, 16, 16], [0, 0, 16, 16], [0, 0, 16, 16]], False),                 # three copies: odd corners right
    ([[0, 0, 16, 16], [4, 4, 4, 12]], True),                                   # a child of zero area holds nothing
    ([[0, 0, 8, 16], [8, 0, 17, 16]], False),                                  # outside the parent
])
def test_children_tile_their_parent_exactly(children, tiles):
    tree = _tree([[0, 0, 16, 16], *children], [-1] + [0] * len(children), GRID)
    assert bool(children_tile(tree, GRID.positions(tree.rect))[0]) is tiles


def test_tiling_agrees_with_painting_the_boxes_on_random_child_sets():
    rng = np.random.default_rng(11)
    seen = set()
    for _ in range(300):
        k = int(rng.integers(2, 5))
        if rng.random() < 0.5:   # a true tiling: cut the parent at random grid lines
            xs = np.sort(rng.choice(np.arange(1, 16), k - 1, replace=False))
            edges = np.r_[0, xs, 16]
            kids = [[int(a), 0, int(b), 16] for a, b in zip(edges[:-1], edges[1:])]
        else:
            lo = rng.integers(0, 12, (k, 2))
            hi = lo + rng.integers(1, 9, (k, 2))
            kids = np.column_stack([lo, np.minimum(hi, 16)]).tolist()
        paint = np.zeros((16, 16), dtype=int)
        for x0, y0, x1, y1 in kids:
            paint[y0:y1, x0:x1] += 1
        truth = bool((paint == 1).all())
        tree = _tree([[0, 0, 16, 16], *kids], [-1] + [0] * k, GRID)
        assert bool(children_tile(tree, GRID.positions(tree.rect))[0]) is truth, kids
        seen.add(truth)
    assert seen == {True, False}


@pytest.mark.parametrize("right_fanout", [None, 5])
def test_tiling_of_two_parents_agrees_with_painting(right_fanout):
    """Two parents side by side: random children in the left half, a tiling of the right half with as many
    children (every parent the same fanout: the row-sorted test) or with five (the general test)."""
    rng = np.random.default_rng(12)
    seen = set()
    for _ in range(200):
        k = int(rng.integers(2, 5))
        if rng.random() < 0.5:   # a true tiling of the left half
            edges = np.r_[0, np.sort(rng.choice(np.arange(1, 8), k - 1, replace=False)), 8]
            left = [[int(a), 0, int(b), 16] for a, b in zip(edges[:-1], edges[1:])]
        else:
            lo = rng.integers(0, 6, (k, 2))
            hi = lo + rng.integers(1, 9, (k, 2))
            left = np.column_stack([lo[:, 0], lo[:, 1], np.minimum(hi[:, 0], 8), np.minimum(hi[:, 1], 16)]).tolist()
        m = k if right_fanout is None else right_fanout
        cuts = np.r_[0, np.sort(rng.choice(np.arange(1, 16), m - 1, replace=False)), 16]
        right = [[8, int(a), 16, int(b)] for a, b in zip(cuts[:-1], cuts[1:])]
        paint = np.zeros((16, 8), dtype=int)
        for x0, y0, x1, y1 in left:
            paint[y0:y1, x0:x1] += 1
        truth = bool((paint == 1).all())
        tree = _tree([[0, 0, 16, 16], [0, 0, 8, 16], [8, 0, 16, 16], *left, *right],
                     [-1, 0, 0] + [1] * k + [2] * m, GRID)
        ok = children_tile(tree, GRID.positions(tree.rect))
        assert bool(ok[1]) is truth and bool(ok[2]) and bool(ok[0]), left
        seen.add(truth)
    assert seen == {True, False}


def test_the_ledger_refuses_a_parallel_step_over_overlapping_regions():
    tree = _tree([[0, 0, 16, 16], [0, 0, 10, 16], [8, 0, 16, 16]], [-1, 0, 0], GRID)
    ledger = Ledger(1.0)
    ledger.spend("count", 1.0, "geometric", level=1, nodes=2)
    assert not TreeTiling.of(tree, GRID).disjoint(1)
    with pytest.raises(ValueError, match=r"level 1 .*not proven disjoint"):
        ledger.check_parallel(TreeTiling.of(tree, GRID))
    rel = pv.build(PTS, UNIT, method="quadtree", epsilon=1.0, seed=1, height=2)
    with pytest.raises(ValueError, match="not proven disjoint"):
        make_release("x", {}, UNIT, tree, ledger, rel.randomness, {}, consistent=False, grid=GRID,
                     query_model={"answer": "tree", "variance": "none"})
    ledger.check_parallel(Checked(frozenset({1}), "checked elsewhere"))   # a proof for level 1 lets it pass


def test_the_factory_refuses_a_path_that_spends_more_than_the_ledger():
    rel = pv.build(PTS, UNIT, method="quadtree", epsilon=1.0, seed=1, height=2)
    t = rel.tree
    tree = dataclasses.replace(t, count_eps=np.asarray(t.count_eps) * 2, rect=np.array(t.rect),
                               noisy=np.array(t.noisy))
    kw = dict(consistent=rel.consistent, grid=rel.grid, query_model=rel.query_model)
    with pytest.raises(ValueError, match="more than the 1 its ledger recorded"):
        make_release("quadtree", {}, UNIT, tree, rel.ledger, rel.randomness, {}, **kw)
    same = make_release("quadtree", {}, UNIT, dataclasses.replace(t), rel.ledger, rel.randomness, {}, **kw)
    np.testing.assert_array_equal(same.answer(np.array([[0.1, 0.2, 0.7, 0.9]])),
                                  rel.answer(np.array([[0.1, 0.2, 0.7, 0.9]])))


def test_the_factory_refuses_an_unknown_query_model_now_not_at_the_first_query():
    rel = pv.build(PTS, UNIT, method="quadtree", epsilon=1.0, seed=1, height=2)
    with pytest.raises(ValueError, match="unknown query model"):
        make_release("quadtree", {}, UNIT, rel.tree, rel.ledger, rel.randomness, {}, consistent=True,
                     grid=rel.grid, query_model={"answer": "magic", "variance": "none"})
    with pytest.raises(ValueError, match="unknown query model"):
        rel.evolve(query_model={"answer": "tree", "variance": "magic"})


def test_curve_ranges_prove_disjointness_only_when_consecutive():
    assert CurveRanges.of(np.array([0, 4, 9]), np.array([4, 9, 16])).disjoint(3)
    assert not CurveRanges.of(np.array([0, 3, 9]), np.array([4, 9, 16])).disjoint(0)


def test_a_region_layer_made_without_its_check_is_checked_before_its_counts_are_composed_in_parallel():
    import geopandas as gpd
    from shapely.geometry import box

    from psdviz.regions.layer import Regions

    frame = gpd.GeoDataFrame({"id": ["a", "b"], "name": ["a", "b"], "parent": [None, None], "level": [0, 0]},
                             geometry=[box(0, 0, 0.6, 1), box(0.4, 0, 1, 1)], crs="EPSG:4326")
    with pytest.raises(ValueError, match="overlap"):
        Regions.from_frame(frame, id="id")
    with pytest.raises(ValueError, match="overlap"):      # made around the check: refused when built
        pv.build_regions(PTS, Regions(frame), epsilon=1.0, seed=2)
    fine = frame.set_geometry([box(0, 0, 0.5, 1), box(0.5, 0, 1, 1)])
    rel = pv.build_regions(PTS, Regions(fine), epsilon=1.0, seed=2)
    assert rel.ledger.total() == pytest.approx(1.0)


def test_tiling_does_not_depend_on_the_order_children_are_stored_in():
    """Children stored parent by parent (every builder's order, read without sorting) or interleaved (sorted
    first): the same verdict per parent, on tilings and on overlaps."""
    rng = np.random.default_rng(5)
    for _ in range(100):
        cuts = [np.r_[0, np.sort(rng.choice(np.arange(1, 16), 2, replace=False)), 16] for _ in range(2)]
        left = [[0, int(a), 8, int(b)] for a, b in zip(cuts[0][:-1], cuts[0][1:])]
        right = [[8, int(a), 16, int(b)] for a, b in zip(cuts[1][:-1], cuts[1][1:])]
        if rng.random() < 0.5:
            left[0][2] = 9                                   # overlaps the right half: not a tiling
        head = [[0, 0, 16, 16], [0, 0, 8, 16], [8, 0, 16, 16]]
        grouped = _tree(head + left + right, [-1, 0, 0, 1, 1, 1, 2, 2, 2], GRID)
        mixed = _tree(head + [left[0], right[0], left[1], right[1], left[2], right[2]],
                      [-1, 0, 0, 1, 2, 1, 2, 1, 2], GRID)
        a = children_tile(grouped, GRID.positions(grouped.rect))[:3]
        b = children_tile(mixed, GRID.positions(mixed.rect))[:3]
        assert (a == b).all() and bool(a[1]) is (left[0][2] == 8)


def test_four_children_as_quadrants_or_not_agree_with_painting():
    """Four children stored in order: the quadrants at a random inner point in a random order (the one-pass
    test), those quadrants with one edge moved (an overlap or a gap), or four strips (a tiling the one-pass
    test does not show, left to the general test): the verdict is the painting's every time."""
    from psdviz.core.parallel import _quartered
    rng = np.random.default_rng(13)
    shown = set()
    for _ in range(300):
        mx, my = (int(v) for v in rng.integers(0, 17, 2))
        kids = [[0, 0, mx, my], [mx, 0, 16, my], [0, my, mx, 16], [mx, my, 16, 16]]
        kind = rng.random()
        if kind < 0.3:                                   # one edge moved by one, kept inside the parent
            k, side = int(rng.integers(4)), int(rng.integers(4))
            kids[k][side] = min(max(kids[k][side] + int(rng.choice([-1, 1])), 0), 16)
        elif kind < 0.45:
            edges = np.r_[0, np.sort(rng.choice(np.arange(1, 16), 3, replace=False)), 16]
            kids = [[int(a), 0, int(b), 16] for a, b in zip(edges[:-1], edges[1:])]
        if any(x0 > x1 or y0 > y1 for x0, y0, x1, y1 in kids):
            continue                                     # not a rectangle
        kids = [kids[i] for i in rng.permutation(4)]
        paint = np.zeros((16, 16), dtype=int)
        for x0, y0, x1, y1 in kids:
            paint[y0:y1, x0:x1] += 1
        truth = bool((paint == 1).all())
        tree = _tree([[0, 0, 16, 16], *kids], [-1, 0, 0, 0, 0], GRID)
        pos = GRID.positions(tree.rect)
        assert bool(children_tile(tree, pos)[0]) is truth, kids
        shown.add((truth, bool(_quartered(tree, pos)[0])))
    assert shown == {(True, True), (True, False), (False, False)}
