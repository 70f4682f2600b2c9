"""The script Streamlit runs for every visitor (``app.py`` serves it): page config and navigation over
the pages of :mod:`psdviz.ui.navigation`."""
import streamlit as st

from psdviz.ui.navigation import app_pages
from psdviz.ui.state import keep_widget_state, start_over_button

st.set_page_config(page_title="psdviz", layout="wide")
keep_widget_state()           # inputs survive going to another page and back
start_over_button()
st.navigation(app_pages()).run()
