"""Region views without Streamlit: honest colour classes, the choropleth and the click lookup.

Colours must not turn noise into structure: the classes of a level are equal steps of the private
count no narrower than two standard errors of a count at that level (two regions within noise of each
other share a colour or sit in neighbouring classes), at most seven of them, starting at zero; regions
whose count is within two standard errors of zero are drawn pale. The legend states the step and the
noise.
"""
from __future__ import annotations

import math

import folium
import numpy as np
import pandas as pd
import shapely

from .assets import use_local_leaflet

PALETTE = ["#fff5eb", "#fdd0a2", "#fdae6b", "#fd8d3c", "#f16913", "#d94801", "#8c2d04"]
PALE = "#f2f2f2"


def classes(estimate: np.ndarray, se: np.ndarray) -> tuple[np.ndarray, float]:
    """(class index per region, -1 for "within noise of zero"; the step): equal steps from zero, each at
    least two typical standard errors wide, at most len(PALETTE) classes."""
    noise = 2.0 * float(np.median(se)) if se.size else 1.0
    top = float(estimate.max(initial=0.0))
    step = max(noise, top / len(PALETTE), 1.0)
    cls = np.minimum((estimate // step).astype(int), len(PALETTE) - 1)
    return np.where(estimate <= 2.0 * se, -1, cls), step


def legend(step: float, n_classes: int, noise: float) -> str:
    """The classes and the noise, in words a reader can check."""
    parts = [f"{int(i * step):,}-{int((i + 1) * step):,}" for i in range(n_classes)]
    return (f"Colour classes of {step:,.0f} (at least two standard errors, {noise:,.1f}, wide): "
            + ", ".join(parts) + "; pale: within two standard errors of zero.")


def choropleth(frame, counts: pd.DataFrame, level: int, selected: str | None) -> tuple[folium.Map, str]:
    """A folium map of one level's regions coloured by :func:`classes`, the selected one outlined;
    returns the map and its legend."""
    rows = counts["level"].to_numpy() == level
    sub = counts[rows].reset_index(drop=True)
    geoms = frame.geometry.to_numpy()[rows]
    cls, step = classes(sub["estimate"].to_numpy(float), sub["standard_error"].to_numpy(float))
    fmap = folium.Map(tiles=None, zoom_control=True)
    use_local_leaflet(fmap)
    feats = []
    simple = shapely.simplify(geoms, 0.01, preserve_topology=True)
    for (rid, name, est, se), c, g in zip(sub[["id", "name", "estimate", "standard_error"]].itertuples(index=False),
                                          cls, simple):
        feats.append({"type": "Feature", "geometry": shapely.geometry.mapping(g),
                      "properties": {"id": rid, "label": f"{name}: {int(est):,} (± {1.96 * se:,.0f})",
                                     "fill": PALE if c < 0 else PALETTE[c], "chosen": rid == selected}})

    def style(f):
        p = f["properties"]
        return {"color": "#b30000" if p["chosen"] else "#555555", "weight": 3 if p["chosen"] else 0.4,
                "fillColor": p["fill"], "fillOpacity": 0.85}

    folium.GeoJson({"type": "FeatureCollection", "features": feats}, style_function=style,
                   tooltip=folium.GeoJsonTooltip(["label"], labels=False)).add_to(fmap)
    # frame where most regions are (a few far islands or the Aleutians would zoom out to the whole world)
    pts = shapely.get_coordinates(shapely.point_on_surface(geoms))
    (xmin, ymin), (xmax, ymax) = np.quantile(pts, [0.1, 0.9], axis=0) if len(pts) else ((-180, -85), (180, 85))
    pad_x, pad_y = 0.25 * (xmax - xmin) + 1, 0.25 * (ymax - ymin) + 1
    fmap.fit_bounds([[max(ymin - pad_y, -85), max(xmin - pad_x, -180)],
                     [min(ymax + pad_y, 85), min(xmax + pad_x, 180)]])
    used = int(cls.max(initial=-1)) + 1
    return fmap, legend(step, max(used, 1), 2.0 * float(np.median(sub["standard_error"])) if len(sub) else 0.0)


def region_at(frame, counts: pd.DataFrame, level: int, lat: float, lng: float) -> str | None:
    """The id of the region of ``level`` containing a clicked point, or None."""
    rows = np.flatnonzero(counts["level"].to_numpy() == level)
    hit = shapely.contains_xy(frame.geometry.to_numpy()[rows], lng, lat)
    return str(counts["id"].iloc[rows[np.flatnonzero(hit)[0]]]) if hit.any() else None


def interval(est: float, se: float) -> str:
    """The 95 % interval, rounded for people."""
    lo, hi = est - 1.96 * se, est + 1.96 * se
    return f"{max(lo, 0):,.0f}–{hi:,.0f}" if math.isfinite(se) else "-"
