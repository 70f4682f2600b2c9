"""An error the app shows can quote what a user's file holds (a column, a region id, a name): it is shown as
written, never as markdown (an image fetched from an address in a column name, a link, a formula)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from psdviz.ui.words import file_text

HOSTILE = "column ![seen](http://example.invalid/pixel.png) [click](http://example.invalid) $x^2$ :red[alarm]"
UI = Path(__file__).resolve().parents[2] / "psdviz" / "ui"

PAGE = """
from psdviz.errors import InputDataError
from psdviz.ui import {page}
def refuse(*a, **k):
    raise InputDataError({hostile!r})
kept = {page}.{loader}
{page}.{loader} = refuse         # the page module is shared by the process's other tests: put it back after
try:
    {page}.render()
finally:
    {page}.{loader} = kept
"""


@pytest.mark.parametrize(("page", "loader"), [("coco_page", "_flights"), ("sparse_page", "_source")])
def test_a_data_problem_quoting_the_file_is_shown_as_written(page, loader):
    at = AppTest.from_string(PAGE.format(page=page, loader=loader, hostile=HOSTILE), default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    assert [e.value for e in at.error] == [f"Data problem: {file_text(HOSTILE)}"]


BUG = PAGE.replace("from psdviz.errors import InputDataError\n", "").replace("raise InputDataError(",
                                                                            "raise ValueError(")   # a bug's


@pytest.mark.parametrize(("page", "loader"), [("coco_page", "_flights"), ("sparse_page", "_source")])
def test_a_plain_value_error_is_not_shown_as_the_users_data_problem(page, loader):
    """A ValueError that is not one of psdviz.errors' types comes from a bug: the page does not call it a data
    problem; it fails as the exception it is."""
    at = AppTest.from_string(BUG.format(page=page, loader=loader, hostile="an index went wrong"), default_timeout=60)
    at.run()
    assert at.exception and "an index went wrong" in at.exception[0].value
    assert not [e.value for e in at.error if e.value.startswith("Data problem")]


def test_every_error_the_pages_show_from_an_exception_is_escaped():
    """The pages' ``st.error`` calls that show an exception's words pass them through ``file_text``."""
    bare = []
    for path in sorted(UI.glob("*.py")):
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if re.search(r"st\.error\(f?\".*\{(exc|e|err|error)\}", line):
                bare.append(f"{path.name}:{n}")
    assert not bare, bare
