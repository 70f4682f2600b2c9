"""The bound L on a user's events over the span, chosen privately (``max_points_per_user="auto"``): the public
ladder, the users' totals, the exponential mechanism's law (exact, and the sampler against it), and the release
that carries it (ledger, unit, file, budget, CLI)."""
from __future__ import annotations

import json

import numpy as np
import pytest
from scipy.special import logsumexp

import psdviz as pv
from psdviz.errors import ParameterError, ReleaseFileError
from psdviz.temporal import user_bound as ub
from psdviz.temporal.bounding import bound_per_window, kept_totals

DOM = pv.Domain(0, 0, 1, 1)


def test_the_ladder_runs_from_m_to_m_times_the_windows_in_quarter_octaves():
    for m, t in ((1, 365), (3, 64), (2, 1), (5, 7)):
        rungs = ub.ladder(m, t)
        assert rungs[0] == m and rungs[-1] == m * t
        assert (np.diff(rungs) > 0).all()
        assert (rungs[1:] <= np.ceil(rungs[:-1] * 2 ** 0.25) + 1).all()       # no rung skipped
    assert ub.ladder(1, 365).size < 40
    assert ub.ladder(10_000, 100_000)[-1] == ub.MAX_BOUND


def _totals(user, window, m, seed=0):
    """The users' totals the build reads: their rows kept by the bound a window."""
    return kept_totals(user, bound_per_window(user, window, m, np.random.default_rng(seed)))


def test_user_totals_count_at_most_m_a_window():
    user = np.array([0, 0, 0, 1, 1, 2, 0])
    window = np.array([0, 0, 0, 0, 1, 3, 2])
    for seed in range(5):                                  # whichever rows the order keeps
        np.testing.assert_array_equal(_totals(user, window, 2, seed), [3, 2, 1])     # user 0: min(3, 2) + 1
    np.testing.assert_array_equal(_totals(user, window, 1), [2, 2, 1])
    assert _totals(np.zeros(0, int), np.zeros(0, int), 1).size == 0


def _log_probs(totals, eps, q=ub.QUANTILE, sens=None):
    cands = ub.ladder(1, 64)
    t = np.sort(np.asarray(totals))
    score = -np.abs(np.searchsorted(t, cands, side="right") - q * t.size)
    lw = eps * score / (2 * (ub.score_sensitivity(q) if sens is None else sens))
    np.testing.assert_allclose(lw, ub.log_weights(totals, cands, eps, q)) if sens is None else None
    return lw - logsumexp(lw)


@pytest.mark.parametrize("q", [0.5, ub.QUANTILE, 0.99])
def test_one_user_more_or_less_moves_no_probability_by_more_than_e_to_the_epsilon(q):
    """Exact: for totals of many shapes and one user added (with a total below, at or above every rung), the law
    of L moves by at most epsilon in log-probability, pointwise."""
    rng = np.random.default_rng(3)
    eps = 0.3
    for base in (np.array([1]), rng.integers(1, 65, 40), rng.geometric(0.2, 500).clip(1, 64), np.full(30, 64)):
        for extra in (1, 5, 17, 64):
            gap = np.abs(_log_probs(base, eps, q) - _log_probs(np.r_[base, extra], eps, q))
            assert gap.max() <= eps + 1e-12, (q, extra)


def test_a_choice_calibrated_to_the_smaller_sensitivity_is_caught():
    """The toy that breaks the promise: the score's sensitivity taken as min(q, 1 - q) (as if only the count
    moved, not q n), on the same pairs the exact test passes."""
    eps, base = 0.3, np.random.default_rng(4).integers(1, 65, 40)
    low = 1 - ub.QUANTILE
    gap = max(np.abs(_log_probs(base, eps, sens=low) - _log_probs(np.r_[base, extra], eps, sens=low)).max()
              for extra in (1, 5, 17, 64))
    assert gap > eps


def test_the_sampler_draws_the_mechanisms_law():
    """20,000 draws with a fixed seed against the exact probabilities: every rung's share within five binomial
    standard errors."""
    totals = np.random.default_rng(5).geometric(0.15, 300).clip(1, 64)
    cands, eps, n = ub.ladder(1, 64), 0.05, 20_000
    p = np.exp(_log_probs(totals, eps))
    rng = np.random.default_rng(6)
    draws = np.array([ub.choose_bound(totals, 1, 64, eps, rng) for _ in range(n)])
    share = (draws[:, None] == cands[None, :]).mean(axis=0)
    assert np.isin(draws, cands).all()
    assert (np.abs(share - p) <= 5 * np.sqrt(p * (1 - p) / n) + 1e-9).all()


def _stream(seed=1, users=4000, days=32):
    from psdviz.lab.synthetic import event_stream
    return event_stream(users, days, DOM, np.random.default_rng(seed), rate=0.3)


