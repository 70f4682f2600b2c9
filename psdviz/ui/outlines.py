"""Offline reference outlines for the maps: country borders (world-atlas countries-110m, Natural
Earth, public domain) and US states (us-atlas states-10m, US Census, public domain), fetched from npm
by ``.ci/fetch_assets`` into ``static/`` and decoded by :mod:`psdviz.io.topojson`.

Coordinates are rounded to 2 decimals (about 1 km, far below what the 110m/10m files resolve at the
zoom levels used) so the pages stay small. Every loader returns None when its file is missing or
unreadable: the maps then simply have no outlines.
"""
from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from folium.template import Template

from psdviz.present import topojson as tj

from .assets import STATIC_DIR
from .macros import TABLE_JS, PlainMacro, b64_table

WORLD_FILE = "world-atlas/countries-110m.json"
STATES_FILE = "us-atlas/states-10m.json"
DECIMALS = 2
LON_LAT = (-180.0, -90.0, 180.0, 90.0)
TOLERANCE = 1.0   # degrees a domain may stick out of the lon/lat ranges and still count as lon/lat
# us-atlas names only; the postal codes let uploaded hierarchies use either
POSTAL = dict(zip(
    ["AL", "AK", "AZ", "AR", "CA", "CO", "CT", "DE", "DC", "FL", "GA", "HI", "ID", "IL", "IN", "IA", "KS", "KY", "LA",
     "ME", "MD", "MA", "MI", "MN", "MS", "MO", "MT", "NE", "NV", "NH", "NJ", "NM", "NY", "NC", "ND", "OH", "OK", "OR",
     "PA", "RI", "SC", "SD", "TN", "TX", "UT", "VT", "VA", "WA", "WV", "WI", "WY", "AS", "GU", "MP", "PR", "VI"],
    ["Alabama", "Alaska", "Arizona", "Arkansas", "California", "Colorado", "Connecticut", "Delaware",
     "District of Columbia", "Florida", "Georgia", "Hawaii", "Idaho", "Illinois", "Indiana", "Iowa", "Kansas",
     "Kentucky", "Louisiana", "Maine", "Maryland", "Massachusetts", "Michigan", "Minnesota", "Mississippi",
     "Missouri", "Montana", "Nebraska", "Nevada", "New Hampshire", "New Jersey", "New Mexico", "New York",
     "North Carolina", "North Dakota", "Ohio", "Oklahoma", "Oregon", "Pennsylvania", "Rhode Island",
     "South Carolina", "South Dakota", "Tennessee", "Texas", "Utah", "Vermont", "Virginia", "Washington",
     "West Virginia", "Wisconsin", "Wyoming", "American Samoa", "Guam",
     "Commonwealth of the Northern Mariana Islands", "Puerto Rico", "United States Virgin Islands"]))
ALIASES = {"virgin islands": "united states virgin islands", "northern mariana islands":
           "commonwealth of the northern mariana islands"}


@functools.lru_cache(maxsize=4)
def _load(path: Path, mtime: float, name: str) -> tuple[tuple[str, dict, tuple], ...]:
    out: list[tuple[str, dict, tuple]] = []
    for f in tj.features(json.loads(path.read_text()), name):
        g = tj.round_geometry(f["geometry"], DECIMALS)
        if g is not None:
            box = tj.bbox(g)
            if box is not None:
                out.append((str(f["properties"].get("name", "")), g, box))
    return tuple(out)


def _features(rel: str, name: str, static_dir: Path | None) -> tuple | None:
    path = (static_dir or STATIC_DIR) / rel
    try:
        return _load(path, path.stat().st_mtime, name)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def is_lon_lat(xmin: float, ymin: float, xmax: float, ymax: float) -> bool:
    """Does a domain look like longitude/latitude (inside [-180, 180] x [-90, 90], give or take
    :data:`TOLERANCE`)? Other (non-geographic) domains get no country outlines."""
    x0, y0, x1, y1 = LON_LAT
    return xmin >= x0 - TOLERANCE and xmax <= x1 + TOLERANCE and ymin >= y0 - TOLERANCE and ymax <= y1 + TOLERANCE


def countries(bounds: tuple[float, float, float, float], static_dir: Path | None = None) -> dict | None:
    """A GeoJSON FeatureCollection of the countries whose box meets ``bounds`` (xmin, ymin, xmax,
    ymax), or None when the file is missing or the bounds are not lon/lat."""
    if not is_lon_lat(*bounds):
        return None
    feats = _features(WORLD_FILE, "countries", static_dir)
    if feats is None:
        return None
    x0, y0, x1, y1 = bounds
    keep = [{"type": "Feature", "properties": {}, "geometry": g} for _, g, b in feats
            if b[0] <= x1 and b[2] >= x0 and b[1] <= y1 and b[3] >= y0]
    return {"type": "FeatureCollection", "features": keep}


