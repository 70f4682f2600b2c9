"""The one place the map component is called: a thin wrapper that tests replace.

Only drawings and clicked objects are returned, so panning and zooming never rerun the script.
"""
from __future__ import annotations

RETURNED = ["all_drawings", "last_object_clicked"]


def show_map(fmap, key: str, height: int = 560) -> dict | None:
    """Render a folium map; returns streamlit-folium's dict (``all_drawings``, ``last_object_clicked``)."""
    from streamlit_folium import st_folium
    return st_folium(fmap, key=key, height=height, use_container_width=True, returned_objects=RETURNED)  # width=None
