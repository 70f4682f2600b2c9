"""Releases over time: every unit and mechanism builds, keeps its ledger and its per-path composition, answers
rectangles over ranges of windows as sums of its estimates with honest variances, reloads bit for bit from its
file, and refuses edited files and bad input in words."""
from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest

import psdviz as pv
from psdviz.errors import InputDataError, ParameterError, ReleaseFileError
from psdviz.temporal import TimeRelease, to_seconds, true_answer_over_time
from psdviz.temporal.mechanisms import StreamModel, TreeTimeModel

DOM = pv.Domain(0, 0, 1, 1)
RNG = np.random.default_rng(0)
N = 6000
XY = np.clip(np.vstack([RNG.normal(0.3, 0.1, (N // 2, 2)), RNG.random((N - N // 2, 2))]), 0, 1)
TIMES = np.datetime64("2021-01-01") + (RNG.random(N) * 30 * 86400).astype("timedelta64[s]")
USERS = RNG.integers(0, 600, N)
SPAN = ("2021-01-01", "2021-01-31")
USER = {"unit": "user", "user": USERS, "max_points_per_window": 2, "max_points_per_user": 6}
WEVENT = {"unit": "w-event", "w": 5, "user": USERS, "max_points_per_window": 2}
CASES = {"event flat": {}, "event tree": {"mechanism": "tree"}, "user tree": USER,
         "user flat": {**USER, "mechanism": "flat"}, "user tree fanout 4": {**USER, "fanout": 4},
         "w-event ba": WEVENT, "w-event bd": {**WEVENT, "mechanism": "bd"}, "event privtree": {"partition": "privtree"},
         "user privtree": {**USER, "partition": "privtree"}, "w-event privtree": {**WEVENT, "partition": "privtree"}}
RECTS = np.array([[0.1, 0.1, 0.45, 0.6], [0.0, 0.0, 1.0, 1.0], [0.5, 0.25, 0.75, 0.5]])


def build(seed=1, epsilon=1.0, **kw) -> TimeRelease:
    kw = {"grid_level": 2, **kw}
    return pv.build_over_time(XY, DOM, time=TIMES, span=SPAN, window="1d", epsilon=epsilon, seed=seed, **kw)


@pytest.mark.parametrize("case", CASES)
def test_every_mechanism_keeps_its_ledger_and_every_path_within_epsilon(case):
    rel = build(**CASES[case])
    assert rel.ledger.total() <= rel.epsilon * (1 + 1e-12)
    part = sum(s.epsilon for s in rel.ledger.spends if s.what.startswith("partition"))
    model = rel.model
    if isinstance(model, TreeTimeModel):       # every window lies in one node a level: the levels add up
        tree = model.tree
        path = np.zeros(rel.windows)
        for d in range(tree.levels):
            nodes = np.arange(tree.bounds[d], tree.bounds[d + 1])
            path += np.repeat(model.level_epsilon[d], rel.windows) * (
                (np.arange(rel.windows)[None, :] >= tree.lo[nodes, None]) &
                (np.arange(rel.windows)[None, :] < tree.hi[nodes, None])).sum(axis=0)
        assert np.allclose(path + part, rel.ledger.total())
    elif isinstance(model, StreamModel):        # any w consecutive windows: tests and publications, each <= eps / 2
        eps = rel.epsilon - part
        sums = np.convolve(model.published_epsilon, np.ones(model.w))[:rel.windows]
        assert sums.max() <= eps / 2 * (1 + 1e-12)
        assert math.isclose(rel.ledger.spends[-1].epsilon, sums.max())
    unit = rel.privacy_unit
    want = {"point": 1, "user": 6, "w-event": 2}[unit.kind]
    assert all(s.sensitivity == want for s in rel.ledger.spends if not s.what.startswith("partition"))
    k = {"point": 1, "user": 6, "w-event": 10}[unit.kind]    # the pooled partition: group privacy over k events
    assert all(s.sensitivity % k == 0 for s in rel.ledger.spends if s.what.startswith("partition"))
    assert rel.report()["kind"] == "over-time" and rel.report()["privacy_unit"] == str(unit)


@pytest.mark.parametrize("case", CASES)
def test_answers_are_sums_of_the_estimates_and_reload_bit_for_bit(case, tmp_path):
    rel = build(**CASES[case])
    whole = rel.answer([[0, 0, 1, 1]], 3, 9)[0]
    assert math.isclose(whole, rel.estimate[:, 3:10].sum(), rel_tol=1e-9, abs_tol=1e-6)
    back = pv.load_release(rel.save(tmp_path / "t.json", allow_seeded=True))
    assert isinstance(back, TimeRelease) and back.privacy_unit == rel.privacy_unit
    for first, last in ((None, None), (0, 0), (5, 11), ("2021-01-08", "2021-01-14")):
        np.testing.assert_array_equal(back.answer(RECTS, first, last), rel.answer(RECTS, first, last))
        np.testing.assert_array_equal(back.answer_interval(RECTS, first, last), rel.answer_interval(RECTS, first, last))
    assert back.ledger.records() == rel.ledger.records()
    s = rel.series(RECTS[0])
    shown = s["estimate"].clip(lower=0)                         # a count is never below 0, nor its interval
    assert len(s) == 30 and (s["low"] <= shown).all() and (shown <= s["high"]).all()
    assert list(s["start"][:2]) == [pd.Timestamp("2021-01-01"), pd.Timestamp("2021-01-02")]


def test_the_noise_variance_it_states_is_the_variance_of_its_answers():
    """200 fresh releases of the tree at user level and of BA: the spread of a rectangle's week count against the
    variance each release states (a chi-square bound: 5 standard errors of a variance estimate of 200 draws)."""
    for kw in (USER, {"mechanism": "tree"}):
        answers = np.array([build(seed=s, **kw).answer(RECTS[:2], 7, 13) for s in range(200)])
        stated = build(seed=0, **kw).answer_variance(RECTS[:2], 7, 13)
        ratio = answers.var(axis=0, ddof=1) / stated
        assert (np.abs(ratio - 1) < 5 * math.sqrt(2 / 199)).all(), ratio


@pytest.mark.filterwarnings("ignore::psdviz.LargeEpsilonWarning")
def test_at_a_huge_epsilon_the_answers_are_the_truth_of_whole_cells():
    rel = build(epsilon=1e5, grid_level=2, mechanism="tree")
    secs = to_seconds(TIMES)[0]
    quarter = [[0, 0, 0.5, 0.5]]
    truth = true_answer_over_time(XY, secs, rel.axis, quarter, 4, 20)[0]
    assert abs(rel.answer(quarter, 4, 20)[0] - truth) < 1
    assert rel.answer_model_error(quarter, 4, 20)[0] == 0          # whole cells: no cut cell


def test_cut_cells_widen_the_interval_and_w_event_repeats_carry_their_error():
    rel = build(grid_level=1)
    assert rel.answer_model_error([[0.1, 0.1, 0.3, 0.3]])[0] > 0
    ba = build(**WEVENT)
    repeated = ba.model.source != np.arange(ba.windows)
    assert repeated.any()
    t = int(np.flatnonzero(repeated)[0])
    assert ba.answer_model_error([[0, 0, 0.5, 0.5]], t, t)[0] > 0


def test_bad_input_is_refused_in_words_before_anything_is_built():
    with pytest.raises(ParameterError, match="needs user"):
        build(unit="user")
    with pytest.raises(ParameterError, match="for unit='user' or 'w-event'"):
        build(user=USERS)
    with pytest.raises(ParameterError, match="does not apply"):
        build(mechanism="bd")
    with pytest.raises(ParameterError, match="needs w"):
        build(unit="w-event")
    with pytest.raises(ParameterError, match="at least max_points_per_window"):
        build(unit="user", user=USERS, max_points_per_window=5, max_points_per_user=2)
    with pytest.raises(ParameterError, match="partition"):
        build(partition="kdtree")
    with pytest.raises(InputDataError, match="one timestamp per point"):
        pv.build_over_time(XY, DOM, time=TIMES[:10], span=SPAN, epsilon=1.0)
    bad = TIMES.copy()
    bad[3] = np.datetime64("NaT")
    with pytest.raises(InputDataError, match="nonfinite='drop'"):
        pv.build_over_time(XY, DOM, time=bad, span=SPAN, epsilon=1.0)
    rel = pv.build_over_time(XY, DOM, time=bad, span=SPAN, epsilon=1.0, nonfinite="drop", grid_level=1)
    audit = rel.audit()
    assert audit["rows_nonfinite_dropped"] == 1 and audit["rows_used"] + 1 == N
    with pytest.raises(ParameterError, match="outside the span"):
        rel.answer(RECTS, 0, 40)


def test_a_frame_and_a_file_give_the_release_of_the_arrays(tmp_path):
    frame = pd.DataFrame({"lon": XY[:, 0], "lat": XY[:, 1], "t": TIMES, "u": USERS})
    path = tmp_path / "events.parquet"
    frame.to_parquet(path)
    a = build(**USER)
    kw = {**USER, "user": "u"}
    b = pv.build_over_time(frame, DOM, time="t", lon="lon", lat="lat", span=SPAN, epsilon=1.0, seed=1, grid_level=2,
                           **{k: v for k, v in kw.items()})
    c = pv.build_over_time(str(path), DOM, time="t", lon="lon", lat="lat", span=SPAN, epsilon=1.0, seed=1,
                           grid_level=2, **kw)
    np.testing.assert_array_equal(a.noisy, b.noisy)
    np.testing.assert_array_equal(a.noisy, c.noisy)
    assert list(frame.columns) == ["lon", "lat", "t", "u"]          # nothing the user loaded is altered


def _edit(path, change):
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(json.dumps(doc))


@pytest.mark.parametrize("what", ["fraction", "ledger", "schedule", "unit", "tiling", "rows"])
def test_an_edited_file_is_refused(what, tmp_path):
    rel = build(**(WEVENT if what == "schedule" else USER))
    path = rel.save(tmp_path / "t.json", allow_seeded=True)
    edits = {
        "fraction": lambda d: d["noisy"][0].__setitem__(0, 0.5),
        "ledger": lambda d: d["report"]["ledger"][0].__setitem__("epsilon", d["report"]["ledger"][0]["epsilon"] / 2),
        "schedule": lambda d: d["model"]["published_epsilon"].__setitem__(
            d["model"]["source"].index(d["model"]["source"][-1]), 0.0),
        "unit": lambda d: d.__setitem__("privacy_unit", {"kind": "point", "limit": 1}),
        "tiling": lambda d: d["partition"]["ix"].__setitem__(0, 1),
        "rows": lambda d: d["noisy"].pop(),
    }
    _edit(path, edits[what])
    with pytest.raises(ValueError) as err:
        pv.load_release(path)
    assert isinstance(err.value, ReleaseFileError), err.value


def test_a_budget_takes_it_and_refuses_the_next_one_before_reading(tmp_path):
    budget = pv.Budget(tmp_path / "b.json", total_epsilon=1.5, unit="one user, at most 6 points")
    rel = pv.build_over_time(XY, DOM, time=TIMES, span=SPAN, epsilon=1.0, grid_level=2, privacy_budget=budget,
                             **USER)
    assert budget.entries[0].kind == "over-time" and budget.entries[0].method == rel.mechanism
    with pytest.raises(pv.BudgetError, match="left"):
        pv.build_over_time(XY, DOM, time=TIMES, span=SPAN, epsilon=1.0, grid_level=2, privacy_budget=budget, **USER)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert "over-time" in rel.report(format="markdown")[:400] or "windows" in rel.report(format="markdown")
