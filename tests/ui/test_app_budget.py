"""The map page with a data set's budget: the remainder shown beside epsilon, each fresh release shown
recorded once (a rerun or a return to it draws nothing more), a build the remainder cannot take refused
in words before it is built, seeded teaching runs never recorded."""
from __future__ import annotations

from streamlit.testing.v1 import AppTest

import psdviz as pv

PAGE = """
from psdviz.ui import map_page, mapview
mapview.show_map = lambda *a, **k: {}
map_page.render()
"""


def _texts(at) -> str:
    return " ".join(str(e.value) for e in list(at.error) + list(at.caption) + list(at.markdown))


def test_the_map_page_draws_from_a_budget_once_and_refuses_past_it(tmp_path):
    path = tmp_path / "sample.budget.json"
    pv.Budget(path, total_epsilon=0.8)
    at = AppTest.from_string(PAGE, default_timeout=180)
    at.run()
    assert not at.exception
    at.text_input(key="budget_path").set_value(str(path)).run()       # epsilon 0.5, fresh: built, recorded
    assert not at.exception and not at.error
    assert pv.Budget(path).spent == 0.5 and [e.kind for e in pv.Budget(path).entries] == ["spatial"]
    at.run()                                                          # a rerun keeps the release: no new draw
    assert pv.Budget(path).spent == 0.5
    assert "epsilon **0.3 left** of 0.8" in _texts(at)
    at.select_slider(key="epsilon").set_value(1.0).run()              # more than is left: not built
    assert any("Not built" in e.value and "has epsilon 0.3 left" in e.value for e in at.error)
    assert pv.Budget(path).spent == 0.5
    at.select_slider(key="epsilon").set_value(0.5).run()              # back to the release already recorded
    assert not at.error and pv.Budget(path).spent == 0.5
    at.radio(key="rand_mode").set_value("seed").run()                 # a seeded lesson is not a release
    at.select_slider(key="epsilon").set_value(1.0).run()
    assert not at.error and pv.Budget(path).spent == 0.5


def test_a_missing_budget_file_is_said_in_words(tmp_path):
    at = AppTest.from_string(PAGE, default_timeout=180)
    at.run()
    at.text_input(key="budget_path").set_value(str(tmp_path / "none.json")).run()
    assert not at.exception
    assert any("No budget file at" in e.value and "psdviz budget init" in e.value for e in at.error)


def test_the_map_page_offers_synthetic_points_labelled_as_such():
    import io

    import numpy as np
    import pandas as pd
    import pytest

    from psdviz.ui import export
    at = AppTest.from_string(PAGE, default_timeout=180)
    at.run()
    labels = [b.proto.label for b in at.get("download_button")]
    assert "Synthetic points (CSV)" in labels
    pts = np.random.default_rng(0).random((4000, 2))
    fresh = pv.build(pts, pv.Domain(0, 0, 1, 1), "quadtree", 1.0)
    table = pd.read_csv(io.BytesIO(export.synthetic_csv(fresh)))
    assert list(table.columns) == ["lon", "lat"] and len(table) == len(fresh.sample_points())   # the released total
    assert table["lon"].between(0, 1).all() and table["lat"].between(0, 1).all()
    seeded = pv.build(pts, pv.Domain(0, 0, 1, 1), "quadtree", 1.0, seed=3)
    with pytest.raises(ValueError, match="seeded"):
        export.synthetic_csv(seeded)
    assert (pd.read_csv(io.BytesIO(export.synthetic_csv(seeded, True)))["warning"].str.contains("NOT PRIVATE")).all()
