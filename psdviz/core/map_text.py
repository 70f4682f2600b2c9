"""Text from the user's files made inert before it enters a folium map.

folium renders each map element's script and then compiles that output again as a Jinja template
(branca's ``MacroElement.render``), so a region or group name such as ``{{ cycler.__init__.__globals__ }}``
in an uploaded layer or table would run on the server; and a map's tooltips insert their text as HTML, so
``<img onerror=...>`` would run in the reader's browser. Every string from the data (region ids, names,
hierarchy node names) goes through :func:`map_text` first: HTML-escaped (``&``, ``<``, ``>``), and every
``{`` that opens a Jinja delimiter (``{{``, ``{%``, ``{#``) followed by a zero-width space, which the reader
does not see and Jinja does not read.
"""
from __future__ import annotations

import html
import re

import pandas as pd

_OPENS_JINJA = re.compile(r"\{(?=[{%#])")
ZERO_WIDTH = "\u200b"


def map_text(value: object) -> str:
    """``value`` as text that neither Jinja nor HTML reads as code (module docstring)."""
    return _OPENS_JINJA.sub("{" + ZERO_WIDTH, html.escape(str(value), quote=False))


def inert_columns(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` whose text columns went through :func:`map_text` (numbers and geometry unchanged);
    the caller's frame is not altered."""
    out = frame.copy()
    for col in out.columns:
        if col != "geometry" and (out[col].dtype == object or pd.api.types.is_string_dtype(out[col])):
            out[col] = [v if v is None or (isinstance(v, float) and v != v) else map_text(v) for v in out[col]]
    return out
