"""Maps for a notebook: a release drawn on a folium map with the app's honest colours and legend.

The one module outside the Streamlit pages that loads a map library: folium is imported when
:func:`explore` is called (``psdviz[app]``), never when psdviz is; the engine below it computes the
colour classes (:mod:`psdviz.publish.colours`, :mod:`psdviz.regions.colours`) and writes no HTML. The
legend HTML is shared with the app's pages through :mod:`psdviz.present`. Text from the user's layer
is made inert before folium templates it (:func:`psdviz.core.map_text.inert_columns`).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .core.errors import ParameterError
from .core.map_text import inert_columns
from .core.optional import require
from .publish.colours import (
    LOW_SHARE,
    PALE_WORDS,
    PALETTE,
    Colours,
    density_text,
    legend_entries,
    parts_words,
    view_colours,
)
from .publish.release import Release
from .regions import colours as region_colours
from .regions.release import RegionRelease


def legend_html(colours: Colours) -> str:
    """The classes drawn: their colours and density ranges (points per square unit, log scale), and the
    noise every step is at least as wide as."""
    parts = [f'<span style="background:{c};display:inline-block;width:22px;height:12px"></span> {text}'
             for c, text in legend_entries(colours)]
    noise = (f"; each step is at least two noise standard deviations wide (x{10 ** colours.noise:.2g} in density), "
             "so cells within noise of each other share a colour or neighbouring ones" if colours.noise else "")
    pale = (f'<span style="background:{PALETTE[0]};display:inline-block;width:22px;height:12px;'
            f'border:1px solid #bbb"></span> {PALE_WORDS}, or sparser than {density_text(10 ** colours.lo)} (the '
            f'sparsest cells, holding {LOW_SHARE:.1%} of the estimated points){parts_words(colours)}')
    return (f'<div style="font-size:0.8em">{pale}; estimated density (points per square degree, log scale): '
            f'{" ".join(parts)}{noise}.</div>')


def explore(release: Release | RegionRelease, regions=None, **kwargs: Any):
    """A folium map of a release, as geopandas' ``explore`` draws a GeoDataFrame (needs ``psdviz[app]``).

    Parameters
    ----------
    release : Release or RegionRelease
        A spatial release (its published cells, in the app's density classes, pale where within noise of
        zero) or a region release (a choropleth of its counts in the app's region classes, each level its own).
    regions : psdviz.regions.Regions, optional
        For a region release: the public layer it was built on (the release file does not hold the shapes).
    **kwargs
        Passed to ``folium.Map`` (``tiles=None`` unless given: the map draws offline).

    Returns
    -------
    folium.Map
        With a tooltip per cell or region (estimate and its whole 95 % interval) and the legend.
    """
    if isinstance(release, RegionRelease):
        if regions is None:
            raise ParameterError("a region release is drawn on its layer: explore(release, regions)")
        return _region_map(release, regions, **kwargs)
    if not isinstance(release, Release):
        raise ParameterError(f"explore draws a spatial or a region release (got {type(release).__name__})")
    if regions is not None:
        raise ParameterError("regions are for a region release; a spatial release draws its own cells")
    return _cell_map(release, **kwargs)


SHOWN = ("estimate", "low_95", "high_95")    # the tooltip's numbers, rounded for people


def _shown(gdf):
    """The tooltip's numbers rounded as the app rounds counts: whole from 100, one decimal below."""
    out = gdf.copy()
    for c in SHOWN:
        v = out[c].to_numpy(float)
        out[c] = np.where(np.abs(v) >= 100, np.round(v), np.round(v, 1))
    return out


def _cell_map(release: Release, **kwargs: Any):
    folium = require("folium", "explore")
    leaves = release.tree.leaf_index()
    colours = view_colours([(release, leaves)])[0]
    gdf = _shown(release.to_geodataframe().assign(colour=[PALETTE[i] for i in colours.index]))
    d = release.domain
    m = folium.Map(**{"tiles": None, **kwargs})
    m.fit_bounds([[d.ymin, d.xmin], [d.ymax, d.xmax]])
    folium.GeoJson(gdf.__geo_interface__, style_function=lambda f: {
        "fillColor": f["properties"]["colour"], "color": "#555555", "weight": 0.4, "fillOpacity": 0.55},
        tooltip=folium.GeoJsonTooltip(["estimate", "low_95", "high_95"])).add_to(m)
    m.get_root().html.add_child(folium.Element(legend_html(colours)))
    return m


def _region_map(release: RegionRelease, regions, **kwargs: Any):
    """The region classes (:func:`psdviz.regions.colours.classes`: cut where the estimates spread, merged until
    the noise cannot make a class), each level its own; regions within two standard errors of zero pale."""
    folium = require("folium", "explore")
    gdf = release.to_geodataframe(regions)
    colour = np.full(len(gdf), region_colours.PALE, dtype=object)
    legend = []
    for level in np.unique(gdf["level"]):
        rows = (gdf["level"] == level).to_numpy()
        cls, edges = region_colours.classes(gdf["estimate"].to_numpy(float)[rows],
                                            gdf["standard_error"].to_numpy(float)[rows])
        fills = region_colours.shades(edges.size - 1)
        colour[rows] = [fills[c] if c >= 0 else region_colours.PALE for c in cls]
        text = region_colours.edge_texts(edges)
        legend.append(f"level {level}: " + ", ".join(
            f'<span style="background:{c}">&nbsp;&nbsp;</span> {a}-{b}' for c, a, b in zip(fills, text[:-1], text[1:])))
    gdf = inert_columns(_shown(gdf.assign(colour=colour)))   # the layer's text: inert to folium's templates, HTML
    m = folium.Map(**{"tiles": None, **kwargs})
    x0, y0, x1, y1 = (float(v) for v in gdf.total_bounds)
    m.fit_bounds([[y0, x0], [y1, x1]])
    folium.GeoJson(gdf.__geo_interface__, style_function=lambda f: {
        "fillColor": f["properties"]["colour"], "color": "#555555", "weight": 0.5, "fillOpacity": 0.7},
        tooltip=folium.GeoJsonTooltip(["name", "estimate", "low_95", "high_95"])).add_to(m)
    m.get_root().html.add_child(folium.Element(
        '<div style="font-size:0.8em">pale: within two standard errors of zero; classes cut where the '
        'estimates spread, kept only where neighbouring classes differ by more than their noise: '
        + "; ".join(legend) + ".</div>"))
    return m
