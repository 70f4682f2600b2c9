"""The folium map of a release: cells coloured by estimated density, optional true points, Draw.

Up to :data:`MAX_SHAPES` cells are drawn as rectangles on a canvas renderer with tooltips;
beyond that the view is a raster overlay (one pixel = the cell containing its centre, rasterised by
the engine) and a click is looked up by the page, so the browser stays responsive. The map's background is
the page's white; an optional OpenStreetMap basemap removes itself on the first failed tile and says so
(:mod:`psdviz.ui.basemap`; Leaflet itself is served by the app, see :mod:`psdviz.ui.assets`). Thin
grey country outlines (:mod:`psdviz.ui.outlines`) sit above the cells without catching the pointer,
when the domain is lon/lat and the outline file was fetched.

Everything but a release's own layers (the cells or their raster, the true points) depends on public
inputs only (the domain, outlines, basemap): :func:`map_frame` renders that frame once per process and
:func:`release_view` puts a release's layers in its slot (docs/decisions/classroom.md).
"""
from __future__ import annotations

import functools
import json
from dataclasses import dataclass

import folium
import numpy as np
from folium.plugins import Draw
from folium.template import Template

from psdviz import Domain, Release
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
from .basemap import Basemap, Paper
from .macros import TABLE_JS, PlainMacro, b64_table
from .mapview import Frame, MapView, frame_of, overlay_script
from .outlines import OutlineLayer, countries_packed, is_lon_lat

MAX_SHAPES = 5000
LAT_LIMIT = 85.0
POINT_LIMIT = 3000
QUERY_COLOUR = "#0a7d00"
FLOAT32_COUNTS = 2.0 ** 20   # counts (to a tenth) below this are sent as float32 (:func:`_counts`)


def _bounds(release: Release) -> list[list[float]]:
    return _domain_bounds(release.domain)


def _domain_bounds(d: Domain) -> list[list[float]]:
    return [[max(d.ymin, -LAT_LIMIT), d.xmin], [min(d.ymax, LAT_LIMIT), d.xmax]]


CELLS_JS = """var d = %(domain)s, shape = table(%(shape)s, Float32Array), counts = table(%(counts)s, %(count_type)s),
    codes = table(%(codes)s, Uint16Array), edges = table(%(edges)s, Float32Array), pal = %(palette)s,
    g = L.featureGroup();
%(table_js)s
function box(a, k) {
    return [[d[1] + a[k + 1] * d[3], d[0] + a[k] * d[2]], [d[1] + a[k + 3] * d[3], d[0] + a[k + 2] * d[2]]];
}
function tenth(v) { return Math.round(v * 10) / 10; }
function words(i) {
    var noisy = tenth(counts[2 * i]), est = tenth(counts[2 * i + 1]);
    return "level " + codes[3 * i + 1] + "<br>noisy count " + (isNaN(noisy) ? "not measured" : noisy)
        + "<br>estimated count " + est
        + (est < 0 || noisy < 0 ? "<br>below zero: the noise's doing (a count cannot be)" : "");
}
for (var i = 0; i < codes.length / 3; i++) {
    var cell = L.rectangle(box(shape, 4 * i), {color: "#555555", weight: 0.4, stroke: codes[3 * i + 2] === 1,
        fillColor: pal[codes[3 * i]], fillOpacity: 0.55});
    cell.row = i;
    g.addLayer(cell);
}
g.bindTooltip(function (cell) { return words(cell.row); }, {sticky: true});
for (var j = 0; j < edges.length; j += 4) {
    g.addLayer(L.rectangle(box(edges, j), {color: "#555555", weight: 0.4, fill: false, interactive: false}));
}
g.addTo(map);"""
RASTER_JS = """L.imageOverlay(%(url)s, %(bounds)s, {"interactive": true}).addTo(map);"""
POINTS_JS = """L.geoJson(%(points)s, {pointToLayer: function (feature, latlng) {
    return new L.CircleMarker(latlng, %(options)s);
}}).addTo(map);"""
POINT_STYLE = {"stroke": True, "color": "#0055ff", "weight": 1, "opacity": 1.0, "lineCap": "round", "lineJoin": "round",
               "dashArray": None, "dashOffset": None, "fill": True, "fillColor": "#0055ff", "fillOpacity": 0.2,
               "fillRule": "evenodd", "bubblingMouseEvents": True, "radius": 1.5}
