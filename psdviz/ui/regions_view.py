"""Region views without Streamlit: honest colour classes, the choropleth and the click lookup.

Colours must not turn noise into structure, and must still show the structure there is: the classes of
a level cut the private counts (or counts per km2) where they spread (quantiles, at most seven classes),
and a break stays only where the classes on either side differ by more than their noise and no inner class
is narrower than two standard errors (for answers made of area shares of cells, two typical errors of
the noise and the cut cells' modelled error): two regions within noise of each other share a colour or
sit in neighbouring classes, and regions equal but for noise draw one colour. Regions within two standard
errors of zero are drawn pale. Regions that were not measured (area shares of a pooled region above them)
have a dashed outline: their colour is their share of that region's count, not a count of their own. The
legend states the classes, the noise and the dashed outline (docs/decisions/region-colours.md).
"""
from __future__ import annotations

import math
import weakref

import folium
import numpy as np
import pandas as pd
import shapely
from folium.utilities import JsCode

from ..present import REGION_PALE as PALE
from ..present import counted, edge_texts, map_text, whole_interval
from ..present import region_classes as classes
from ..present import region_noise_width as noise_width
from ..present import region_shades as shades
from ..regions import SOURCES
from .assets import use_local_leaflet
from .basemap import Paper

NO_ANSWER = "#ffffff"     # a region outside a spatial release's domain: no data, never a count

# Each region styled in the browser from its own properties (its fill, chosen, pooled): a Python style
# function made folium dump and template one style per region on every rerun (0.4 s for the counties).
STYLE_FROM_PROPERTIES = JsCode("""function(feature, layer) {
    const p = feature.properties;
    layer.setStyle({color: p.chosen ? "#b30000" : p.pooled ? "#999999" : "#555555",
                    weight: p.chosen ? 3 : p.pooled ? 0.6 : 0.4, fillColor: p.fill, fillOpacity: 0.85,
                    dashArray: p.pooled && !p.chosen ? "2 3" : null});
}""")


def _ranges(edges: np.ndarray, unit: str) -> list[str]:
    text = edge_texts(edges)
    return [f"{a}-{b}{unit}" for a, b in zip(text[:-1], text[1:])]


def legend(edges: np.ndarray, noise: float, unit: str = "", pooled: bool = False, modelled: bool = False) -> str:
    """The classes and the noise, in words a reader can check."""
    typical = ("two typical errors of noise and cut cells together" if modelled else "two standard errors")
    return (f"Colour classes: {', '.join(_ranges(edges, unit))} (cut where the estimates spread, kept only where "
            f"neighbouring classes differ by more than their noise; no inner class narrower than {typical}, "
            f"{counted(noise)}{unit}); pale: within two standard errors{' of the noise' if modelled else ''} of "
            "zero." + (" Dashed outline: not measured, an area share of the pooled region above it (uniform "
                       "density assumed there)." if pooled else ""))


def swatches(edges: np.ndarray, unit: str = "", pooled: bool = False, outside: bool = False) -> str:
    """The classes' colours as a key drawn on the map itself (top right: in view with the top of the map,
    beside the regions it explains): one swatch per class with its range, pale for "within noise of zero",
    white for "no answer", a dashed outline for area shares of a pooled region."""
    def row(fill: str, text: str, dashed: bool = False) -> str:
        border = "1px dashed #777" if dashed else "1px solid #bbb"
        return (f'<div><span style="background:{fill};border:{border};display:inline-block;width:14px;'
                f'height:9px;margin-right:4px;vertical-align:middle"></span>{text}</div>')
    colours = shades(edges.size - 1)
    rows = [row(PALE, "within noise of zero")]
    rows += [row(c, text) for c, text in zip(colours, _ranges(edges, unit))]
    rows += [row(NO_ANSWER, "no answer (outside the release)")] if outside else []
    rows += [row(colours[0], "area share of a pooled region", dashed=True)] if pooled else []
    return ('<div class="psdviz-key" style="position:fixed;right:10px;top:10px;z-index:1000;background:'
            'rgba(255,255,255,0.92);padding:6px 8px;border-radius:4px;font:11px sans-serif;line-height:14px;'
            'box-shadow:0 1px 4px rgba(0,0,0,0.3)">' + "".join(rows) + "</div>")


