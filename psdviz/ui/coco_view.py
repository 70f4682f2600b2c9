"""Count-of-counts views without Streamlit: the tree selector's labels, node positions, the folium
marker map, the true-vs-private histogram figure and the per-node checks (Kuo et al., VLDB 2018).

The map has no tile layer (offline). Nodes whose name is a US state (name or postal code, matched
in :func:`psdviz.ui.outlines.state_regions`; us-atlas outlines, public) are drawn as clickable state
REGIONS; every other node of the chosen level is a marker (airports at their public coordinates; a
state without an outline at the mean position of its airports). A click selects the region that
contains it, else the nearest marker's node. Positions come from public coordinates only.
"""
from __future__ import annotations

import folium
import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ..coco import CocoRelease, Hierarchy
from ..present import map_text
from ..present import topojson as tj
from .assets import use_local_leaflet
from .basemap import Paper


def node_labels(h: Hierarchy) -> list[str]:
    """One label per node in depth-first order, indented by level (for a tree-shaped selectbox)."""
    order = _dfs(h)
    return [f"{'  ' * int(h.level[i])}{'└ ' if h.level[i] else ''}{h.names[i]}" for i in order]


def dfs_order(h: Hierarchy) -> list[int]:
    return _dfs(h)


def _dfs(h: Hierarchy) -> list[int]:
    kids: dict[int, list[int]] = {}
    for i in range(1, h.n_nodes):
        kids.setdefault(int(h.parent[i]), []).append(i)
    out, stack = [], [0]
    while stack:
        i = stack.pop()
        out.append(i)
        stack.extend(sorted(kids.get(i, []), key=lambda j: h.names[j], reverse=True))
    return out


def node_positions(h: Hierarchy, leaf_lat: dict[str, float], leaf_lon: dict[str, float]) -> pd.DataFrame:
    """node, name, level, lat, lon: leaves from the given public coordinates, inner nodes at the
    mean of their leaves (NaN where no leaf below has coordinates)."""
    lat = np.full(h.n_nodes, np.nan)
    lon = np.full(h.n_nodes, np.nan)
    leaves = h.leaves
    lat[leaves] = [leaf_lat.get(h.names[i], np.nan) for i in leaves]
    lon[leaves] = [leaf_lon.get(h.names[i], np.nan) for i in leaves]
    ok = leaves[np.isfinite(lat[leaves]) & np.isfinite(lon[leaves])]
    for level in range(h.n_levels - 1):
        anc = h.ancestors_at(ok, level)
        cnt = np.bincount(anc, minlength=h.n_nodes)
        with np.errstate(invalid="ignore", divide="ignore"):
            mlat = np.bincount(anc, weights=lat[ok], minlength=h.n_nodes) / cnt
            mlon = np.bincount(anc, weights=lon[ok], minlength=h.n_nodes) / cnt
        ids = h.level_nodes(level)
        lat[ids], lon[ids] = mlat[ids], mlon[ids]
    return pd.DataFrame({"node": np.arange(h.n_nodes), "name": list(h.names), "level": h.level,
                         "lat": lat, "lon": lon})


def marker_map(pos: pd.DataFrame, level: int, groups: np.ndarray, selected: int | None,
               regions: dict[int, dict] | None = None) -> folium.Map:
    """Circle markers for the nodes of one level (radius grows with the number of groups G); nodes in
    ``regions`` (node -> GeoJSON geometry) are drawn as clickable polygons instead."""
    regions = regions or {}
    sel = pos[(pos["level"] == level) & pos["lat"].notna() & ~pos["node"].isin(list(regions))]
    fmap = folium.Map(tiles=None, zoom_control=True, prefer_canvas=False)
    use_local_leaflet(fmap)
    Paper().add_to(fmap)
    g = groups[sel["node"].to_numpy()]
    if regions:
        _region_layer(pos, regions, groups, selected).add_to(fmap)
    radius = 3 + 9 * np.sqrt(g / max(int(g.max(initial=1)), 1))
    for (node, name, lat, lon), r in zip(sel[["node", "name", "lat", "lon"]].itertuples(index=False), radius):
        chosen = selected is not None and int(node) == int(selected)
        folium.CircleMarker(
            [lat, lon], radius=float(r), weight=3 if chosen else 1, color="#b30000" if chosen else "#1f4e79",
            fill=True, fill_color="#e6550d" if chosen else "#4a90c2", fill_opacity=0.8,
            tooltip=folium.Tooltip(f"{map_text(name)}: {int(groups[node])} groups", permanent=chosen),
        ).add_to(fmap)
    shown = pos[(pos["level"] == level) & pos["lat"].notna()]
    if len(shown):
        fmap.fit_bounds([[shown["lat"].min() - 1, shown["lon"].min() - 1],
                         [shown["lat"].max() + 1, shown["lon"].max() + 1]])
    return fmap


