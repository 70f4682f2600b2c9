"""The one place the map component is called: a thin wrapper that tests replace.

Only drawings and clicked objects are returned, so panning and zooming never rerun the script.
``overlay`` (a folium FeatureGroup, e.g. the kept query rectangle) is sent to streamlit-folium as
``feature_group_to_add``: it is replaced in the live map without remounting it, so changing it
neither resets the user's zoom nor redraws the cells.

A map can also come as a :class:`MapView`: a :class:`Frame` (the public part of a map, rendered once per
process the way streamlit-folium renders a folium map) and one release's layers for its slot. It is sent
with the same arguments streamlit-folium would send for the whole map (tests/ui/test_map_frame.py holds
the two to each other), without rendering the frame again on every rerun of every session.
"""
from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass

import streamlit as st

RETURNED = ["all_drawings", "last_object_clicked"]


@dataclass(frozen=True)
class Frame:
    """A folium map rendered as streamlit-folium sends it (its script holding ``slot`` where a release's
    layers go), and a digest of it."""

    script: str
    header: str
    html: str
    map_id: str
    css_links: tuple[str, ...]
    js_links: tuple[str, ...]
    slot: str

    @functools.cached_property
    def digest(self) -> str:
        return hashlib.sha256("\0".join([self.script, self.header, self.html, *self.css_links,
                                         *self.js_links]).encode()).hexdigest()


@dataclass(frozen=True)
class MapView:
    """A map to show: a public frame, the layers of one release that fill its slot, and the kept query
    rectangle drawn over it (``query``: ``([xmin, ymin, xmax, ymax], typed)``; ``overlay``: its script, sent as
    streamlit-folium's overlay, :func:`overlay_script`)."""

    frame: Frame
    layers: str
    query: tuple[tuple[float, ...], bool] | None = None
    overlay: str | None = None

    @property
    def script(self) -> str:
        return self.frame.script.replace(self.frame.slot, self.layers, 1)


def latest_value(key: str) -> dict:
    """The map's newest returned dict before the map is drawn again (streamlit-folium copies it to
    ``st.session_state[key]`` when the user draws or clicks), so a new drawing can be reflected in
    the overlay of the very run it triggers; {} if there is none."""
    value = st.session_state.get(key)
    return value if isinstance(value, dict) else {}


def show_map(fmap, key: str, height: int = 560, overlay=None) -> dict | None:
    """Render a folium map (``overlay``: a FeatureGroup) or a :class:`MapView` (its own query rectangle); returns
    streamlit-folium's dict (``all_drawings``, ``last_object_clicked``)."""
    if isinstance(fmap, MapView):
        return _show_view(fmap, key, height)
    from streamlit_folium import st_folium
    return st_folium(fmap, key=key, height=height, width=None, returned_objects=RETURNED,
                     feature_group_to_add=overlay)


def _links(fmap) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The CSS and JS links of the map's elements, deduplicated in order (streamlit-folium's walk)."""
    import folium
    css: list[str] = []
    js: list[str] = []

    def walk(el) -> None:
        if isinstance(el, folium.elements.JSCSSMixin):
            css.extend(href for _, href in getattr(el, "default_css", []))
            js.extend(src for _, src in getattr(el, "default_js", []))
        for child in getattr(el, "_children", {}).values():
            walk(child)
    walk(fmap)
    return tuple(dict.fromkeys(css)), tuple(dict.fromkeys(js))


def frame_of(fmap, slot: str) -> Frame:
    """A folium map (no colormap, not a DualMap) rendered once as ``st_folium`` renders it: the figure, then the
    map, its html, header and Leaflet script, which holds ``slot`` (the script of an element of the map)."""
    import streamlit_folium as sf
    fmap.get_root().render()
    fmap.render()
    html, header = sf._get_html(fmap), sf._get_header(fmap)
    script = sf._get_map_string(fmap)
    if slot not in script:
        raise RuntimeError("the map has no slot for a release's layers (a bug in psdviz)")
    css, js = _links(fmap)
    return Frame(script, header, html, sf.get_full_id(fmap), css, js, slot)


def overlay_script(group) -> str:
    """streamlit-folium's script of an overlay (a folium FeatureGroup), made on a map of its own: a frame is
    shared and never changed."""
    import folium
    import streamlit_folium as sf
    return sf._get_feature_group_string(group, map=folium.Map(tiles=None), idx=0)


# streamlit-folium's defaults of the returned objects, in its order (the frontend compares JSON texts)
DEFAULTS = {"last_object_clicked": None, "all_drawings": None}


def _show_view(view: MapView, key: str, height: int) -> dict | None:
    """``st_folium`` 's component call for a map whose frame is rendered already (same arguments)."""
    import streamlit_folium as sf
    feature_group = view.overlay
    layers_digest = hashlib.sha256(view.layers.encode()).hexdigest()
    hash_key = hashlib.sha256(f"{view.frame.digest}|{layers_digest}|{key}|False".encode()).hexdigest()

    def on_change() -> None:
        st.session_state[key] = st.session_state.get(hash_key, {})

    return sf._component_func(
        script=view.script, header=view.frame.header, html=view.frame.html, id=view.frame.map_id, key=hash_key,
        height=height, width=None, returned_objects=RETURNED, default=dict(DEFAULTS), zoom=None,
        center=None, feature_group=feature_group, return_on_hover=False, layer_control=None, pixelated=False,
        css_links=list(view.frame.css_links), js_links=list(view.frame.js_links), on_change=on_change,
        wrap_longitude=False)
