"""What lies under the cells of the map page: the page's white, and OpenStreetMap's tiles when asked.

Leaflet's own background is grey (#ddd); without tiles it showed through as a grey band beyond the domain and
greyed the pale, semi-transparent cells, a colour no legend entry has. :class:`Paper` makes it the page's
white, so the cells look as their legend swatches do and outside the domain reads as nothing. The basemap is
off by default (the app runs offline); switched on and unreachable, its first failed tile removes the layer and
a note on the map says so once (docs/decisions/offline-basemap.md).
"""
from __future__ import annotations

from folium.template import Template

from .macros import PlainMacro

PAPER = "#ffffff"
TRANSPARENT_GIF = "data:image/gif;base64,R0lGODlhAQABAAAAACH5BAEKAAEALAAAAAABAAEAAAICTAEAOw=="
OFFLINE_NOTE = "Basemap tiles did not load (no internet?): the map shows the bundled outlines only."


class Paper(PlainMacro):
    """The map's background in the page's white instead of Leaflet's grey."""

    _template = Template("""
        {% macro script(this, kwargs) %}
        {{ this._parent.get_name() }}.getContainer().style.background = {{ this.colour|tojson }};
        {% endmacro %}
    """)

    def __init__(self, colour: str = PAPER):
        super().__init__()
        self._name = "Paper"
        self.colour = colour


class Basemap(PlainMacro):
    """OpenStreetMap's standard tiles under the cells, with their attribution. Offline (or blocked), the first
    tile error removes the layer (failed tiles show as transparent, never a broken-image icon; no further tiles
    are requested, and the credit goes with it) and puts :data:`OFFLINE_NOTE` on the map, once."""

    _template = Template("""
        {% macro script(this, kwargs) %}
        (function (map) {
            var layer = L.tileLayer("https://tile.openstreetmap.org/{z}/{x}/{y}.png", {
                maxZoom: 19, errorTileUrl: {{ this.blank|tojson }},
                attribution: '&copy; <a href="https://www.openstreetmap.org/copyright">OpenStreetMap</a> contributors'
            });
            layer.once("tileerror", function () {
                map.removeLayer(layer);
                var note = L.control({position: "bottomleft"});
                note.onAdd = function () {
                    var div = L.DomUtil.create("div", "psdviz-basemap-note");
                    div.style.cssText = "background:#fff;padding:2px 6px;font:12px sans-serif;color:#333";
                    div.textContent = {{ this.note|tojson }};
                    return div;
                };
                note.addTo(map);
            });
            layer.addTo(map);
        })({{ this._parent.get_name() }});
        {% endmacro %}
    """)

    def __init__(self):
        super().__init__()
        self._name = "Basemap"
        self.blank = TRANSPARENT_GIF
        self.note = OFFLINE_NOTE
