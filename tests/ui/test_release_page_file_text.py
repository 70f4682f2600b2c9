"""A release file is someone else's text: "Open a release" shows its method, notes and parameters as written,
never as markdown (an image fetched from an address in a note, a link, a formula, a coloured span)."""
from __future__ import annotations

import re

from streamlit.testing.v1 import AppTest

from psdviz.ui.words import file_text

HOSTILE = "![seen](http://example.invalid/pixel.png) [click](http://example.invalid) $x^2$ :red[alarm] **bold**"

PAGE = f"""
import numpy as np
import psdviz as pv
from psdviz.ui import mapview, release_page
mapview.show_map = lambda *a, **k: {{}}
rel = pv.build(np.random.default_rng(0).random((500, 2)), pv.Domain(0, 0, 1, 1), "quadtree", 1.0, seed=1)
rel = rel.evolve(notes=({HOSTILE!r},), params={{**rel.params, "label": {HOSTILE!r}}})
release_page.summary(rel)
"""


def test_file_text_escapes_every_markdown_character_and_keeps_the_words():
    out = file_text(HOSTILE)
    assert not re.search(r"(?<!\\)[!\[\]()$:*]", out)         # every one of them escaped
    assert out.replace("\\", "") == HOSTILE            # the reader sees the text as written


def test_open_a_release_shows_a_files_notes_and_parameters_as_text():
    at = AppTest.from_string(PAGE, default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    shown = [c.value for c in at.caption]
    assert file_text(HOSTILE) in shown                             # the note, escaped
    assert any(file_text(HOSTILE) in c for c in shown if c.startswith("Domain"))   # the parameter, escaped
    assert not any("![seen](" in c for c in shown)


PANEL = f"""
import pandas as pd
from psdviz.ui import regions_page
counts = pd.DataFrame({{"id": ["a", "b"], "name": ["Top", {HOSTILE!r}], "level": [0, 1], "parent": [None, "a"],
                        "estimate": [10.0, 4.0], "standard_error": [1.0, 1.0]}})
regions_page._region_panel(counts, "b", None, "noise", regions_page.REGIONS_KEYS)
"""


def test_a_layers_region_name_is_shown_as_text():
    """A region's name comes from the layer's file: its panel's heading shows it as written."""
    at = AppTest.from_string(PANEL, default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    assert at.subheader[0].value == file_text(HOSTILE)
