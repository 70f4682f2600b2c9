"""Leaflet and Leaflet.draw served by the app itself (offline maps), with the CDN as fallback.

``.ci/fetch_assets`` copies the npm packages' dist files into ``psdviz/ui/static/``, next to the pages script;
Streamlit serves that folder at ``/app/static/`` (``server.enableStaticServing``). streamlit-folium
loads every URL in the elements' ``default_js`` one after the other and stops at the first failure,
so the map keeps only Leaflet (+ Leaflet.draw) and drops folium's jQuery/Bootstrap/awesome-markers,
which the app does not use. When the local files are missing the CDN URLs are used instead.
"""
from __future__ import annotations

from pathlib import Path

from folium.template import Template

from .macros import PlainMacro

STATIC_DIR = Path(__file__).resolve().parent / "static"
URL_PREFIX = "/app/static"
LEAFLET_VERSION = "1.9.4"
DRAW_VERSION = "1.0.4"
SYNC_VERSION = "0.2.4"

_FILES = {  # name -> (path under static/, CDN fallback)
    "leaflet_js": ("leaflet/leaflet.js", f"https://cdn.jsdelivr.net/npm/leaflet@{LEAFLET_VERSION}/dist/leaflet.js"),
    "leaflet_css": ("leaflet/leaflet.css", f"https://cdn.jsdelivr.net/npm/leaflet@{LEAFLET_VERSION}/dist/leaflet.css"),
    "draw_js": ("leaflet-draw/leaflet.draw.js",
                f"https://cdn.jsdelivr.net/npm/leaflet-draw@{DRAW_VERSION}/dist/leaflet.draw.js"),
    "draw_css": ("leaflet-draw/leaflet.draw.css",
                 f"https://cdn.jsdelivr.net/npm/leaflet-draw@{DRAW_VERSION}/dist/leaflet.draw.css"),
    "sync_js": ("leaflet-sync/L.Map.Sync.js", f"https://cdn.jsdelivr.net/npm/leaflet.sync@{SYNC_VERSION}/L.Map.Sync.js"),
}


def url(name: str, static_dir: Path = STATIC_DIR) -> str:
    """Local URL when the file was fetched, else the CDN URL."""
    rel, cdn = _FILES[name]
    return f"{URL_PREFIX}/{rel}" if (static_dir / rel).is_file() else cdn


class FocusWithoutScroll(PlainMacro):
    """Leaflet focuses the map on every mousedown (for its keyboard panning) without ``preventScroll``; in the
    app the map sits in an iframe, so when the map is partly below the window's fold the page scrolls between
    mousedown and mouseup and a click turns into a drag: nothing is clicked. The map keeps its keys, focused
    without scrolling the page."""

    _template = Template("""
        {% macro script(this, kwargs) %}
        (function (m) {
            if (!m.keyboard) { return; }
            m.keyboard.disable();
            m.keyboard._onMouseDown = function () {
                if (!this._focused) { this._map.getContainer().focus({preventScroll: true}); }
            };
            m.keyboard.enable();
        })({{ this._parent.get_name() }});
        {% endmacro %}
    """)


def use_local_leaflet(fmap, draw=None) -> None:
    """Point a folium Map (and its Draw control) at the served Leaflet files (instance attributes); a click on a
    map partly out of view stays a click (:class:`FocusWithoutScroll`)."""
    fmap.add_child(FocusWithoutScroll())
    fmap.default_js = [("leaflet", url("leaflet_js"))]
    fmap.default_css = [("leaflet_css", url("leaflet_css"))]
    if draw is not None:
        draw.default_js = [("leaflet_draw_js", url("draw_js"))]
        draw.default_css = [("leaflet_draw_css", url("draw_css"))]