def _auto(xy, secs, user, days=32, **kw):
    return pv.build_over_time(xy, DOM, time=secs, span=(0, days * 86400), unit="user", user=user,
                              max_points_per_window=1, max_points_per_user="auto", grid_level=2, **kw)


def test_a_flat_release_buys_one_l_with_its_own_ledger_line_and_states_it(tmp_path):
    xy, secs, user = _stream()
    rel = _auto(xy, secs, user, seed=2, epsilon=0.8, mechanism="flat")
    bound = rel.params["max_points_per_user"]
    spends = rel.ledger.spends
    assert spends[0].what == ub.SPEND and spends[0].epsilon == pytest.approx(ub.FRACTION * 0.8)
    assert rel.ledger.total() == pytest.approx(0.8)
    assert all(s.sensitivity == bound for s in spends[1:])
    assert rel.params["max_points_per_user_chosen"] is True and "max_points_per_user_levels" not in rel.params
    assert rel.privacy_unit == "one user, at most 32 points"            # m times the windows: public
    assert any(f"L = {bound}" in n for n in rel.notes)
    totals = _totals(user, secs // 86400, 1)
    rungs = ub.ladder(1, 32)
    near = rungs[np.searchsorted(rungs, np.quantile(totals, ub.QUANTILE)) + np.array([-2, 2])]
    assert near[0] <= bound <= near[1]                                   # thousands of users: near the quantile
    path = tmp_path / "t.json"
    rel.save(path, allow_seeded=True)
    again = pv.load_release(path)
    assert again.params["max_points_per_user"] == bound
    np.testing.assert_array_equal(again.answer([[0, 0, 0.5, 0.5]], 0, 31), rel.answer([[0, 0, 0.5, 0.5]], 0, 31))


def test_the_tree_buys_one_l_a_level_near_its_levels_quantile_and_states_them(tmp_path):
    """The tree over time: one choice a level (root first) at FRACTION epsilon / levels each, every level's counts
    at its own L's sensitivity, each L near its level's quantile (thousands of users), the file round trip."""
    xy, secs, user = _stream()
    rel = _auto(xy, secs, user, seed=2, epsilon=0.8, fanout=2)
    levels = rel.model.tree.levels
    bounds = rel.params["max_points_per_user_levels"]
    assert len(bounds) == levels == 6 and rel.params["max_points_per_user"] == max(bounds)
    choice = [s for s in rel.ledger.spends if s.what.startswith(ub.SPEND)]
    counts = [s for s in rel.ledger.spends if s.what.startswith("time tree")]
    assert [s.epsilon for s in choice] == pytest.approx([ub.FRACTION * 0.8 / levels] * levels)
    assert [s.sensitivity for s in choice] == pytest.approx([ub.score_sensitivity(q)
                                                             for q in ub.level_quantiles(levels)])
    assert [s.sensitivity for s in counts] == bounds == rel.model.level_sensitivity.tolist()
    assert rel.ledger.total() == pytest.approx(0.8)
    assert rel.privacy_unit == "one user, at most 32 points"
    assert any(", ".join(map(str, bounds)) in n for n in rel.notes)
    totals = _totals(user, secs // 86400, 1)
    rungs = ub.ladder(1, 32)
    for bound, q in zip(bounds, ub.level_quantiles(levels)):
        near = rungs[np.clip(np.searchsorted(rungs, np.quantile(totals, q)) + np.array([-2, 2]), 0, rungs.size - 1)]
        assert near[0] <= bound <= near[1], (bound, q)
    assert bounds[0] > bounds[-1]                                          # the root keeps more than a window
    path = tmp_path / "t.json"
    rel.save(path, allow_seeded=True)
    again = pv.load_release(path)
    assert again.params["max_points_per_user_levels"] == bounds
    np.testing.assert_array_equal(again.model.level_sensitivity, rel.model.level_sensitivity)
    np.testing.assert_array_equal(again.answer([[0, 0, 0.5, 0.5]], 0, 31), rel.answer([[0, 0, 0.5, 0.5]], 0, 31))


def test_the_levels_l_never_grow_from_the_root_down():
    """The draws are independent; each L is then at most its ancestors' (post-processing of released draws): on
    few users, where draws scatter, every result is non-increasing and on the ladder."""
    totals = np.random.default_rng(8).integers(1, 30, 12)
    rng, rungs = np.random.default_rng(9), ub.ladder(1, 64)
    for _ in range(200):
        bounds = ub.choose_level_bounds(totals, 1, 64, 3, 0.05, rng)
        assert (np.diff(bounds) <= 0).all() and np.isin(bounds, rungs).all()


def test_each_level_counts_each_users_first_l_of_one_random_order():
    """The release's counts are the mechanism's on the counts of each user's first L_d kept events (one random
    order from the release's stream): rebuilt step by step from the same seed, the noisy values are equal."""
    from psdviz.core.ledger import Ledger
    from psdviz.core.rng import make_randomness
    from psdviz.temporal import mechanisms as mech
    from psdviz.temporal.bounding import user_rank
    xy, secs, user = _stream(users=300, days=8)
    rel = pv.build_over_time(xy, DOM, time=secs, span=(0, 8 * 86400), unit="user", user=user, max_points_per_window=1,
                             max_points_per_user="auto", grid_level=1, fanout=2, seed=9, epsilon=1.0)
    rng = make_randomness(9).rng
    win = secs // 86400
    ok = bound_per_window(user, win, 1, rng)
    bounds = ub.choose_level_bounds(kept_totals(user, ok), 1, 8, 4, ub.FRACTION, rng)
    assert bounds.tolist() == rel.params["max_points_per_user_levels"]
    rank = user_rank(user, ok, rng)
    cell = (xy[:, 1] >= 0.5).astype(int) * 2 + (xy[:, 0] >= 0.5)

    def within(bound):
        sel = ok & (rank < bound)
        return np.bincount(cell[sel] * 8 + win[sel], minlength=32).reshape(4, 8)
    acct = mech.Accounting("user", 1, int(bounds.max()), level_totals=tuple(bounds.tolist()))
    noisy = mech.measure(within(bounds.max()), "tree", 1.0 - ub.FRACTION, acct, rng, Ledger(1.0), 2, within)[0]
    np.testing.assert_array_equal(rel.noisy, noisy)


@pytest.mark.parametrize("edit", ["above the unit", "no ledger line"])
def test_an_edited_chosen_bound_is_refused(tmp_path, edit):
    xy, secs, user = _stream(users=500)
    path = tmp_path / "t.json"
    _auto(xy, secs, user, seed=2).save(path, allow_seeded=True)
    doc = json.loads(path.read_text())
    rep = doc["report"]
    if edit == "above the unit":
        rep["parameters"]["max_points_per_user"] = 33
    else:
        rep["ledger"] = [s for s in rep["ledger"] if not s["what"].startswith(ub.SPEND)]
    path.write_text(json.dumps(doc))
    with pytest.raises(ReleaseFileError):
        pv.load_release(path)


def test_the_public_unit_and_a_budget_before_any_data_is_read(tmp_path):
    from psdviz.over_time import unit_over_time
    assert unit_over_time("user", (0, 365 * 86400), "1d", 2, "auto") == "one user, at most 730 points"
    assert unit_over_time("user", (0, 365 * 86400), "1d", 2, 16) == "one user, at most 16 points"
    assert unit_over_time("event", (0, 86400)) == "one point"
    budget = pv.Budget(tmp_path / "b.json", total_epsilon=2.0, unit="one user, at most 32 points")
    xy, secs, user = _stream(users=500)
    _auto(xy, secs, user, privacy_budget=budget)
    assert budget.spent == pytest.approx(1.0)
    with pytest.raises(ParameterError, match="max_points_per_user"):
        pv.build_over_time(xy, DOM, time=secs, span=(0, 32 * 86400), unit="user", user=user,
                           max_points_per_window=1, max_points_per_user="most")


def _refused(**kw):
    """The error a chosen-L build gives for these settings, on two data sets (the words must not differ)."""
    said = []
    for xy, secs, user in (_stream(users=200), (np.zeros((0, 2)), np.zeros(0, np.int64), np.zeros(0, np.int64))):
        with pytest.raises(ParameterError) as exc:
            _auto(xy, secs, user, **kw)
        said.append(str(exc.value))
    assert said[0] == said[1]
    return said[0]


def test_settings_some_rung_could_not_measure_are_refused_before_the_data():
    """A refusal after L is drawn would reveal L: epsilon too small for the top rung's noise, or no epsilon left
    beside the partition, is refused whatever the data (the same words on an empty data set)."""
    assert "max_points_per_user='auto'" in _refused(epsilon=1e-13)
    assert "partition_fraction" in _refused(partition="privtree", partition_fraction=0.96)
    assert "max_points_per_user='auto'" in _refused(partition="privtree", partition_fraction=0.5, epsilon=5e-12)


@pytest.mark.parametrize("edit", ["not a rung", "unit", "cheap line", "flag", "partition sensitivity",
                                  "a level not a rung", "a level's noise", "levels unflagged", "levels growing",
                                  "choice lines' levels", "count lines' levels"])
def test_a_chosen_bound_the_rule_could_not_have_drawn_is_refused(tmp_path, edit):
    xy, secs, user = _stream(users=500)
    path = tmp_path / "t.json"
    _auto(xy, secs, user, seed=2, partition="privtree").save(path, allow_seeded=True)
    pv.load_release(path)
    doc = json.loads(path.read_text())
    rep = doc["report"]
    params, bound = rep["parameters"], rep["parameters"]["max_points_per_user"]
    if edit == "not a rung":
        rungs = ub.ladder(1, 32)
        params["max_points_per_user"] = int(next(v for v in range(1, 33) if v not in rungs))
        rep["ledger"] = [{**s, "sensitivity": params["max_points_per_user"]} if s["what"].startswith("time tree")
                         else s for s in rep["ledger"]]
        doc["model"]["sensitivity"] = params["max_points_per_user"]
    elif edit == "unit":
        doc["privacy_unit"] = {"kind": "user", "limit": 1000}
    elif edit == "cheap line":
        rep["ledger"] = [{**s, "epsilon": 1e-12} if s["what"].startswith(ub.SPEND) else s for s in rep["ledger"]]
    elif edit == "flag":
        params["max_points_per_user_chosen"] = "yes"
    elif edit == "a level not a rung":               # the leaves' L off the ladder, stated consistently everywhere
        rungs, levels = ub.ladder(1, 32), params["max_points_per_user_levels"]
        odd = int(next(v for v in range(1, max(levels)) if v not in rungs))
        levels[-1] = odd
        doc["model"]["level_sensitivity"][-1] = odd
        leaf = [s for s in rep["ledger"] if s["what"].startswith("time tree")][-1]
        leaf["sensitivity"] = odd
    elif edit == "a level's noise":                  # the model's leaves drawn at a smaller sensitivity than stated
        doc["model"]["level_sensitivity"][-1] = 1
    elif edit == "levels unflagged":
        del params["max_points_per_user_chosen"]
    elif edit == "levels growing":                   # the leaves' L above the root's, stated consistently
        levels = params["max_points_per_user_levels"]
        levels[0], levels[-1] = levels[-1], levels[0]
        doc["model"]["level_sensitivity"] = levels
        counts = [s for s in rep["ledger"] if s["what"].startswith("time tree")]
        counts[0]["sensitivity"], counts[-1]["sensitivity"] = levels[0], levels[-1]
    elif edit.startswith("choice"):
        rep["ledger"] = [{**s, "level": 0} if s["what"].startswith(ub.SPEND) else s for s in rep["ledger"]]
    elif edit.startswith("count"):
        rep["ledger"] = [{**s, "level": 0} if s["what"].startswith("time tree") else s for s in rep["ledger"]]
    else:
        rep["ledger"] = [{**s, "sensitivity": 1} if s["what"].startswith("partition") else s for s in rep["ledger"]]
    assert bound >= 1 and len(params.get("max_points_per_user_levels", [])) >= 2       # the tree: one L a level
    path.write_text(json.dumps(doc))
    with pytest.raises(ReleaseFileError):
        pv.load_release(path)


def test_the_statement_lists_no_noise_for_the_choice():
    """The markdown statement's table of noise per measured count leaves out the choice of L (the exponential
    mechanism measures no count) and the partition's tests (none of its counts is released)."""
    from psdviz.kernel.statement import markdown
    xy, secs, user = _stream(users=500)
    text = markdown(_auto(xy, secs, user, seed=2, partition="privtree"))
    table = text.split("noise standard deviation of each measured count")[1].split("\n\n")[0]
    assert "time tree level" in table and ub.SPEND not in table and "partition:" not in table


def test_each_level_is_read_at_the_share_of_the_roots_events_it_keeps():
    """One L a level: lower levels count fewer of each user's events. Node counts whose leaves hold exactly half
    of what the root holds (and no noise) give shares (1, 0.5) and estimates whose sum over the span is the root's
    count, with the leaves' proportions; an L the same at every level leaves the counts as they are."""
    from psdviz.temporal.mechanisms import TreeTimeModel, kept_shares
    from psdviz.temporal.timetree import TimeTree
    tree = TimeTree(4, 4)                                   # a root over four windows
    leaves = np.array([[10.0, 30, 20, 40], [5, 5, 5, 5]])
    noisy = np.hstack([2 * leaves.sum(axis=1, keepdims=True), leaves])
    np.testing.assert_allclose(kept_shares(noisy, tree, np.array([8, 2])), [1.0, 0.5])
    np.testing.assert_allclose(kept_shares(noisy, tree, np.array([8, 8])), [1.0, 1.0])    # the same L: the same events
    model = TreeTimeModel(4, 4, [0.5, 0.5], [8, 2]).for_values(noisy)
    est = model.estimate(noisy)
    np.testing.assert_allclose(est.sum(axis=1), noisy[:, 0])
    np.testing.assert_allclose(est / est.sum(axis=1, keepdims=True), leaves / leaves.sum(axis=1, keepdims=True))
    same = TreeTimeModel(4, 4, [0.5, 0.5], [8, 8])
    assert same.for_values(noisy) is same and (same.level_scale == 1).all()
