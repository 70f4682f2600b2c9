"""Maps of the Teach page: two releases side by side on linked maps with one colour scale, and the
owner's private-minus-true map. Pan or zoom one map and the other follows (Leaflet.Sync, served by
the app like Leaflet itself)."""
from __future__ import annotations

import json

import folium
import numpy as np
from folium.plugins import Draw, DualMap
from folium.template import Template

from psdviz import Release
from psdviz.present import frontier, view_depth

from .assets import url, use_local_leaflet
from .basemap import Paper
from .macros import PlainMacro
from .map_layers import (
    MAX_SHAPES,
    QUERY_COLOUR,
    Colours,
    OneDrawing,
    _bounds,
    add_release_layers,
    view_colours,
)
from .outlines import OutlineLayer

# private - true in standard errors: below -1.96, -1.96..-1, within 1, 1..1.96, above 1.96 (blue - grey - red)
Z_EDGES = (-1.96, -1.0, 1.0, 1.96)
Z_PALETTE = ["#2166ac", "#92c5de", "#e0e0e0", "#f4a582", "#b2182b"]


def _shared_depth(a: Release, b: Release) -> tuple[int, int]:
    """A view depth for each release with at most :data:`MAX_SHAPES` cells (drawn as shapes)."""
    return view_depth(a.tree, MAX_SHAPES), view_depth(b.tree, MAX_SHAPES)


def linked_maps(left: Release, right: Release, height: int = 520) -> tuple[DualMap, Colours, np.ndarray]:
    """Two releases on linked maps with one colour scale; returns the maps, the shared colours (for the
    legend) and the left release's cells shown. A rectangle is drawn on the left map."""
    da, db = _shared_depth(left, right)
    na, nb = frontier(left.tree, da), frontier(right.tree, db)
    ca, cb = view_colours([(left, na), (right, nb)])
    b = _bounds(left)
    dual = DualMap(location=[(b[0][0] + b[1][0]) / 2, (b[0][1] + b[1][1]) / 2], zoom_start=2, tiles=None,
                   prefer_canvas=True, world_copy_jump=False, control_scale=True, zoom_snap=0.1)
    dual.default_js = [("Leaflet.Sync", url("sync_js"))]
    Paper().add_to(dual.m1)                                    # each map on the page's white, not Leaflet's grey
    Paper().add_to(dual.m2)
    dual.fit_bounds(b)
    add_release_layers(dual.m1, left, na, ca, outlines=True)
    add_release_layers(dual.m2, right, nb, cb, outlines=True)
    draw = Draw(draw_options={"polyline": False, "polygon": False, "circle": False, "marker": False,
                              "circlemarker": False, "rectangle": {"shapeOptions": {"color": QUERY_COLOUR}}},
                edit_options={"edit": False}, show_geometry_on_click=False)
    dual.m1.add_child(draw)
    dual.m1.add_child(OneDrawing(draw))
    use_local_leaflet(dual.m1, draw)
    use_local_leaflet(dual.m2)
    return dual, max((ca, cb), key=lambda c: c.parts.size), na   # same classes; parts' words if either has some


class ErrorCells(PlainMacro):
    """Cells coloured by private - true in their own standard errors, with the values in a tooltip."""

    _template = Template("""
        {% macro script(this, kwargs) %}
        (function () {
            var rows = {{ this.rows }}, pal = {{ this.palette }}, g = L.featureGroup();
            for (var i = 0; i < rows.length; i++) {
                var r = rows[i];
                L.rectangle([[r[1], r[0]], [r[3], r[2]]], {color: "#555555", weight: 0.4, fillColor: pal[r[4]],
                    fillOpacity: 0.75}).bindTooltip("private - true: " + r[5] + "<br>in standard errors: " + r[6]
                    + "<br>(NOT private: uses the true count)", {sticky: true}).addTo(g);
            }
            return g;
        })().addTo({{ this._parent.get_name() }});
        {% endmacro %}
    """)

    def __init__(self, rows: str):
        super().__init__()
        self._name = "ErrorCells"
        self.rows = rows
        self.palette = json.dumps(Z_PALETTE)


def error_map(release: Release, nodes: np.ndarray, diff: np.ndarray, z: np.ndarray,
              outlines: OutlineLayer | None) -> folium.Map:
    """The owner's map of private - true per cell, in the cell's own standard errors (NOT private)."""
    b = _bounds(release)
    m = folium.Map(location=[(b[0][0] + b[1][0]) / 2, (b[0][1] + b[1][1]) / 2], zoom_start=2, tiles=None,
                   prefer_canvas=True, world_copy_jump=False, control_scale=True, zoom_snap=0.1)
    Paper().add_to(m)
    m.fit_bounds(b)
    cls = np.where(np.isfinite(z), np.searchsorted(Z_EDGES, z), 2)
    r = np.round(release.tree.rect[nodes], 5).tolist()
    rows = [[*rc, int(c), round(float(d), 1), "unknown" if not np.isfinite(v) else round(float(v), 2)]
            for rc, c, d, v in zip(r, cls, diff, z)]
    ErrorCells(json.dumps(rows, separators=(",", ":"))).add_to(m)
    if outlines is not None:
        outlines.add_to(m)
    use_local_leaflet(m)
    return m


def error_legend() -> str:
    labels = ["below -1.96 se", "-1.96 to -1 se", "within 1 se", "1 to 1.96 se", "above 1.96 se"]
    parts = [f'<span style="background:{c};display:inline-block;width:22px;height:12px"></span> {t}'
             for c, t in zip(Z_PALETTE, labels)]
    return ('<div style="font-size:0.8em">private minus true count, in each cell\'s own standard error: '
            + " ".join(parts) + "</div>")