def choropleth(frame, counts: pd.DataFrame, level: int, selected: str | None,
               area_km2: np.ndarray | None = None, focus=None) -> tuple[folium.Map, str]:
    """A folium map of one level's regions coloured by :func:`classes` of their private counts, or of
    their private counts per km2 when ``area_km2`` (one per row of ``counts``) is given; the selected
    one outlined, pooled ones dashed; returns the map and its legend. With a ``uniformity_error`` column
    (answers by area shares of cells) the classes are at least two typical errors of the noise and that
    modelled error together wide. The map opens on ``focus`` (a region's outline: the one drilled into) when
    given, else on the whole level (:func:`view_bounds`)."""
    rows = counts["level"].to_numpy() == level
    sub = counts[rows].reset_index(drop=True)
    geoms = frame.geometry.to_numpy()[rows]
    raw_est, raw_se = sub["estimate"].to_numpy(float), sub["standard_error"].to_numpy(float)
    known = np.isfinite(raw_est)           # a region outside a spatial release's domain has no answer
    est, se = np.where(known, raw_est, 0.0), np.where(known, raw_se, 0.0)
    per = np.ones(len(sub)) if area_km2 is None else np.maximum(np.asarray(area_km2, float)[rows], 1e-9)
    pooled = (sub["source"] == SOURCES[2]).to_numpy() if "source" in sub else np.zeros(len(sub), bool)
    modelled = "uniformity_error" in sub
    # the error the tooltips, the class width and the legend state: with the cut cells' model when given
    stated = np.hypot(se, np.nan_to_num(sub["uniformity_error"].to_numpy(float))) if modelled else se
    cls, edges = classes(est / per, se / per, floor=1.0 if area_km2 is None else 0.0, measured=~pooled & known,
                         width_se=stated / per)
    colours = shades(edges.size - 1)
    cls = np.where(known, cls, -2)
    fmap = folium.Map(tiles=None, zoom_control=True, zoom_snap=0.25)   # fits the layer closely
    use_local_leaflet(fmap)
    Paper().add_to(fmap)
    feats = []
    lows, highs = ((sub["low_95"].to_numpy(float), sub["high_95"].to_numpy(float)) if "low_95" in sub else
                   whole_interval(est, stated))      # a table without them: the same rule, from its errors
    for (rid, name), e, lo, hi, a, c, g, p in zip(sub[["id", "name"]].itertuples(index=False), est, lows, highs, per,
                                                  cls, drawn_outlines(frame, rows), pooled):
        per_km2 = "" if area_km2 is None else f", {counted(e / a)} per km²"
        name = map_text(name)      # from the user's layer: inert to folium's templates and to HTML
        label = (f"{name}: outside the release's domain, no answer" if c == -2 else
                 f"{name}: {int(max(e, 0)):,} (95 % interval {lo:,.0f} to {hi:,.0f})" + per_km2)
        feats.append({"type": "Feature", "geometry": g,
                      "properties": {"id": map_text(rid), "label": label + (" (area share)" if p else ""),
                                     "fill": NO_ANSWER if c == -2 else PALE if c < 0 else colours[c],
                                     "chosen": rid == selected,
                                     "pooled": bool(p)}})

    folium.GeoJson({"type": "FeatureCollection", "features": feats}, on_each_feature=STYLE_FROM_PROPERTIES,
                   tooltip=folium.GeoJsonTooltip(["label"], labels=False)).add_to(fmap)
    (xmin, ymin, xmax, ymax) = view_bounds(geoms if focus is None else np.array([focus], dtype=object))
    pad_x, pad_y = 0.02 * (xmax - xmin), 0.02 * (ymax - ymin)
    fmap.fit_bounds([[max(ymin - pad_y, -85), max(xmin - pad_x, -180)],
                     [min(ymax + pad_y, 85), min(xmax + pad_x, 180)]])
    unit = "" if area_km2 is None else " per km²"
    root = fmap.get_root()
    assert isinstance(root, folium.Figure)   # a folium map's root is its page
    root.html.add_child(folium.Element(swatches(edges, unit, bool(pooled.any()), not known.all())))
    noise = noise_width(stated / per, ~pooled & known) if len(sub) else 0.0
    outside = "" if known.all() else " White: outside the release's domain (the release says nothing about it)."
    return fmap, legend(edges, noise, unit, bool(pooled.any()), modelled) + outside


