"""psdviz app: `streamlit run app.py` (after `bash .ci/setup app`, which also fetches Leaflet).

The pages live in ``psdviz/ui/pages.py``, the script Streamlit runs for every visitor. This file is
the server: ``st.App`` with a start-up hook that imports the pages (Streamlit's elements, folium,
plotly, pandas and the engine: about 1.5 s on the 2-core VM) before the server accepts connections,
so the first visitor's page does not wait for them (first paint).
"""
from contextlib import asynccontextmanager

import streamlit as st


@asynccontextmanager
async def warm_up(_app):
    import psdviz.ui.navigation  # noqa: F401  (every page and what it imports)
    from psdviz.ui import memory
    memory.start()           # memory freed by closed sessions goes back to the system
    yield


app = st.App("psdviz/ui/pages.py", lifespan=warm_up)
