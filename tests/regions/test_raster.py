"""The layer's raster answers exactly what the cell-by-cell point-in-polygon test answers: on the bundled
US counties and world countries, at a fine and a coarse grid, for random cells and for cells beside every
border; and on hand-made layers whose borders run along raster cell sides, diagonally through raster
corners, around an enclave and beside a gap."""
from __future__ import annotations

import geopandas as gpd
import numpy as np
import pytest
import shapely
from shapely.geometry import Polygon, box

import psdviz as pv
from psdviz.core.grid import Grid
from psdviz.regions import Regions, us_counties, world_countries
from psdviz.regions.assign import cells_to_regions, leaf_rows
from psdviz.regions.raster import MARKED, LeafRaster


def border_cells(regions: Regions, grid: Grid, n: int, seed: int) -> np.ndarray:
    """Grid cells within a few cells of the leaves' borders, plus uniform ones."""
    rng = np.random.default_rng(seed)
    vertices = shapely.get_coordinates(shapely.boundary(regions.geometry))
    step = np.array(grid.step)
    near = vertices[rng.integers(0, len(vertices), n)] + rng.normal(0, 3, (n, 2)) * step
    d = grid.domain
    near = near[(near[:, 0] >= d.xmin) & (near[:, 0] <= d.xmax) & (near[:, 1] >= d.ymin) & (near[:, 1] <= d.ymax)]
    return np.vstack([grid.keys(near), rng.integers(0, grid.size, (n, 2))])


def exact_and_raster(regions: Regions, grid: Grid, keys: np.ndarray):
    leaves = leaf_rows(regions.parent_index())
    raster = LeafRaster(regions.geometry, leaves, grid)
    return cells_to_regions(keys, grid, regions.geometry, leaves), raster.rows(keys[:, 0], keys[:, 1]), raster


@pytest.mark.parametrize("make", [us_counties, world_countries])
@pytest.mark.parametrize("bits", [20, 11])
def test_the_bundled_layers_raster_agrees_with_the_exact_test(make, bits):
    regions = make()
    grid = Grid(pv.Domain(*regions.bounds()), bits)
    keys = border_cells(regions, grid, 150_000, seed=bits)
    exact, fast, raster = exact_and_raster(regions, grid, keys)
    assert (exact >= 0).sum() > 100_000          # the cells tested lie mostly in regions
    np.testing.assert_array_equal(fast, exact)
    assert MARKED not in fast
    share = (raster.cells == MARKED).sum() / raster.cells.size
    assert share < 0.6                             # border tiles are mostly settled without a test


def hand_made() -> Regions:
    """Squares on raster cell sides, triangles meeting at raster corners, a ring around an enclave,
    and a gap (the strip 0.9 < x < 1)."""
    ring = Polygon([(0.5, 0.5), (0.875, 0.5), (0.875, 0.875), (0.5, 0.875)],
                   [[(0.625, 0.625), (0.75, 0.625), (0.75, 0.75), (0.625, 0.75)]])
    geoms = [box(0, 0, 0.25, 0.25), box(0.25, 0, 0.5, 0.25), box(0, 0.25, 0.5, 0.5),
             Polygon([(0.5, 0), (0.875, 0), (0.5, 0.375)]), Polygon([(0.875, 0), (0.875, 0.375), (0.5, 0.375)]),
             ring, box(0.625, 0.625, 0.75, 0.75), box(0, 0.5, 0.5, 1.0)]
    gdf = gpd.GeoDataFrame({"id": [f"r{i}" for i in range(len(geoms))]}, geometry=geoms, crs="EPSG:4326")
    return Regions.from_frame(gdf, id="id")


@pytest.mark.parametrize("bits", [10, 7, 5])
def test_borders_on_cell_sides_corners_an_enclave_and_a_gap(bits):
    regions = hand_made()
    grid = Grid(pv.Domain(0, 0, 1, 1), bits)
    every = np.argwhere(np.ones((grid.size, grid.size), bool))[:, ::-1] if bits <= 7 else None
    keys = every if every is not None else border_cells(regions, grid, 100_000, seed=1)
    exact, fast, _ = exact_and_raster(regions, grid, keys)
    np.testing.assert_array_equal(fast, exact)
    assert (exact == -1).any() and (exact == 6).any()      # the gap and the enclave are both seen


