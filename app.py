"""psdviz app: `streamlit run app.py` (after `bash .ci/setup app`, which also fetches Leaflet)."""
import streamlit as st

from psdviz.ui import map_page

st.set_page_config(page_title="psdviz", layout="wide")
pages = [st.Page(map_page.render, title="Map: build, see, query", url_path="map", default=True)]
st.navigation(pages).run()
