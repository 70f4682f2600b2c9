"""The Streamlit app's UI layer: widgets, map and exports over engine calls (no algorithm here).
May import anything in psdviz; nothing in the engine imports it."""
