"""The app's pages and navigation: the script Streamlit runs for every visitor (``app.py`` serves it)."""
import streamlit as st

from psdviz.ui import coco_page, compare_page, map_page, release_page, sparse_page

st.set_page_config(page_title="psdviz", layout="wide")
pages = [st.Page(map_page.render, title="Map: build, see, query", url_path="map", default=True),
         st.Page(release_page.render, title="Open a release", url_path="release"),
         st.Page(compare_page.render, title="Compare methods", url_path="compare"),
         st.Page(coco_page.render, title="Count of counts", url_path="coco"),
         st.Page(sparse_page.render, title="Sparse tables", url_path="sparse")]
st.navigation(pages).run()
