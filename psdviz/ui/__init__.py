"""The Streamlit app's UI layer: widgets, map and exports over engine calls (no algorithm here)."""
