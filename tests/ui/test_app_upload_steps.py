"""An upload's steps on the map page, said where the map would be: the file, its coordinate columns, its public
bounds (a step of its own: no silent world), and the bad-rows rule (text in a coordinate refused as the command
line refuses it; rows missing a coordinate and rows outside the domain, with the swapped columns named, warned
about above the map, outside any expander)."""
from __future__ import annotations

import pandas as pd
from streamlit.testing.v1 import AppTest
from test_app_page import SCRIPT

from psdviz.ui import data_input

MONTREAL = pd.DataFrame({"lon": [-73.6 + 0.001 * i for i in range(60)], "lat": [45.5 + 0.001 * i for i in range(60)]})


def _upload(frame: pd.DataFrame, name: str = "trips.csv") -> AppTest:
    at = AppTest.from_string(SCRIPT, default_timeout=120)
    at.session_state[data_input.UPLOAD_KEPT] = (name, frame.to_csv(index=False).encode())
    at.run()
    at.radio(key="data_source").set_value("upload a file").run()
    assert not at.exception, at.exception
    return at


def _main_texts(at) -> list[str]:
    """What the main area says (info, warning and error boxes and markdown, not the sidebar's)."""
    return [e.value.replace("\\", "") for kind in (at.main.info, at.main.warning, at.main.error, at.main.markdown)
            for e in kind]


def _bounds(at, choice: str = "typed bounds", box=(-74.0, 45.0, -73.0, 46.0)) -> AppTest:
    at.radio(key="upload_bounds_pick").set_value(choice).run()
    if choice == "typed bounds":
        for k, v in zip(("xmin", "ymin", "xmax", "ymax"), box):
            at.number_input(key=f"upload_{k}").set_value(v)
        at.run()
    at.button(key="upload_bounds_btn").click().run()
    assert not at.exception, at.exception
    return at


def test_columns_not_named_lon_lat_are_asked_for_where_the_map_would_be():
    at = _upload(MONTREAL.rename(columns={"lon": "long_deg", "lat": "north"}))
    said = " ".join(_main_texts(at))
    assert "Pick the coordinate columns" in said and "long_deg" in said and "north" in said
    assert not [m for m in at.markdown if "PRIVATE release" in m.value]      # nothing built


def test_an_upload_asks_for_its_public_bounds_as_a_step_of_its_own():
    at = _upload(MONTREAL)
    pick = at.radio(key="upload_bounds_pick")
    assert pick.value is None and "the world" in pick.options          # the world a choice, not a default
    said = " ".join(_main_texts(at))
    assert "must not come from the data" in said
    assert not [m for m in at.markdown if "PRIVATE release" in m.value]      # nothing built before the bounds
    _bounds(at)
    assert [m for m in at.markdown if "PRIVATE release" in m.value]
    assert at.radio(key="upload_domain").value == "typed bounds"          # the sidebar shows and changes it
    details = " ".join(c.value for c in at.caption)
    assert "x [-74, -73], y [45, 46]" in details


def test_text_in_a_coordinate_is_refused_as_the_command_line_refuses_it():
    bad = pd.DataFrame({"lon": ["-73.6", "abc", "-73.5", "n/a"], "lat": ["45.5", "45.6", "45.7", "45.8"]})
    at = _upload(bad)
    errors = [e.value for e in at.error]
    said = "2 rows of 'lon' / 'lat' hold text, not numbers"
    assert any(said in e and "fix or remove them" in e for e in errors), errors
    assert not [m for m in at.markdown if "PRIVATE release" in m.value]


def test_missing_coordinates_and_swapped_columns_are_warned_above_the_map():
    rows = MONTREAL.copy()
    rows.loc[3, "lat"] = None                                          # an empty cell: a missing point
    swapped = rows.rename(columns={"lon": "lat", "lat": "lon"})[["lon", "lat"]]
    at = _bounds(_upload(swapped))
    warnings = [w.value for w in at.main.warning]
    assert any("1 of the 60 rows have a missing coordinate" in w for w in warnings), warnings
    assert any("59 of the 60 rows" in w and "other way round would keep 59" in w for w in warnings), warnings
    assert any("None of the 60 points lies inside the domain" in e.value for e in at.main.error)


def test_a_file_that_cannot_be_used_is_said_where_the_map_would_be_not_only_in_the_sidebar():
    """An empty file and text in a coordinate: the sidebar's red error, and the same words in the main area."""
    for name, raw, says in (("empty.csv", b"", "is empty"),
                            ("text.csv", b"lon,lat\n-73.6,45.5\nn/a,45.6\n-73.5,45.7\n", "not numbers")):
        at = AppTest.from_string(SCRIPT, default_timeout=120)
        at.session_state[data_input.UPLOAD_KEPT] = (name, raw)
        at.run()
        at.radio(key="data_source").set_value("upload a file").run()
        assert not at.exception, at.exception
        assert [e.value for e in at.sidebar.error if says in e.value], (name, [e.value for e in at.error])
        assert [e.value for e in at.main.error if says in e.value], (name, _main_texts(at))
