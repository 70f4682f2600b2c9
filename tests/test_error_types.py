"""Every error a caller can cause through the public API is one of psdviz.errors' named types (each a
ValueError, so code that catches ValueError keeps working): wrong parameters are ParameterError, data that
cannot be used InputDataError, files that are not sound releases ReleaseFileError. The hostile release
files are walked in tests/test_hostile_corpus.py with the same rule."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import psdviz as pv
from psdviz.errors import InputDataError, ParameterError, PsdvizError, ReleaseFileError

PTS = np.random.default_rng(0).random((500, 2))
DOM = pv.Domain(0, 0, 1, 1)


@pytest.fixture(scope="module")
def rel():
    return pv.build(PTS, DOM, "quadtree", 1.0)


CASES = {
    "unknown method": (ParameterError, lambda r, p: pv.build(PTS, DOM, "nope", 1.0)),
    "negative epsilon": (ParameterError, lambda r, p: pv.build(PTS, DOM, "quadtree", -1)),
    "NaN epsilon": (ParameterError, lambda r, p: pv.build(PTS, DOM, "quadtree", float("nan"))),
    "parameter of the wrong kind": (ParameterError, lambda r, p: pv.build(PTS, DOM, "quadtree", 1.0, height="x")),
    "unknown parameter": (ParameterError, lambda r, p: pv.build(PTS, DOM, "quadtree", 1.0, bogus=3)),
    "resolution out of range": (ParameterError, lambda r, p: pv.build(PTS, DOM, "quadtree", 1.0, resolution=99)),
    "seed of the wrong kind": (ParameterError, lambda r, p: pv.build(PTS, DOM, "quadtree", 1.0, seed="x")),
    "outside mode": (ParameterError, lambda r, p: pv.build(PTS, DOM, "quadtree", 1.0, outside="x")),
    "workload on a method without one": (ParameterError,
                                         lambda r, p: pv.build(PTS, DOM, "kdtree", 1.0, workload=[[0, 0, 1, 1]])),
    "NaN in the points": (InputDataError, lambda r, p: pv.build(np.array([[np.nan, .5], [.2, .2]]), DOM, "ug", 1)),
    "text as points": (InputDataError, lambda r, p: pv.build([["a", "b"]], DOM, "quadtree", 1.0)),
    "three columns": (InputDataError, lambda r, p: pv.build(np.zeros((3, 3)), DOM, "quadtree", 1.0)),
    "bounds the wrong way": (InputDataError, lambda r, p: pv.Domain(1, 0, 0, 1)),
    "NaN bounds": (InputDataError, lambda r, p: pv.Domain(np.nan, 0, 1, 1)),
    "a NaN rectangle": (ParameterError, lambda r, p: r.answer([[np.nan, 0, 1, 1]])),
    "a rectangle the wrong way": (ParameterError, lambda r, p: r.answer([[1, 0, 0, 1]])),
    "an interval level of 2": (ParameterError, lambda r, p: r.answer_interval([[0, 0, 1, 1]], level=2)),
    "writing a seeded release": (ParameterError,
                                 lambda r, p: pv.build(PTS, DOM, "quadtree", 1.0, seed=1).save(p / "s.parquet")),
    "loading a text file": (ReleaseFileError, lambda r, p: pv.load_release(_text(p))),
    "loading a missing file": (ReleaseFileError, lambda r, p: pv.load_release(p / "missing.parquet")),
    "a window that is not a duration": (ParameterError, lambda r, p: pv.build_over_time(
        PTS, DOM, time=np.zeros(len(PTS)), span=(0, 10), window="x", epsilon=1.0)),
}


def _text(tmp):
    f = tmp / "notes.txt"
    f.write_text("not a release\n")
    return f


@pytest.mark.parametrize("case", list(CASES))
def test_each_error_a_caller_can_cause_has_its_named_type(case, rel, tmp_path):
    expected, call = CASES[case]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(PsdvizError) as info:
            call(rel, tmp_path)
    assert isinstance(info.value, expected), (type(info.value).__name__, str(info.value))
    assert isinstance(info.value, ValueError) and str(info.value)


def test_a_plain_value_error_fails_the_check():
    """The check above can fail: a plain ValueError is not a PsdvizError."""
    with pytest.raises(ValueError) as info:
        int("x")
    assert not isinstance(info.value, PsdvizError)
