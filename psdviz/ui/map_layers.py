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

import dataclasses
import json
import math
from dataclasses import dataclass

import folium
import numpy as np
from branca.element import MacroElement
from folium.plugins import Draw
from folium.template import Template

from psdviz import Release
from psdviz.publish.cells import cell_density, frontier, relative_noise, within_noise
from psdviz.query.raster import mercator_centres, rasterize

from .assets import use_local_leaflet
from .outlines import OutlineLayer, countries, is_lon_lat

MAX_SHAPES = 5000
LAT_LIMIT = 85.0
# a sequential palette (light yellow -> dark purple), 9 steps
PALETTE = ["#fcfdbf", "#feca8d", "#fd9668", "#f1605d", "#cd4071", "#9e2f7f", "#721f81", "#440f76", "#180f3d"]
POINT_LIMIT = 3000
LOW_SHARE = 0.005   # the sparsest cells holding this share of the estimated points are drawn pale
PALE_WORDS = "not distinguishable from zero (estimate within 2 noise standard deviations of 0)"
QUERY_COLOUR = "#0a7d00"


@dataclass(frozen=True)
class Colours:
    """log10 density classes: palette index per cell, the range shown, the class edges (log10) and
    the log10 width of two noise standard deviations that no step is finer than."""

    index: np.ndarray
    lo: float
    hi: float
    edges: tuple[float, ...] = ()
    noise: float = 0.0


def _weighted_quantile(values: np.ndarray, weights: np.ndarray, q) -> np.ndarray:
    order = np.argsort(values)
    cum = np.cumsum(weights[order])
    return np.interp(np.asarray(q) * cum[-1], cum, values[order])


