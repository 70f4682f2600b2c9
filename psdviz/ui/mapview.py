"""The one place the map component is called: a thin wrapper that tests replace.

Only drawings and clicked objects are returned, so panning and zooming never rerun the script.
``overlay`` (a folium FeatureGroup, e.g. the kept query rectangle) is sent to streamlit-folium as
``feature_group_to_add``: it is replaced in the live map without remounting it, so changing it
neither resets the user's zoom nor redraws the cells.
"""
from __future__ import annotations

import streamlit as st

RETURNED = ["all_drawings", "last_object_clicked"]


def latest_value(key: str) -> dict:
    """The map's newest returned dict before the map is drawn again (streamlit-folium copies it to
    ``st.session_state[key]`` when the user draws or clicks), so a new drawing can be reflected in
    the overlay of the very run it triggers; {} if there is none."""
    value = st.session_state.get(key)
    return value if isinstance(value, dict) else {}


def show_map(fmap, key: str, height: int = 560, overlay=None) -> dict | None:
    """Render a folium map; returns streamlit-folium's dict (``all_drawings``, ``last_object_clicked``)."""
    from streamlit_folium import st_folium
    return st_folium(fmap, key=key, height=height, width=None, returned_objects=RETURNED,
                     feature_group_to_add=overlay)