SLOT = "/*psdviz: the release's layers*/"


class ReleaseLayers(PlainMacro):
    """One release's own layers on a map (its cells or their raster, and the true points when shown), as the
    body of ``function (map) {...}``. The rest of the map is public, the same for every release drawn on a
    domain: :func:`map_frame` renders it once per process with :data:`SLOT` as the body, and
    :func:`release_view` puts a release's body in its place (docs/decisions/classroom.md)."""

    _template = Template("""
        {% macro script(this, kwargs) %}
var {{ this.get_name() }} = (function (map) {
{{ this.body }}
})({{ this._parent.get_name() }});
        {% endmacro %}
    """)

    def __init__(self, body: str):
        super().__init__()
        self._name = "ReleaseLayers"
        self.body = body


def _shares(rects: np.ndarray, d: Domain) -> np.ndarray:
    """Rectangles as shares of the domain's width and height (float32): a grid position j / 2^bits is exact in
    float32 up to 24 bits, and ``xmin + share * width`` in the browser gives back the released coordinate."""
    lo, size = np.array([d.xmin, d.ymin] * 2), np.array([d.width, d.height] * 2)
    return ((rects - lo) / size).astype("<f4")


def _table(release: Release, shown: np.ndarray, colour: np.ndarray, about: np.ndarray, stroke: np.ndarray
           ) -> np.ndarray:
    """(k, 9) rows [x0, y0, x1, y1, colour, level, noisy, estimate, stroke] of each rectangle ``shown``
    (coordinates as released, counts to 1 decimal; noisy NaN when not measured); the tooltip tells of the node
    ``about`` (a piece of a cell speaks for its cell)."""
    t = release.tree
    noisy = np.where(np.isfinite(t.noisy[about]), np.round(t.noisy[about], 1), np.nan)
    return np.column_stack([t.rect[shown], colour, t.depth[about], noisy, np.round(t.est[about], 1),
                            stroke]).astype(float)


def cell_table(release: Release, nodes: np.ndarray, colours: Colours) -> tuple[np.ndarray, np.ndarray]:
    """The cells as the map draws them: (k, 9) rows (:func:`_table`) and (m, 4) outlines. A cell holding pale
    parts (:func:`psdviz.publish.pale_parts.pale_parts`) is drawn as its pieces (the parts pale, the rest in its
    class, without inner borders) under its own outline."""
    pieces, cell = cell_pieces(release, nodes, colours.parts)
    split = np.zeros(nodes.size, bool)
    split[cell] = True
    whole = np.flatnonzero(~split)
    is_part = np.isin(pieces, colours.parts)
    index = np.asarray(colours.index)
    rows = np.concatenate([_table(release, nodes[whole], index[whole], nodes[whole], np.ones(whole.size)),
                           _table(release, pieces, np.where(is_part, 0, index[cell]),
                                  np.where(is_part, pieces, nodes[cell]), is_part)]).reshape(-1, 9)
    return rows, release.tree.rect[nodes[split]].reshape(-1, 4)


def _counts(rows: np.ndarray) -> tuple[str, str]:
    """The noisy and estimated counts (to one decimal) as base64 and their typed array: float32 while every
    count is below 2^20 (its error is then under 0.032, and the browser's rounding to a tenth gives the count
    back exactly), else float64."""
    counts = rows[:, 6:8]
    small = not np.isfinite(counts).any() or np.nanmax(np.abs(counts)) < FLOAT32_COUNTS
    return (b64_table(counts, "<f4"), "Float32Array") if small else (b64_table(counts), "Float64Array")