def colour_bins(density: np.ndarray, faint: np.ndarray | None = None,
                rel_sd: np.ndarray | None = None, area: np.ndarray | None = None) -> Colours:
    """Classes of log10 density between the 2nd and 98th percentiles of the cells not within noise,
    each class at least two noise standard deviations wide: ``rel_sd`` is each cell's noise sd over its
    estimate, and log10(1 + 2 sd / est) at the 90th percentile is the narrowest step allowed. With
    ``area``, percentiles weigh cells by their area (what the eye sees), so many tiny noisy cells do not
    stretch the range. Data within
    noise of each other therefore share a colour or sit in neighbouring classes; uniform data draw one
    colour. At most len(PALETTE) classes, spread over the palette.

    Cells flagged ``faint`` (estimate within two noise standard deviations of zero,
    :func:`psdviz.publish.cells.within_noise`) get the palest colour whatever the class breaks and however
    large the cell, and do not stretch the range: a cell the release cannot tell from empty is never
    painted as data. With ``area``, the lowest class starts at the density below which the sparsest cells
    hold :data:`LOW_SHARE` of the estimated points; cells below it are pale too (the legend says so), so a
    vast cell holding a few outlying points does not carry the data's colour over empty land
    (docs/decisions/honest-colours.md). Reads released values only."""
    faint = np.zeros(density.size, bool) if faint is None else np.asarray(faint, bool)
    keep = np.isfinite(density) & (density > 0) & ~faint
    if not keep.any():
        return Colours(np.zeros(density.size, int), 0.0, 0.0)
    lg = np.log10(density[keep])
    w = np.ones(lg.size) if area is None else np.maximum(np.asarray(area, float)[keep], 0.0) + 1e-300
    lo, hi = (float(v) for v in _weighted_quantile(lg, w, [0.02, 0.98]))
    if area is not None:     # the lowest class starts below the sparsest cells that hold LOW_SHARE of the points
        held = np.maximum(density[keep] * np.maximum(np.asarray(area, float)[keep], 0.0), 0.0) + 1e-300
        lo = float(_weighted_quantile(lg, held, LOW_SHARE))
    noise = 0.0
    if rel_sd is not None and np.isfinite(np.asarray(rel_sd, float)[keep]).any():
        rs = np.asarray(rel_sd, float)[keep]
        ok = np.isfinite(rs)
        noise = float(np.log10(1.0 + 2.0 * _weighted_quantile(rs[ok], w[ok], 0.9)))
    n = int(np.clip(np.floor((hi - lo) / noise) if noise > 0 else len(PALETTE), 1, len(PALETTE)))
    hi = max(hi, lo + max(noise, 1e-9))
    drawn = keep.copy()
    if area is not None:       # (logs compared with a margin: cells tied at the quantile stay drawn)
        drawn[keep] = lg >= lo - 1e-9
    with np.errstate(divide="ignore", invalid="ignore"):
        v = np.where(drawn & (density > 0), np.log10(np.where(density > 0, density, 1)), lo)
    cls = np.clip(np.floor((v - lo) / (hi - lo) * n), 0, n - 1).astype(int)
    shades = np.rint(np.linspace(1 if n > 1 else len(PALETTE) // 2, len(PALETTE) - 1, n)).astype(int)
    idx = np.where(drawn, shades[cls], 0)
    return Colours(idx, lo, hi, tuple(np.linspace(lo, hi, n + 1)), noise)


def _bounds(release: Release) -> list[list[float]]:
    d = release.domain
    return [[max(d.ymin, -LAT_LIMIT), d.xmin], [min(d.ymax, LAT_LIMIT), d.xmax]]


class CellsLayer(MacroElement):
    """Cells as Leaflet rectangles from a compact array (x0, y0, x1, y1, colour, level, noisy, estimate).

    folium's GeoJson embeds ~350 bytes of JSON per cell that branca then re-parses as a Jinja
    template (twice per run inside streamlit-folium); this layer sends ~50 bytes per cell, which
    keeps a 5,000-cell map's rerun and first paint fast. Clicks reach streamlit-folium because
    every rectangle is a layer of the map; the tooltip shows the released counts.
    """

    _template = Template("""
        {% macro script(this, kwargs) %}
        var {{ this.get_name() }} = (function () {
            var rows = {{ this.rows }}, pal = {{ this.palette }}, g = L.featureGroup();
            for (var i = 0; i < rows.length; i++) {
                var r = rows[i];
                var cell = L.rectangle([[r[1], r[0]], [r[3], r[2]]],
                    {color: "#555555", weight: 0.4, fillColor: pal[r[4]], fillOpacity: 0.55});
                cell.bindTooltip("level " + r[5] + "<br>noisy count " + (r[6] === null ? "not measured" : r[6])
                    + "<br>estimated count " + r[7], {sticky: true});
                g.addLayer(cell);
            }
            return g;
        })().addTo({{ this._parent.get_name() }});
        {% endmacro %}
    """)

    def __init__(self, rows: str, palette: list[str]):
        super().__init__()
        self._name = "CellsLayer"
        self.rows = rows
        self.palette = json.dumps(palette)


def _rows_json(release: Release, nodes: np.ndarray, colours: Colours) -> str:
    t = release.tree
    r = np.round(t.rect[nodes], 5).tolist()
    noisy = [None if not math.isfinite(v) else round(v, 1) for v in t.noisy[nodes].tolist()]
    est = np.round(t.est[nodes], 1).tolist()
    rows = [[*rc, c, lv, ny, e] for rc, c, lv, ny, e in
            zip(r, colours.index.tolist(), t.depth[nodes].tolist(), noisy, est)]
    return json.dumps(rows, separators=(",", ":"))


def _shapes_layer(release: Release, nodes: np.ndarray, colours: Colours) -> CellsLayer:
    return CellsLayer(_rows_json(release, nodes, colours), PALETTE)


def _hex_rgba(c: str, alpha: int) -> list[int]:
    return [int(c[1:3], 16), int(c[3:5], 16), int(c[5:7], 16), alpha]


def _raster_layer(release: Release, nodes: np.ndarray, colours: Colours,
                  width: int = 720) -> folium.raster_layers.ImageOverlay:
    (lat0, lon0), (lat1, lon1) = _bounds(release)
    height = int(np.clip(width * (lat1 - lat0) / max(lon1 - lon0, 1e-9) * 1.2, 200, 900))
    xs = lon0 + (np.arange(width) + 0.5) * (lon1 - lon0) / width
    ys = mercator_centres(lat0, lat1, height)
    ids = rasterize(release.tree.rect[nodes], np.arange(nodes.size, dtype=float), xs, ys, fill=-1)
    shade = np.append(np.asarray(colours.index, dtype=np.int64), len(PALETTE))   # the last: no cell (transparent)
    rgba = np.array([_hex_rgba(c, 150) for c in PALETTE] + [[0, 0, 0, 0]], dtype=np.uint8)
    img = rgba[shade[np.where(ids >= 0, ids, nodes.size).astype(np.int64)]][::-1]  # north up
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


def view_colours(views: list[tuple[Release, np.ndarray]]) -> list[Colours]:
    """One honest colour scale (:func:`colour_bins`) for the cells ``nodes`` of one or more releases:
    the classes come from all their cells together, so equal colours mean equal densities on every
    map that shares the scale. Returns each view's :class:`Colours`."""
    parts = [_cells(r, n) for r, n in views]
    both = colour_bins(*(np.concatenate([p[i] for p in parts]) for i in range(4)))
    cuts = np.cumsum([n.size for _, n in views])[:-1]
    return [dataclasses.replace(both, index=ix) for ix in np.split(both.index, cuts)]


def _cells(release: Release, nodes: np.ndarray) -> tuple[np.ndarray, ...]:
    """Density, within-noise flag, relative noise and area of the cells ``nodes``."""
    t = release.tree
    r = t.rect[nodes]
    area = (r[:, 2] - r[:, 0]) * (r[:, 3] - r[:, 1])
    return cell_density(t, nodes), within_noise(t, nodes), relative_noise(t, nodes), area


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


def query_layer(rect: list[float] | None) -> folium.FeatureGroup | None:
    """The kept query rectangle [xmin, ymin, xmax, ymax] as a dashed outline (no fill, so the cells
    under it keep their tooltips and clicks), or None when there is no query."""
    if rect is None:
        return None
    x0, y0, x1, y1 = (float(v) for v in rect)
    fg = folium.FeatureGroup(name="kept query rectangle")
    folium.Rectangle([[y0, x0], [y1, x1]], color=QUERY_COLOUR, weight=3, dash_array="6 4", fill=False,
                     tooltip="the query rectangle answered on the right").add_to(fg)
    return fg


def legend_html(colours: Colours) -> str:
    """The classes drawn: their colours and density ranges (points per square unit, log scale), and the
    noise every step is at least as wide as."""
    edges = colours.edges or (colours.lo, colours.hi)
    n = len(edges) - 1
    shades = np.rint(np.linspace(1 if n > 1 else len(PALETTE) // 2, len(PALETTE) - 1, n)).astype(int)
    parts = [f'<span style="background:{PALETTE[s]};display:inline-block;width:22px;height:12px"></span> '
             f'{_fmt(10 ** a)}-{_fmt(10 ** b)}' for s, a, b in zip(shades, edges[:-1], edges[1:])]
    noise = (f"each step is at least two noise standard deviations wide (x{10 ** colours.noise:.2g} in density), "
             "so cells within noise of each other share a colour or neighbouring ones; " if colours.noise else "")
    pale = (f'<span style="background:{PALETTE[0]};display:inline-block;width:22px;height:12px;'
            f'border:1px solid #bbb"></span> {PALE_WORDS}, or sparser than {_fmt(10 ** colours.lo)} (the '
            f'sparsest cells, holding {LOW_SHARE:.1%} of the estimated points)')
    return (f'<div style="font-size:0.8em">{pale}; estimated density (points per square degree, log scale): '
            f'{" ".join(parts)}; {noise}</div>')


def _fmt(v: float) -> str:
    if not math.isfinite(v):
        return "?"
    return f"{v:,.0f}" if v >= 100 else f"{v:.2g}"