_DRAWN: dict[tuple[int, bytes], tuple[weakref.ref, list[dict]]] = {}   # kept outlines of the last layers drawn
DRAWN_KEPT = 8


def drawn_outlines(frame, rows: np.ndarray) -> list[dict]:
    """GeoJSON geometries of the rows of ``frame`` as the map draws them: simplified and rounded to 0.001
    degrees (about 100 m; half the page's bytes). Kept for the frame object while it lives (a layer is public
    and every rerun, and every session on a bundled layer, draws the same outlines); callers must not change
    them."""
    key = (id(frame), np.packbits(rows).tobytes())
    kept = _DRAWN.get(key)
    if kept is not None and kept[0]() is frame:
        return kept[1]
    geoms = frame.geometry.to_numpy()[rows]
    simple = shapely.transform(shapely.simplify(geoms, 0.01, preserve_topology=True), lambda c: np.round(c, 3))
    out = [shapely.geometry.mapping(g) for g in simple]
    if len(_DRAWN) >= DRAWN_KEPT:
        _DRAWN.pop(next(iter(_DRAWN)))
    _DRAWN[key] = (weakref.ref(frame), out)
    return out


def view_bounds(geoms, tail: float = 0.001) -> tuple[float, float, float, float]:
    """The box a layer's map opens on: the bounds of its polygons' parts less the far tails (the parts whose
    centres hold the outermost ``tail`` of the area on either side, in each axis: a few small islands far
    away) and less any part spanning more than half the globe (it crosses the antimeridian); the whole
    world for a layer with no area."""
    parts = shapely.get_parts(np.asarray(geoms, dtype=object))
    b, a = shapely.bounds(parts), shapely.area(parts)
    ok = np.isfinite(b).all(axis=1) & (b[:, 2] - b[:, 0] <= 180) & (a > 0)
    b, a = b[ok], a[ok]
    if not a.size:
        return -180.0, -85.0, 180.0, 85.0
    keep = np.ones(a.size, dtype=bool)
    for axis in (0, 1):
        centre = (b[:, axis] + b[:, axis + 2]) / 2
        order = np.argsort(centre, kind="stable")
        cum = np.cumsum(a[order]) / a.sum()
        lo, hi = centre[order][np.minimum(np.searchsorted(cum, [tail, 1 - tail]), a.size - 1)]
        keep &= (centre >= lo) & (centre <= hi)
    b = b[keep]
    return float(b[:, 0].min()), float(b[:, 1].min()), float(b[:, 2].max()), float(b[:, 3].max())


def region_at(frame, counts: pd.DataFrame, level: int, lat: float, lng: float) -> str | None:
    """The id of the region of ``level`` containing a clicked point, or None."""
    rows = np.flatnonzero(counts["level"].to_numpy() == level)
    hit = shapely.contains_xy(frame.geometry.to_numpy()[rows], lng, lat)
    return str(counts["id"].iloc[rows[np.flatnonzero(hit)[0]]]) if hit.any() else None


def interval(est: float, se: float) -> str:
    """The 95 % interval of a whole region's count (the noise's: no cell is cut; ``present.whole_interval``),
    rounded for people."""
    if not math.isfinite(se):
        return "-"
    lo, hi = (float(v) for v in whole_interval(est, se))
    return f"{lo:,.0f}–{hi:,.0f}"
