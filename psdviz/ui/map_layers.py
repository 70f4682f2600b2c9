"""The folium map of a release: cells coloured by estimated density, optional true points, Draw.

Up to :data:`MAX_SHAPES` cells are drawn as rectangles on a canvas renderer with tooltips;
beyond that the view is a raster overlay (one pixel = the cell containing its centre, rasterised by
the engine) and a click is looked up by the page, so the browser stays responsive. An optional
OpenStreetMap basemap removes itself on the first failed tile, so the map works offline as before
(Leaflet itself is served by the app, see :mod:`psdviz.ui.assets`). Thin
grey country outlines (:mod:`psdviz.ui.outlines`) sit above the cells without catching the pointer,
when the domain is lon/lat and the outline file was fetched.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass

import folium
import numpy as np
from branca.element import MacroElement
from folium.plugins import Draw
from folium.template import Template

from psdviz import Release
from psdviz.present import (  # noqa: F401  (re-exported: the pages import them from here)
    LOW_SHARE,
    PALE_WORDS,
    PALETTE,
    Colours,
    cell_pieces,
    colour_bins,
    frontier,
    legend_html,
    mercator_centres,
    shade_grid,
    view_colours,
)

from .assets import use_local_leaflet
from .outlines import OutlineLayer, countries, is_lon_lat

MAX_SHAPES = 5000
LAT_LIMIT = 85.0
POINT_LIMIT = 3000
QUERY_COLOUR = "#0a7d00"


def _bounds(release: Release) -> list[list[float]]:
    d = release.domain
    return [[max(d.ymin, -LAT_LIMIT), d.xmin], [min(d.ymax, LAT_LIMIT), d.xmax]]


class CellsLayer(MacroElement):
    """Cells as Leaflet rectangles from a compact array (x0, y0, x1, y1, colour, level, noisy, estimate,
    stroke), and the outlines of the cells drawn as pieces.

    folium's GeoJson embeds ~350 bytes of JSON per cell that branca then re-parses as a Jinja
    template (twice per run inside streamlit-folium); this layer sends ~50 bytes per cell, which
    keeps a 5,000-cell map's rerun and first paint fast. Clicks reach streamlit-folium because
    every rectangle is a layer of the map; the tooltip shows the released counts.
    """

    _template = Template("""
        {% macro script(this, kwargs) %}
        var {{ this.get_name() }} = (function () {
            var rows = {{ this.rows }}, edges = {{ this.edges }}, pal = {{ this.palette }}, g = L.featureGroup();
            for (var i = 0; i < rows.length; i++) {
                var r = rows[i];
                var cell = L.rectangle([[r[1], r[0]], [r[3], r[2]]],
                    {color: "#555555", weight: 0.4, stroke: r[8] === 1, fillColor: pal[r[4]], fillOpacity: 0.55});
                cell.bindTooltip("level " + r[5] + "<br>noisy count " + (r[6] === null ? "not measured" : r[6])
                    + "<br>estimated count " + r[7], {sticky: true});
                g.addLayer(cell);
            }
            for (var j = 0; j < edges.length; j++) {
                var e = edges[j];
                g.addLayer(L.rectangle([[e[1], e[0]], [e[3], e[2]]],
                    {color: "#555555", weight: 0.4, fill: false, interactive: false}));
            }
            return g;
        })().addTo({{ this._parent.get_name() }});
        {% endmacro %}
    """)

    def __init__(self, rows: str, edges: str, palette: list[str]):
        super().__init__()
        self._name = "CellsLayer"
        self.rows = rows
        self.edges = edges
        self.palette = json.dumps(palette)


def _rows(release: Release, shown: np.ndarray, colour: np.ndarray, about: np.ndarray, stroke: np.ndarray) -> list:
    """[x0, y0, x1, y1, colour, level, noisy, estimate, stroke] of each rectangle ``shown``; the tooltip
    tells of the node ``about`` (a piece of a cell speaks for its cell)."""
    t = release.tree
    r = np.round(t.rect[shown], 5).tolist()
    noisy = [None if not math.isfinite(v) else round(v, 1) for v in t.noisy[about].tolist()]
    est = np.round(t.est[about], 1).tolist()
    return [[*rc, c, lv, ny, e, s] for rc, c, lv, ny, e, s in
            zip(r, colour.tolist(), t.depth[about].tolist(), noisy, est, stroke.tolist())]


def _shapes_layer(release: Release, nodes: np.ndarray, colours: Colours) -> CellsLayer:
    """The cells; a cell holding pale parts (:func:`psdviz.publish.pale_parts.pale_parts`) is drawn as its
    pieces (the parts pale, the rest in its class, without inner borders) under its own outline."""
    pieces, cell = cell_pieces(release, nodes, colours.parts)
    split = np.zeros(nodes.size, bool)
    split[cell] = True
    whole = np.flatnonzero(~split)
    is_part = np.isin(pieces, colours.parts)
    index = np.asarray(colours.index)
    rows = (_rows(release, nodes[whole], index[whole], nodes[whole], np.ones(whole.size, int))
            + _rows(release, pieces, np.where(is_part, 0, index[cell]), np.where(is_part, pieces, nodes[cell]),
                    is_part.astype(int)))
    edges = np.round(release.tree.rect[nodes[split]], 5).tolist()
    return CellsLayer(json.dumps(rows, separators=(",", ":")), json.dumps(edges, separators=(",", ":")), PALETTE)


def _hex_rgba(c: str, alpha: int) -> list[int]:
    return [int(c[1:3], 16), int(c[3:5], 16), int(c[5:7], 16), alpha]


def _raster_layer(release: Release, nodes: np.ndarray, colours: Colours,
                  width: int = 720) -> folium.raster_layers.ImageOverlay:
    (lat0, lon0), (lat1, lon1) = _bounds(release)
    height = int(np.clip(width * (lat1 - lat0) / max(lon1 - lon0, 1e-9) * 1.2, 200, 900))
    xs = lon0 + (np.arange(width) + 0.5) * (lon1 - lon0) / width
    ys = mercator_centres(lat0, lat1, height)
    rgba = np.array([_hex_rgba(c, 150) for c in PALETTE] + [[0, 0, 0, 0]], dtype=np.uint8)  # the last: no cell
    img = rgba[shade_grid(release, nodes, colours, xs, ys)][::-1]  # north up
    return folium.raster_layers.ImageOverlay(png_data_url(img), bounds=[[lat0, lon0], [lat1, lon1]],
                                             name="private cells (raster)", interactive=True, mercator_project=False)


def png_data_url(img: np.ndarray) -> str:
    """An RGBA image as a PNG data URL, compressed fast (zlib level 1: a few per cent larger than
    branca's level 9 for these flat-coloured rasters, several times quicker)."""
    import base64
    import io

    from PIL import Image
    buf = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(img), "RGBA").save(buf, format="PNG", compress_level=1)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


