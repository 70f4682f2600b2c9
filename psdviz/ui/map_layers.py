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
from .macros import PlainMacro
from .mapview import Frame, MapView, frame_of, overlay_script
from .outlines import OutlineLayer, countries_json, is_lon_lat

MAX_SHAPES = 5000
LAT_LIMIT = 85.0
POINT_LIMIT = 3000
QUERY_COLOUR = "#0a7d00"


def _bounds(release: Release) -> list[list[float]]:
    return _domain_bounds(release.domain)


def _domain_bounds(d: Domain) -> list[list[float]]:
    return [[max(d.ymin, -LAT_LIMIT), d.xmin], [min(d.ymax, LAT_LIMIT), d.xmax]]


CELLS_JS = """var t = table(%(table)s), cols = 9, edges = table(%(edges)s), pal = %(palette)s,
    g = L.featureGroup();
function table(s) {
    var b = atob(s), u = new Uint8Array(b.length);
    for (var k = 0; k < b.length; k++) { u[k] = b.charCodeAt(k); }
    return new Float64Array(u.buffer);
}
for (var i = 0; i < t.length; i += cols) {
    var cell = L.rectangle([[t[i + 1], t[i]], [t[i + 3], t[i + 2]]],
        {color: "#555555", weight: 0.4, stroke: t[i + 8] === 1, fillColor: pal[t[i + 4]], fillOpacity: 0.55});
    cell.bindTooltip("level " + t[i + 5] + "<br>noisy count " + (isNaN(t[i + 6]) ? "not measured" : t[i + 6])
        + "<br>estimated count " + t[i + 7]
        + (t[i + 7] < 0 || t[i + 6] < 0 ? "<br>below zero: the noise's doing (a count cannot be)" : ""),
        {sticky: true});
    g.addLayer(cell);
}
for (var j = 0; j < edges.length; j += 4) {
    g.addLayer(L.rectangle([[edges[j + 1], edges[j]], [edges[j + 3], edges[j + 2]]],
        {color: "#555555", weight: 0.4, fill: false, interactive: false}));
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


def _b64(a: np.ndarray) -> str:
    import base64
    return json.dumps(base64.b64encode(np.ascontiguousarray(a, dtype="<f8").tobytes()).decode())


def _table(release: Release, shown: np.ndarray, colour: np.ndarray, about: np.ndarray, stroke: np.ndarray
           ) -> np.ndarray:
    """(k, 9) rows [x0, y0, x1, y1, colour, level, noisy, estimate, stroke] of each rectangle ``shown``
    (coordinates to 5 decimals, counts to 1; noisy NaN when not measured); the tooltip tells of the node
    ``about`` (a piece of a cell speaks for its cell)."""
    t = release.tree
    noisy = np.where(np.isfinite(t.noisy[about]), np.round(t.noisy[about], 1), np.nan)
    return np.column_stack([np.round(t.rect[shown], 5), colour, t.depth[about], noisy, np.round(t.est[about], 1),
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
    return rows, np.round(release.tree.rect[nodes[split]], 5).reshape(-1, 4)


def _cells_js(release: Release, nodes: np.ndarray, colours: Colours) -> str:
    """The cells as Leaflet rectangles from a compact table (float64, base64), with tooltips of the released
    counts; every rectangle is a layer of the map, so clicks reach streamlit-folium. folium's GeoJson would
    embed ~350 bytes of JSON per cell; this sends 72."""
    rows, edges = cell_table(release, nodes, colours)
    return CELLS_JS % {"table": _b64(rows), "edges": _b64(edges), "palette": json.dumps(PALETTE)}


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
    fc = countries_json((max(d.xmin - mx, -180), max(d.ymin - my, -90), min(d.xmax + mx, 180),
                         min(d.ymax + my, 90)))
    return OutlineLayer(fc) if fc is not None else None


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