def countries_packed(bounds: tuple[float, float, float, float]) -> PackedOutlines | None:
    """:func:`countries` packed for the map (:class:`PackedOutlines`), or None when there is none to draw: made
    once per box and file (public inputs only), since every session's map of a domain draws the same outlines."""
    path = STATIC_DIR / WORLD_FILE
    try:
        mtime = path.stat().st_mtime
    except OSError:
        return None
    return _countries_packed(tuple(float(v) for v in bounds), path.parent.parent, mtime)


@functools.lru_cache(maxsize=64)
def _countries_packed(bounds: tuple[float, float, float, float], static_dir: Path, mtime: float
                      ) -> PackedOutlines | None:
    fc = countries(bounds, static_dir)
    return pack(fc) if fc and fc["features"] else None


def state_regions(names: list[str], static_dir: Path | None = None) -> dict[str, dict] | None:
    """Geometry per given name that is a US state/territory name or postal code (case-insensitive);
    None when the file is missing."""
    feats = _features(STATES_FILE, "states", static_dir)
    if feats is None:
        return None
    by_name = {n.lower(): g for n, g, _ in feats}
    out = {}
    for n in names:
        key = POSTAL.get(n.strip().upper(), n).strip().lower()
        g = by_name.get(ALIASES.get(key, key))
        if g is not None:
            out[n] = g
    return out


@dataclass(frozen=True)
class PackedOutlines:
    """Outlines as three binary tables (base64, :func:`psdviz.ui.macros.b64_table`): rings per feature (uint16),
    points per ring (uint32), and each point's lon, lat in hundredths of a degree (int16; the outlines are rounded
    to :data:`DECIMALS`, so ``v / 100`` in the browser is the same number as the GeoJSON's)."""

    features: str
    rings: str
    points: str


def pack(collection: dict) -> PackedOutlines:
    """A FeatureCollection of (Multi)Polygons rounded to hundredths as :class:`PackedOutlines`."""
    rings = [tj.rings(f["geometry"]) for f in collection["features"]]
    flat = [r for fr in rings for r in fr]
    xy = np.concatenate(flat) if flat else np.zeros((0, 2))
    hundredths = np.rint(xy * 10 ** DECIMALS)
    if np.abs(hundredths).max(initial=0) > np.iinfo(np.int16).max:
        raise ValueError("outline coordinates beyond +-327.67 degrees cannot be packed (not lon/lat)")
    return PackedOutlines(b64_table(np.array([len(fr) for fr in rings]), "<u2"),
                          b64_table(np.array([len(r) for r in flat]), "<u4"), b64_table(hundredths, "<i2"))


class OutlineLayer(PlainMacro):
    """Thin grey outlines in their own pane above the cells, not interactive: the pane ignores the
    pointer (CSS pointer-events none) and its own SVG renderer keeps the paths out of the cells'
    canvas, so clicks, tooltips and drawing still reach the cells below. One path a feature, its rings unfilled,
    from :class:`PackedOutlines` (a third of the GeoJSON's bytes)."""

    _template = Template("""
        {% macro script(this, kwargs) %}
        var {{ this.get_name() }} = (function (map) {
            {{ this.table_js }}
            var pane = map.getPane("outlines") || map.createPane("outlines");
            pane.style.zIndex = 450;
            pane.style.pointerEvents = "none";
            var per = table({{ this.data.features }}, Uint16Array), sizes = table({{ this.data.rings }}, Uint32Array),
                xy = table({{ this.data.points }}, Int16Array), renderer = L.svg({pane: "outlines"}),
                g = L.featureGroup(), p = 0, r = 0;
            for (var f = 0; f < per.length; f++) {
                var shape = [];
                for (var k = 0; k < per[f]; k++, r++) {
                    var ring = [];
                    for (var end = p + 2 * sizes[r]; p < end; p += 2) { ring.push([xy[p + 1] / 100, xy[p] / 100]); }
                    shape.push(ring);
                }
                g.addLayer(L.polygon(shape, {pane: "outlines", renderer: renderer, interactive: false,
                    color: "#3c3c3c", weight: 0.8, opacity: 0.7, fill: false}));
            }
            return g.addTo(map);
        })({{ this._parent.get_name() }});
        {% endmacro %}
    """)

    def __init__(self, collection: dict | PackedOutlines):
        super().__init__()
        self._name = "OutlineLayer"
        self.data = collection if isinstance(collection, PackedOutlines) else pack(collection)
        self.table_js = TABLE_JS
