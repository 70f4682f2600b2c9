"""Honest colours: on uniform points the drawn map is near uniform, whatever the method and epsilon.
The stated measure: at least 95 % of the map's area lies in three consecutive colour classes (noise of
plus or minus two standard deviations spans at most three classes two standard deviations wide), so
the map shows one level with noise around it; a cell within noise of zero is pale whatever the class
breaks; the GeoNames sample keeps its structure (at least five classes drawn)."""
from __future__ import annotations

import re

import numpy as np
import pytest

import psdviz as pv
from psdviz.io.samples import sample_points
from psdviz.publish.cells import within_noise
from psdviz.ui.map_layers import LOW_SHARE, colour_bins, view_colours

UNIFORM = np.random.default_rng(0).uniform([-10, 35], [30, 60], (100_000, 2))
DOM = pv.Domain(-10, 35, 30, 60)


def _colours(rel):
    nodes = rel.tree.leaf_index()
    r = rel.tree.rect[nodes]
    area = (r[:, 2] - r[:, 0]) * (r[:, 3] - r[:, 1])
    return view_colours([(rel, nodes)])[0], area


@pytest.mark.parametrize("method", ["auto", "quadtree", "ug", "kdtree", "hybrid", "privtree", "ag", "htree"])
@pytest.mark.parametrize("eps", [0.1, 1.0])
def test_uniform_points_draw_a_near_uniform_map(method, eps):
    rel = pv.build(UNIFORM, DOM, method, eps, seed=1)
    c, area = _colours(rel)
    drawn = c.index > 0                                         # the data classes (pale: below)
    classes = np.unique(c.index[drawn])
    rank = np.searchsorted(classes, c.index[drawn])             # consecutive class numbers
    per_class = np.bincount(rank, weights=area[drawn], minlength=classes.size)
    window = np.convolve(per_class, np.ones(3), mode="full")[: classes.size + 2].max()
    assert window >= 0.95 * area[drawn].sum(), per_class / area[drawn].sum()
    # a cell within two noise sds of zero is pale whatever the breaks (the release cannot tell it from
    # empty); otherwise only the sparsest cells, holding LOW_SHARE of the points, are pale
    faint = within_noise(rel.tree, rel.tree.leaf_index())
    assert (c.index[faint] == 0).all()
    est = np.maximum(rel.tree.est[rel.tree.leaf_index()], 0)
    low = (c.index == 0) & ~faint                               # within one cell of the quantile (interpolated)
    assert est[low].sum() <= LOW_SHARE * est[~faint].sum() + est[~faint].max()


def test_the_geonames_sample_keeps_its_structure():
    c, area = _colours(pv.build(sample_points("geonames"), pv.Domain.world(), "auto", 1.0, seed=1))
    assert np.unique(c.index).size >= 5
    assert area[c.index == 0].sum() >= 0.1 * area.sum()       # empty oceans stay pale


def test_steps_are_never_finer_than_the_noise():
    rng = np.random.default_rng(2)
    density = 10 ** rng.uniform(0, 3, 500)
    c = colour_bins(density, None, np.full(500, 0.5), np.ones(500))
    assert np.diff(c.edges).min() >= np.log10(1 + 2 * 0.5) - 1e-12


def test_a_cell_with_pale_parts_is_drawn_as_its_pieces_under_its_own_outline():
    """The map never lays a pale part over its cell's colour (two fills would blend into a third colour):
    such a cell is drawn as its pieces, the parts pale with their borders, the rest in the cell's class
    without inner borders, and the cell's outline on top."""
    from psdviz.present import cell_pieces, frontier
    from psdviz.ui.map_layers import cell_table
    rng = np.random.default_rng(3)
    pts = np.concatenate([rng.uniform(0.1, 0.3, (20_000, 2)), rng.normal(0.9, 0.005, (150, 2))])
    rel = pv.build(pts, pv.Domain(0, 0, 1, 1), "kdtree", 0.5, seed=1)
    nodes = frontier(rel.tree, 2)
    colours = view_colours([(rel, nodes)])[0]
    pieces, cell = cell_pieces(rel, nodes, colours.parts)
    rows, edges = cell_table(rel, nodes, colours)
    split = np.unique(cell)
    assert rows.shape[0] == nodes.size - split.size + pieces.size and edges.shape[0] == split.size
    area = (rows[:, 2] - rows[:, 0]) * (rows[:, 3] - rows[:, 1])
    assert area.sum() == pytest.approx(1.0, abs=1e-6)              # the rows tile the domain once
    inner = rows[:, 8] == 0                                        # the pieces drawn without borders: not parts
    assert (rows[inner, 4] == np.asarray(colours.index)[cell[~np.isin(pieces, colours.parts)]]).all()
    assert (rows[rows.shape[0] - pieces.size:][np.isin(pieces, colours.parts), 4] == 0).all()


def test_every_map_the_pages_draw_is_on_the_pages_white():
    """Leaflet's grey background showed through offline as a colour no legend has: every module of the pages that
    makes a map (a line ``name = folium.Map(``, or ``DualMap(``: two maps) puts each map on the page's white
    (``Paper().add_to(``, once a map); one that does not is named."""
    from pathlib import Path
    ui = Path(__file__).resolve().parents[2] / "psdviz" / "ui"
    maker = re.compile(r"^\s*\w+\s*=\s*(folium\.Map|DualMap)\(", re.M)
    texts = {p.name: p.read_text() for p in sorted(ui.glob("*.py"))}
    maps = {name: sum(2 if m == "DualMap" else 1 for m in maker.findall(t)) for name, t in texts.items()}
    makers = {name: n for name, n in maps.items() if n}
    assert len(makers) >= 4 and any(n >= 2 for n in makers.values())
    grey = [name for name, n in makers.items() if texts[name].count("Paper().add_to(") < n]
    assert not grey, grey


def test_the_teach_pages_linked_maps_are_both_on_the_pages_white():
    """The Teach page's two side-by-side maps (a DualMap, ``map_div`` and ``map_div2`` in the browser) each get the
    page's white, as streamlit-folium sends them: Leaflet's grey showed as a band between them and beyond the domain."""
    from streamlit_folium import _get_map_string

    from psdviz.ui.basemap import PAPER
    from psdviz.ui.teach_view import linked_maps
    rel = pv.build(UNIFORM[:2000], DOM, "quadtree", 1.0, seed=1)
    dual, _, _ = linked_maps(rel, rel)
    script = _get_map_string(dual)
    for name in ("map_div", "map_div2"):
        assert re.search(rf"\b{name}\.getContainer\(\)\.style\.background = \"{PAPER}\"", script), name