def test_counts_through_the_raster_equal_the_cell_by_cell_counts():
    regions = us_counties()
    rng = np.random.default_rng(5)
    xy = np.column_stack([rng.uniform(-125, -66, 200_000), rng.uniform(24, 50, 200_000)])
    rel = pv.build_regions(xy, regions, epsilon=1.0, seed=3)
    grid = Grid(pv.Domain(*regions.bounds()), 20)
    exact = cells_to_regions(grid.keys(xy), grid, regions.geometry, leaf_rows(regions.parent_index()))
    assert rel.input_report["rows_in_no_region"] == int((exact < 0).sum())


def test_a_layer_of_very_many_small_regions_is_drawn_coarser_and_stays_exact():
    """30,000 small quadrilaterals (jittered corners): the raster takes fewer cells across each leaf so
    its border samples stay bounded, and every cell still gets the exact test's region."""
    from psdviz.regions.raster import BORDER_SAMPLES, CELLS_ACROSS
    k = 174
    rng = np.random.default_rng(7)
    corners = np.stack(np.meshgrid(np.arange(k + 1), np.arange(k + 1), indexing="ij"), -1) / k
    corners[1:-1, 1:-1] += rng.uniform(-0.2, 0.2, (k - 1, k - 1, 2)) / k
    i, j = np.meshgrid(np.arange(k), np.arange(k), indexing="ij")
    ring = np.stack([corners[i, j], corners[i + 1, j], corners[i + 1, j + 1], corners[i, j + 1]], 2)
    geoms = shapely.polygons(ring.reshape(-1, 4, 2))
    regions = Regions.from_frame(gpd.GeoDataFrame({"id": np.arange(geoms.size).astype(str)}, geometry=geoms),
                                 id="id", crs=None)
    grid = Grid(pv.Domain(0, 0, 1, 1), 16)
    keys = border_cells(regions, grid, 60_000, seed=3)
    exact, fast, raster = exact_and_raster(regions, grid, keys)
    np.testing.assert_array_equal(fast, exact)
    assert 4 * CELLS_ACROSS * geoms.size > BORDER_SAMPLES        # the layer is one that is drawn coarser
    assert raster.rx == 12                     # 16 across the median leaf (32 across would be 2^13 cells)


def test_a_cell_beside_a_border_that_no_candidate_holds_is_outside_every_region():
    """A raster cell a border crosses, tested at a cell centre just outside the only leaf near it: no candidate
    holds it, so it lies in no region (the test once indexed an empty hit list with a one-element mask)."""
    tri = Polygon([(0, 0), (1, 0), (0, 1)])
    regions = Regions.from_frame(gpd.GeoDataFrame({"id": ["t"]}, geometry=[tri], crs="EPSG:4326"), id="id")
    grid = Grid(pv.Domain(0, 0, 1, 1), 12)
    outside = grid.keys(np.array([[0.5004, 0.5004], [0.7, 0.3004]]))       # beside the hypotenuse, outside
    inside = grid.keys(np.array([[0.499, 0.499]]))
    exact, fast, _ = exact_and_raster(regions, grid, np.vstack([outside, inside]))
    np.testing.assert_array_equal(fast, exact)
    assert list(fast) == [-1, -1, 0]
    for cells in (outside[:1], inside):                   # one cell alone, as a one-point data set gives
        np.testing.assert_array_equal(exact_and_raster(regions, grid, cells)[1], exact_and_raster(regions, grid,
                                                                                                  cells)[0])


def test_run_starts_is_empty_for_empty_keys_and_marks_every_change():
    from psdviz.core.ragged import run_starts
    assert run_starts(np.zeros(0, np.int64)).shape == (0,)
    assert list(run_starts(np.array([3, 3, 4, 4, 4, 1]))) == [True, False, True, False, False, True]
    assert list(run_starts(np.array([1, 1, 1]), np.array([0, 1, 1]))) == [True, True, False]
