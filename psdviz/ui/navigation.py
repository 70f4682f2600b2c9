"""The app's pages, declared once: imported by the pages script (``pages.py``) for every visitor and by
``app.py``'s start-up hook, which imports this module (and so every page's dependencies) before the
server accepts connections. Importing it has no Streamlit side effects."""
import streamlit as st

from psdviz.ui import (
    coco_page,
    compare_page,
    map_page,
    regions_page,
    release_page,
    sparse_page,
    teach_page,
    time_page,
)


def app_pages() -> list:
    """The pages in menu order, the map first (the default)."""
    return [st.Page(map_page.render, title="Map: build, see, query", url_path="map", default=True),
            st.Page(release_page.render, title="Open a release", url_path="release"),
            st.Page(regions_page.render, title="Regions", url_path="regions"),
            st.Page(time_page.render, title="Counts over time", url_path="time"),
            st.Page(teach_page.render, title="Teach: noise as noise", url_path="teach"),
            st.Page(compare_page.render, title="Compare methods", url_path="compare"),
            st.Page(coco_page.render, title="Count of counts", url_path="coco"),
            st.Page(sparse_page.render, title="Sparse tables", url_path="sparse")]