def _cells_js(release: Release, nodes: np.ndarray, colours: Colours) -> str:
    """The cells as Leaflet rectangles from compact tables (base64): corners as float32 shares of the domain,
    the noisy and estimated counts (:func:`_counts`), colour, level and border as uint16: 30 bytes a cell
    (folium's GeoJson: ~350). One tooltip for the group speaks for the cell under the pointer; every rectangle
    is a layer of the map, so clicks reach streamlit-folium."""
    rows, edges = cell_table(release, nodes, colours)
    d = release.domain
    counts, count_type = _counts(rows)
    return CELLS_JS % {"domain": json.dumps([d.xmin, d.ymin, d.width, d.height]),
                       "shape": b64_table(_shares(rows[:, :4], d), "<f4"), "counts": counts, "count_type": count_type,
                       "codes": b64_table(rows[:, [4, 5, 8]], "<u2"), "edges": b64_table(_shares(edges, d), "<f4"),
                       "palette": json.dumps(PALETTE), "table_js": TABLE_JS}


def _hex_rgba(c: str, alpha: int) -> list[int]:
    return [int(c[1:3], 16), int(c[3:5], 16), int(c[5:7], 16), alpha]


def _raster_js(release: Release, nodes: np.ndarray, colours: Colours, width: int = 720) -> str:
    """The cells as one image: each pixel the colour class of the cell under its centre (Web Mercator rows)."""
    (lat0, lon0), (lat1, lon1) = _bounds(release)
    height = int(np.clip(width * (lat1 - lat0) / max(lon1 - lon0, 1e-9) * 1.2, 200, 900))
    xs = lon0 + (np.arange(width) + 0.5) * (lon1 - lon0) / width
    ys = mercator_centres(lat0, lat1, height)
    rgba = np.array([_hex_rgba(c, 150) for c in PALETTE] + [[0, 0, 0, 0]], dtype=np.uint8)  # the last: no cell
    img = rgba[shade_grid(release, nodes, colours, xs, ys)][::-1]  # north up
    return RASTER_JS % {"url": json.dumps(png_data_url(img)), "bounds": json.dumps([[lat0, lon0], [lat1, lon1]])}


def png_data_url(img: np.ndarray) -> str:
    """An RGBA image as a PNG data URL, compressed fast (zlib level 1: a few per cent larger than
    branca's level 9 for these flat-coloured rasters, several times quicker)."""
    import base64
    import io

    from PIL import Image
    buf = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(img), "RGBA").save(buf, format="PNG", compress_level=1)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


def _points_js(points: np.ndarray) -> str:
    """The true points (teaching only, NOT private), at most :data:`POINT_LIMIT` of them, as small circles."""
    n = points.shape[0]
    take = points if n <= POINT_LIMIT else points[np.linspace(0, n - 1, POINT_LIMIT).astype(int)]
    gj = {"type": "FeatureCollection", "features": [
        {"type": "Feature", "geometry": {"type": "Point", "coordinates": [x, y]}, "properties": {}}
        for x, y in take.tolist()]}
    return POINTS_JS % {"points": json.dumps(gj, separators=(",", ":")), "options": json.dumps(POINT_STYLE)}


def layers_js(release: Release, nodes: np.ndarray, colours: Colours, true_points: np.ndarray | None = None) -> str:
    """The body of :class:`ReleaseLayers`: the cells (shapes, or a raster above :data:`MAX_SHAPES`) and the
    true points when given."""
    body = _raster_js(release, nodes, colours) if nodes.size > MAX_SHAPES else _cells_js(release, nodes, colours)
    return body if true_points is None else body + "\n" + _points_js(true_points)


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


class OneDrawing(PlainMacro):
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


class ClearDrawn(PlainMacro):
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


def _frame(domain: Domain, outlines: bool, basemap: bool, body: str) -> tuple[folium.Map, bool]:
    """The folium map of a domain with ``body`` as its release's layers (:class:`ReleaseLayers`): fitted to
    the domain, the basemap and the country outlines when asked (lon/lat domains only), and Draw; True when
    outlines were drawn."""
    b = _domain_bounds(domain)
    m = folium.Map(location=[(b[0][0] + b[1][0]) / 2, (b[0][1] + b[1][1]) / 2], zoom_start=2, tiles=None,
                   prefer_canvas=True, world_copy_jump=False, control_scale=True, zoom_snap=0.1)
    m.fit_bounds(b)
    Paper().add_to(m)
    if basemap and is_lon_lat(domain.xmin, domain.ymin, domain.xmax, domain.ymax):
        Basemap().add_to(m)
    ReleaseLayers(body).add_to(m)
    borders = _outline_layer(domain) if outlines else None
    if borders is not None:
        borders.add_to(m)
    draw = Draw(draw_options={"polyline": False, "polygon": False, "circle": False, "marker": False,
                              "circlemarker": False, "rectangle": {"shapeOptions": {"color": QUERY_COLOUR}}},
                edit_options={"edit": False}, show_geometry_on_click=False)
    draw.add_to(m)
    OneDrawing(draw).add_to(m)
    use_local_leaflet(m, draw)
    return m, borders is not None