def _points_layer(points: np.ndarray) -> folium.FeatureGroup:
    fg = folium.FeatureGroup(name="TRUE POINTS (not private)")
    n = points.shape[0]
    take = points if n <= POINT_LIMIT else points[np.linspace(0, n - 1, POINT_LIMIT).astype(int)]
    gj = {"type": "FeatureCollection", "features": [
        {"type": "Feature", "geometry": {"type": "Point", "coordinates": [x, y]}, "properties": {}}
        for x, y in take.tolist()]}
    folium.GeoJson(gj, marker=folium.CircleMarker(radius=1.5, color="#0055ff", fill=True, weight=1)).add_to(fg)
    return fg


@dataclass
class MapInfo:
    nodes: np.ndarray
    raster: bool
    colours: Colours
    outlines: bool = False

    @property
    def clickable(self) -> np.ndarray:
        """The cells a click can land in: the view's cells and the pale parts drawn over them (the smallest
        holding the click is the one shown)."""
        return np.concatenate([self.nodes, self.colours.parts])


class OneDrawing(MacroElement):
    """Starting a new rectangle clears the rectangles drawn before (Leaflet.draw keeps them all): the
    map shows one drawn query at a time, the kept query outline marks the one answered."""

    _template = Template("""
        {% macro script(this, kwargs) %}
        {{ this._parent.get_name() }}.on("draw:drawstart", function () {
            drawnItems_{{ this.draw.get_name() }}.clearLayers();
        });
        // the drawn shapes, reachable from the map's element (the map's script runs in a closure)
        {{ this._parent.get_name() }}.getContainer().drawnItems = drawnItems_{{ this.draw.get_name() }};
        {% endmacro %}
    """)

    def __init__(self, draw: Draw):
        super().__init__()
        self._name = "OneDrawing"
        self.draw = draw


class ClearDrawn(MacroElement):
    """Part of a kept query typed in (not drawn): it clears the map's drawn rectangles when the overlay is
    applied, so the map shows one rectangle, the one answered. streamlit-folium runs an overlay's script with
    the map as ``map_div``."""

    _template = Template("""
        {% macro script(this, kwargs) %}
        if (typeof map_div !== "undefined" && map_div.getContainer().drawnItems) {
            map_div.getContainer().drawnItems.clearLayers();
        }
        {% endmacro %}
    """)

    def __init__(self):
        super().__init__()
        self._name = "ClearDrawn"


TRANSPARENT_GIF = "data:image/gif;base64,R0lGODlhAQABAAAAACH5BAEKAAEALAAAAAABAAEAAAICTAEAOw=="