def _region_layer(pos: pd.DataFrame, regions: dict[int, dict], groups: np.ndarray, selected: int | None):
    """One GeoJson layer of the state polygons: fill darker with more groups, the selected one orange."""
    top = max(int(max((groups[n] for n in regions), default=1)), 1)
    feats = [{"type": "Feature", "geometry": geom,
              "properties": {"label": f"{map_text(pos['name'].iloc[n])}: {int(groups[n])} groups",
                             "opacity": round(0.15 + 0.6 * float(np.sqrt(groups[n] / top)), 3),
                             "chosen": selected is not None and int(n) == int(selected)}}
             for n, geom in sorted(regions.items())]

    def style(f):
        chosen = f["properties"]["chosen"]
        return {"color": "#b30000" if chosen else "#1f4e79", "weight": 3 if chosen else 0.8,
                "fillColor": "#e6550d" if chosen else "#4a90c2",
                "fillOpacity": 0.8 if chosen else f["properties"]["opacity"]}

    return folium.GeoJson({"type": "FeatureCollection", "features": feats}, name="states", style_function=style,
                          tooltip=folium.GeoJsonTooltip(["label"], labels=False), highlight_function=None)


def node_regions(h: Hierarchy, level: int, outlines: dict[str, dict] | None) -> dict[int, dict]:
    """node -> outline geometry for the nodes of ``level`` whose name has one (empty without outlines)."""
    if not outlines:
        return {}
    return {int(n): outlines[h.names[n]] for n in h.level_nodes(level) if h.names[n] in outlines}


def region_node(regions: dict[int, dict], lat: float, lng: float) -> int | None:
    """The node whose region contains the clicked point, or None."""
    for node, geom in regions.items():
        b = tj.bbox(geom)
        if b is not None and b[0] <= lng <= b[2] and b[1] <= lat <= b[3] and tj.contains(geom, lng, lat):
            return node
    return None


def nearest_node(pos: pd.DataFrame, level: int, lat: float, lng: float) -> int | None:
    """The node of ``level`` whose marker is closest to a clicked point."""
    sel = pos[(pos["level"] == level) & pos["lat"].notna()]
    if sel.empty:
        return None
    d = (sel["lat"] - lat) ** 2 + (sel["lon"] - lng) ** 2
    return int(sel["node"].iloc[int(np.argmin(d.to_numpy()))])


def histogram_figure(true_h: np.ndarray, private_h: np.ndarray, name: str, log_y: bool) -> go.Figure:
    """Grouped bars: how many groups have each size, true versus private (sizes up to the largest used)."""
    used = np.flatnonzero((true_h != 0) | (private_h != 0))
    top = int(used.max()) if used.size else 1
    sizes = np.arange(top + 1)
    fig = go.Figure([
        go.Bar(x=sizes, y=true_h[: top + 1], name="true (not private)", marker_color="#7f7f7f"),
        go.Bar(x=sizes, y=private_h[: top + 1], name="private release", marker_color="#e6550d"),
    ])
    fig.update_layout(barmode="group", title=f"Count of counts at {name}: number of groups of each size",
                      xaxis_title="group size (records per group)", yaxis_title="number of groups",
                      height=420, margin=dict(t=50, b=40), legend=dict(orientation="h", y=1.02, x=1, xanchor="right"))
    if log_y:
        fig.update_yaxes(type="log", dtick=1, exponentformat="power")   # decades only, no 2/5 clutter
    return fig


def children_check(rel: CocoRelease, node: int) -> dict:
    """Does the node's released histogram equal the sum of its children's? (None for a leaf.)"""
    kids = rel.hierarchy.children(node)
    if kids.size == 0:
        return {"children": 0, "equal": None, "max_difference": 0}
    diff = rel.histograms[node] - rel.histograms[kids].sum(axis=0)
    return {"children": int(kids.size), "equal": bool((diff == 0).all()), "max_difference": int(np.abs(diff).max())}
