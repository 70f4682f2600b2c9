"""Build progress: passes reported through pv.build's callback, and the app's bar."""
from __future__ import annotations

import numpy as np
import pytest

import psdviz as pv

PTS = np.random.default_rng(0).random((5000, 2))
DOM = pv.Domain(0.0, 0.0, 1.0, 1.0)


@pytest.mark.parametrize("method,passes,what", [("quadtree", 6, "quadtree levels"),
                                                ("kdtree", 8, "median split levels"),
                                                ("privtree", None, "PrivTree depths")])
def test_passes_are_reported_in_order(method, passes, what):
    calls = []
    kw = {"height": 5} if method == "quadtree" else {"height": 4} if method == "kdtree" else {}
    rel = pv.build(PTS, DOM, method, 1.0, seed=1, progress=lambda d, t, w: calls.append((d, t, w)), **kw)
    assert calls[0][0] == 0 and calls[-1] == (1, 1, f"{method}: done")
    steps = [(d, t) for d, t, w in calls if w == what]
    assert [d for d, _ in steps] == list(range(1, len(steps) + 1))
    assert len(steps) == (passes if passes else rel.tree.height + 1)


def test_no_callback_changes_nothing_and_bad_callbacks_are_refused():
    a = pv.build(PTS, DOM, "kdtree", 1.0, seed=3)
    b = pv.build(PTS, DOM, "kdtree", 1.0, seed=3, progress=lambda *x: None)
    np.testing.assert_array_equal(a.tree.noisy, b.tree.noisy)
    with pytest.raises(ValueError, match="progress must be a function"):
        pv.build(PTS, DOM, "ug", 1.0, progress=3)


def test_the_app_bar_waits_one_second():
    from streamlit.testing.v1 import AppTest
    script = """
import streamlit as st
from psdviz.ui.cache import ProgressBar
now = [0.0]
bar = ProgressBar(delay=1.0, clock=lambda: now[0])
bar(1, 4, "levels")
st.session_state["early"] = bar.shown
now[0] = 1.5
bar(2, 4, "levels")
st.session_state["late"] = bar.shown
"""
    at = AppTest.from_string(script).run()
    assert at.session_state["early"] is False and at.session_state["late"] is True
    assert not at.exception


def test_the_lab_passes_each_builds_progress_with_its_trial():
    from psdviz.lab import compare as C
    qs = C.make_queries(PTS, DOM, C.Workload("shape", ((0.2, 0.2),), 10), seed=0)
    seen = []
    C.run_cell(PTS, DOM, C.variant("kd", "kdtree", height=3), 1.0, qs, trials=2, seed=1,
               progress=lambda t, d, n, w: seen.append((t, w)))
    assert {t for t, _ in seen} == {0, 1} and ("median split levels" in {w for _, w in seen})
