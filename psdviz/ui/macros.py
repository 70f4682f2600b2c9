"""The app's own map elements, rendered once: branca hands each part a MacroElement renders (header, html,
script) to a new Element built from that text as a Jinja template, so the text is lexed and compiled again
only to give back the same text. For a layer of cells or outlines that is hundreds of KB on every rerun,
twice (streamlit-folium renders the figure and then the map), and most of the map's server time
(docs/decisions/classroom.md). :class:`PlainMacro` adds each part as it is (:class:`Verbatim`); the page
is the same, since no part holds Jinja syntax of its own. The maps' numbers travel as base64 typed arrays
(:func:`b64_table`, decoded by :data:`TABLE_JS`)."""
from __future__ import annotations

import base64
import json

import numpy as np
from branca.element import Element, Figure, MacroElement

PARTS = ("header", "html", "script")


class Verbatim(Element):
    """Text placed in a figure as it is (no template)."""

    def __init__(self, text: str):
        super().__init__()
        self._name = "Verbatim"
        self.text = text

    def render(self, **kwargs) -> str:
        return self.text


class PlainMacro(MacroElement):
    """A MacroElement whose rendered parts go into the figure verbatim (else as branca's ``render``: the
    header, html and script macros of its template, then its children)."""

    def render(self, **kwargs) -> None:  # type: ignore[override]  # as branca's MacroElement.render: no text
        figure = self.get_root()
        if not isinstance(figure, Figure):
            raise TypeError("a map element renders only inside a folium Figure (add it to a map first)")
        module = self._template.module.__dict__
        for part in PARTS:
            macro = module.get(part)
            if macro is not None:
                getattr(figure, part).add_child(Verbatim(str(macro(self, kwargs))), name=self.get_name())
        for child in self._children.values():
            child.render(**kwargs)


# The maps' binary tables: numbers sent as base64 typed arrays (little-endian), decoded in the browser by TABLE_JS.
TABLE_JS = """function table(s, Type) {
    var b = atob(s), u = new Uint8Array(b.length);
    for (var k = 0; k < b.length; k++) { u[k] = b.charCodeAt(k); }
    return new Type(u.buffer);
}"""


def b64_table(a: np.ndarray, dtype: str = "<f8") -> str:
    """``a`` as a JSON string of base64 ``dtype`` bytes, for ``table(s, Type)`` of :data:`TABLE_JS`."""
    return json.dumps(base64.b64encode(np.ascontiguousarray(a, dtype=dtype).tobytes()).decode())