class Basemap(MacroElement):
    """OpenStreetMap's standard tiles under the cells, with their attribution. Offline (or blocked),
    the first tile error removes the layer: failed tiles show as transparent (never a broken-image
    icon) and no further tiles are requested, so the map looks as it does without a basemap."""

    _template = Template("""
        {% macro script(this, kwargs) %}
        (function (map) {
            var layer = L.tileLayer("https://tile.openstreetmap.org/{z}/{x}/{y}.png", {
                maxZoom: 19, errorTileUrl: {{ this.blank|tojson }},
                attribution: '&copy; <a href="https://www.openstreetmap.org/copyright">OpenStreetMap</a> contributors'
            });
            layer.once("tileerror", function () { map.removeLayer(layer); });
            layer.addTo(map);
        })({{ this._parent.get_name() }});
        {% endmacro %}
    """)

    def __init__(self):
        super().__init__()
        self._name = "Basemap"
        self.blank = TRANSPARENT_GIF


def make_map(release: Release, depth: int, true_points: np.ndarray | None = None,
             outlines: bool = True, basemap: bool = False) -> tuple[folium.Map, MapInfo]:
    """Build the folium map for the view down to ``depth``; ``outlines``: add the country borders
    (only drawn for a lon/lat domain when the outline file is there); ``basemap``: OpenStreetMap tiles
    under the cells (lon/lat domains only; removed on the first tile error, e.g. offline)."""
    nodes = frontier(release.tree, depth)
    colours = view_colours([(release, nodes)])[0]
    b = _bounds(release)
    m = folium.Map(location=[(b[0][0] + b[1][0]) / 2, (b[0][1] + b[1][1]) / 2], zoom_start=2, tiles=None,
                   prefer_canvas=True, world_copy_jump=False, control_scale=True, zoom_snap=0.1)
    m.fit_bounds(b)
    d = release.domain
    if basemap and is_lon_lat(d.xmin, d.ymin, d.xmax, d.ymax):
        Basemap().add_to(m)
    raster = nodes.size > MAX_SHAPES
    borders = add_release_layers(m, release, nodes, colours, outlines)
    if true_points is not None:
        _points_layer(true_points).add_to(m)
    draw = Draw(draw_options={"polyline": False, "polygon": False, "circle": False, "marker": False,
                              "circlemarker": False, "rectangle": {"shapeOptions": {"color": QUERY_COLOUR}}},
                edit_options={"edit": False}, show_geometry_on_click=False)
    draw.add_to(m)
    OneDrawing(draw).add_to(m)
    use_local_leaflet(m, draw)
    return m, MapInfo(nodes, raster, colours, borders)


def add_release_layers(m, release: Release, nodes: np.ndarray, colours: Colours, outlines: bool) -> bool:
    """The cells (shapes, or a raster above :data:`MAX_SHAPES`) and, when asked and available, the
    country outlines, added to the folium map ``m``; True when outlines were drawn."""
    raster = nodes.size > MAX_SHAPES
    (_raster_layer(release, nodes, colours) if raster else _shapes_layer(release, nodes, colours)).add_to(m)
    borders = _outline_layer(release) if outlines else None
    if borders is not None:
        borders.add_to(m)
    return borders is not None


def _outline_layer(release: Release) -> OutlineLayer | None:
    """Country outlines for the domain's box (plus a margin of a tenth of its size), or None."""
    d = release.domain
    if not is_lon_lat(d.xmin, d.ymin, d.xmax, d.ymax):
        return None   # a non-geographic domain (e.g. metres): country borders would mislead
    mx, my = d.width / 10, d.height / 10
    fc = countries((max(d.xmin - mx, -180), max(d.ymin - my, -90), min(d.xmax + mx, 180), min(d.ymax + my, 90)))
    return OutlineLayer(fc) if fc and fc["features"] else None


def query_layer(rect: list[float] | None, typed: bool = False) -> folium.FeatureGroup | None:
    """The kept query rectangle [xmin, ymin, xmax, ymax] as a dashed outline (no fill, so the cells
    under it keep their tooltips and clicks), or None when there is no query. A ``typed`` rectangle also
    clears the rectangles drawn on the map: one rectangle at a time, the one answered."""
    if rect is None:
        return None
    x0, y0, x1, y1 = (float(v) for v in rect)
    fg = folium.FeatureGroup(name="kept query rectangle")
    folium.Rectangle([[y0, x0], [y1, x1]], color=QUERY_COLOUR, weight=3, dash_array="6 4", fill=False,
                     tooltip="the query rectangle answered on the right").add_to(fg)
    if typed:
        ClearDrawn().add_to(fg)
    return fg

