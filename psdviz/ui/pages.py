"""The script Streamlit runs for every visitor (``app.py`` serves it): page config and navigation over
the pages of :mod:`psdviz.ui.navigation`."""
import streamlit as st

from psdviz.ui import address
from psdviz.ui.navigation import app_pages
from psdviz.ui.state import keep_widget_state, start_over_button

# a smaller top margin (the map and its answer in the first screen at 1280 x 800), and metric values that shrink
# with a narrow window rather than being cut ("25,952 to 30,..." in the answer column at 1280 px)
TOP = ("<style>[data-testid='stMainBlockContainer']{padding-top:2.75rem}"
       "[data-testid='stMetricValue']{font-size:clamp(1.25rem,1.8vw,2.25rem)}</style>")

st.set_page_config(page_title="psdviz", layout="wide")
st.html(TOP)
keep_widget_state()           # inputs survive going to another page and back
address.read_once()           # a reload, a bookmark or a link opens the view its address names
start_over_button()
page = st.navigation(app_pages())
address.show(page.url_path)   # and the address keeps it on the pages that may use it, not on Open a release
page.run()