def _view(release: Release, depth: int) -> tuple[np.ndarray, Colours]:
    nodes = frontier(release.tree, depth)
    return nodes, view_colours([(release, nodes)])[0]


def make_map(release: Release, depth: int, true_points: np.ndarray | None = None,
             outlines: bool = True, basemap: bool = False) -> tuple[folium.Map, MapInfo]:
    """Build the folium map for the view down to ``depth``; ``outlines``: add the country borders
    (only drawn for a lon/lat domain when the outline file is there); ``basemap``: OpenStreetMap tiles
    under the cells (lon/lat domains only; removed on the first tile error, e.g. offline)."""
    nodes, colours = _view(release, depth)
    m, borders = _frame(release.domain, outlines, basemap, layers_js(release, nodes, colours, true_points))
    return m, MapInfo(nodes, nodes.size > MAX_SHAPES, colours, borders)


@functools.lru_cache(maxsize=32)
def map_frame(domain: tuple[float, float, float, float], outlines: bool, basemap: bool) -> tuple[Frame, bool]:
    """:func:`make_map` 's map of a domain with :data:`SLOT` for a release's layers, as streamlit-folium
    would send it (:func:`psdviz.ui.mapview.frame_of`): public inputs only, made once per process; True when
    outlines were drawn."""
    m, borders = _frame(Domain(*domain), outlines, basemap, SLOT)
    return frame_of(m, SLOT), borders


def release_view(release: Release, depth: int, true_points: np.ndarray | None = None, outlines: bool = True,
                 basemap: bool = False) -> tuple[MapView, MapInfo]:
    """What :func:`make_map` draws, as the public frame of the domain (:func:`map_frame`) and this release's
    layers: :func:`psdviz.ui.mapview.show_map` sends the same map without rendering the frame again."""
    nodes, colours = _view(release, depth)
    d = release.domain
    frame, borders = map_frame((d.xmin, d.ymin, d.xmax, d.ymax), outlines, basemap)
    return MapView(frame, layers_js(release, nodes, colours, true_points)), \
        MapInfo(nodes, nodes.size > MAX_SHAPES, colours, borders)


def add_release_layers(m, release: Release, nodes: np.ndarray, colours: Colours, outlines: bool) -> bool:
    """The cells (shapes, or a raster above :data:`MAX_SHAPES`) and, when asked and available, the
    country outlines, added to the folium map ``m``; True when outlines were drawn."""
    ReleaseLayers(layers_js(release, nodes, colours)).add_to(m)
    borders = _outline_layer(release.domain) if outlines else None
    if borders is not None:
        borders.add_to(m)
    return borders is not None


def _outline_layer(d: Domain) -> OutlineLayer | None:
    """Country outlines for the domain's box (plus a margin of a tenth of its size), or None."""
    if not is_lon_lat(d.xmin, d.ymin, d.xmax, d.ymax):
        return None   # a non-geographic domain (e.g. metres): country borders would mislead
    mx, my = d.width / 10, d.height / 10
    packed = countries_packed((max(d.xmin - mx, -180), max(d.ymin - my, -90), min(d.xmax + mx, 180),
                               min(d.ymax + my, 90)))
    return OutlineLayer(packed) if packed is not None else None


def query_script(rect: tuple[float, ...], typed: bool) -> str:
    """The kept query rectangle (:func:`query_layer`) as streamlit-folium's overlay script."""
    return overlay_script(query_layer(list(rect), typed))


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

