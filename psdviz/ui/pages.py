"""The script Streamlit runs for every visitor (``app.py`` serves it): page config and navigation over
the pages of :mod:`psdviz.ui.navigation`."""
import streamlit as st

from psdviz.ui.navigation import app_pages

st.set_page_config(page_title="psdviz", layout="wide")
st.navigation(app_pages()).run()
