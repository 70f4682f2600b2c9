"""Releases over time in the D vs D' test (``test_grid_audit.ratio_ok``): for each mechanism, neighbouring
inputs under its privacy unit give released values whose probabilities stay within e^epsilon; a leaky variant of
each (the tree calibrated per level as if levels were disjoint, the w-event test on exact counts) is caught by
the same check. The mechanisms are run on the counts the release's own pass gives (checked equal to the release
for a few seeds), as the region test does."""
from __future__ import annotations

import inspect

import numpy as np
from test_grid_audit import ratio_ok

import psdviz as pv
from psdviz.core.ledger import Ledger
from psdviz.core.rng import make_randomness
from psdviz.temporal import mechanisms as mech
from psdviz.temporal.bounding import bound_over_time
from psdviz.temporal.mechanisms import Accounting

RUNS = 3000


def _hist(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    values, codes = np.unique(np.r_[a, b], return_inverse=True)
    return np.bincount(codes[:a.size], minlength=values.size), np.bincount(codes[a.size:], minlength=values.size)


def _tails(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Counts of the events {S >= t} and {S <= t} for every threshold t seen."""
    ts = np.unique(np.r_[a, b])
    up = np.array([[(a >= t).sum(), (b >= t).sum()] for t in ts])
    down = np.array([[(a <= t).sum(), (b <= t).sum()] for t in ts])
    both = np.vstack([up, down])
    return both[:, 0], both[:, 1]


def _laws_ok(a: np.ndarray, b: np.ndarray, eps: float, runs: int = RUNS) -> bool:
    ok = True
    for col in range(a.shape[1]):
        ok &= ratio_ok(*_hist(a[:, col], b[:, col]), runs, eps)
    return bool(ok)


def test_event_level_flat_counts():
    d = np.array([[3, 0, 5], [1, 2, 0]])
    d2 = d.copy()
    d2[0, 1] += 1                                   # one event more
    acct = Accounting("event")

    def law(c, first):
        return np.array([mech.measure(c, "flat", 1.0, acct, make_randomness(s).rng, Ledger(1.0))[0][0, :2]
                         for s in range(first, first + RUNS)])
    assert _laws_ok(law(d, 0), law(d2, RUNS), 1.0)


def _tree_runs(counts, first, runs, measure=mech.measure):
    acct = Accounting("user", 1, 2)
    return np.array([measure(counts, "tree", 1.0, acct, make_randomness(s).rng, Ledger(1.0))[0][0]
                     for s in range(first, first + runs)])


def test_user_level_tree_over_time_and_the_leaky_calibration_fails():
    """One user more with L = 2 events, in windows 0 and 1 of one cell (T = 4, a binary tree of 3 levels): every
    node's noisy count, and the linear statistic S = sum of the user's contribution to each node times the node's
    noisy count (the most telling single test of the whole vector), keep their laws within e^epsilon. A tree whose
    levels are each calibrated at the whole epsilon (levels taken as disjoint) fails on S."""
    d = np.array([[4, 1, 0, 3]])
    d2 = d + np.array([[1, 1, 0, 0]])
    contribution = mech.TimeTree(4, 2).node_counts(d2 - d)[0].astype(float)        # root 2, [0, 2) 2, windows 1, 1
    xy = np.full((int(d.sum()), 2), 0.5)
    times = np.repeat(np.arange(4), d[0]) * 86400 + 10
    rel = pv.build_over_time(xy, pv.Domain(0, 0, 1, 1), time=times, span=(0, 4 * 86400), window="1d", epsilon=1.0,
                             seed=7, grid_level=0, unit="user", user=np.arange(xy.shape[0]), max_points_per_window=1,
                             max_points_per_user=2, fanout=2)
    rng = make_randomness(7).rng                      # the release's stream: the bounding's draws, then the noise
    bound_over_time(np.arange(xy.shape[0]), times // 86400, 1, 2, rng)
    same = mech.measure(d, "tree", 1.0, Accounting("user", 1, 2), rng, Ledger(1.0))[0][0]
    np.testing.assert_array_equal(rel.noisy[0], same)
    a, b = _tree_runs(d, 0, RUNS), _tree_runs(d2, RUNS, RUNS)
    assert _laws_ok(a, b, 1.0)
    assert ratio_ok(*_tails(a @ contribution, b @ contribution), RUNS, 1.0)
    src = inspect.getsource(mech._tree)
    leaky_src = src.replace("eps_level = epsilon / tree.levels", "eps_level = epsilon")
    assert leaky_src != src
    space = dict(vars(mech))
    exec(leaky_src, space)

    def leaky(counts, kind, eps, acct, rng, ledger):
        return space["_tree"](counts, eps, acct, rng, Ledger(10.0), 2)
    la, lb = _tree_runs(d, 0, RUNS, leaky), _tree_runs(d2, RUNS, RUNS, leaky)
    assert not ratio_ok(*_tails(la @ contribution, lb @ contribution), RUNS, 1.0)


def _stream_runs(counts, kind, first, runs, fn=None):
    acct = Accounting("w-event", 1, 1, 3)
    out = np.empty((runs, counts.shape[1] + 1), dtype=np.int64)
    for i in range(runs):
        rng = make_randomness(first + i).rng
        noisy, model = (fn or mech._stream)(counts, kind, 1.0, acct, rng, Ledger(1.0))
        published = model.source == np.arange(counts.shape[1])
        out[i, 0] = int(np.dot(published, 1 << np.arange(counts.shape[1])))        # the publication pattern
        out[i, 1:] = np.rint(model.estimate(noisy)[0]).astype(np.int64)            # what cell 0 shows each window
    return out


def test_w_event_budget_distribution_and_absorption():
    """Streams that differ by one user's event in window 2 of cell 0 (T = 5 windows, w = 3, two cells): the
    publication pattern and the value each window shows keep their laws within e^epsilon, for BD and BA. Deciding on
    the exact dissimilarity (no noise in the test) fails the same check."""
    d = np.array([[6, 6, 6, 6, 9], [2, 2, 2, 2, 2]])
    d2 = d.copy()
    d2[0, 2] += 1
    for kind in ("bd", "ba"):
        a, b = _stream_runs(d, kind, 0, RUNS), _stream_runs(d2, kind, RUNS, RUNS)
        assert _laws_ok(a, b, 1.0), kind
    src = inspect.getsource(mech._stream)
    leaky_src = src.replace(" + int(geometric_noise(rng, 1, eps_test, m)[0])", "")
    assert leaky_src != src
    space = dict(vars(mech))
    exec(leaky_src, space)
    d3 = np.array([[0, 0, 5, 5, 5], [0, 0, 0, 0, 0]])        # one event decides whether window 2 is published:
    d4 = np.array([[0, 0, 4, 5, 5], [0, 0, 0, 0, 0]])        # a mean of 2.5 or 2 a cell against the threshold 2
    la = _stream_runs(d3, "ba", 0, 1000, space["_stream"])
    lb = _stream_runs(d4, "ba", 1000, 1000, space["_stream"])
    assert not _laws_ok(la, lb, 1.0, 1000)


def test_the_bought_partition_is_accounted_for_the_unit():
    """The PrivTree on the pooled events runs at epsilon / k per event and is recorded at k times that, with k the
    most one unit adds to the pooled events (1 event; L for a user; m w for w-event)."""
    rng = np.random.default_rng(1)
    xy, t, u = rng.random((3000, 2)), rng.integers(0, 10 * 86400, 3000), rng.integers(0, 300, 3000)
    for kw, k in (({}, 1), ({"unit": "user", "user": u, "max_points_per_window": 2, "max_points_per_user": 5}, 5),
                  ({"unit": "w-event", "user": u, "max_points_per_window": 2, "w": 3}, 6)):
        rel = pv.build_over_time(xy, pv.Domain(0, 0, 1, 1), time=t, span=(0, 10 * 86400), epsilon=1.0, seed=2,
                                 partition="privtree", partition_fraction=0.25, **kw)
        part = [s for s in rel.ledger.spends if s.what.startswith("partition")]
        assert abs(sum(s.epsilon for s in part) - 0.25) < 1e-12
        assert all(s.sensitivity == k for s in part if s.mechanism == "geometric")
        assert all(f"at most {k}" in s.note for s in part)


def test_the_private_choice_of_l_and_a_leaky_choice_fails():
    """The bound L bought from the users' totals (``max_points_per_user="auto"``): one user more, with the largest
    total a user can keep, leaves the law of the drawn L within e^epsilon; the same choice calibrated to the
    smaller side of the score's sensitivity, min(q, 1 - q), is caught by the same check."""
    from psdviz.temporal import user_bound as ub
    d = np.array([1, 2, 2, 3, 3, 3, 4, 5, 8, 9])
    d2 = np.r_[d, 16]
    eps = 1.0

    def draws(totals, first, sens=None):
        out = []
        for s in range(first, first + RUNS):
            rng = make_randomness(s).rng
            if sens is None:
                out.append(ub.choose_bound(totals, 1, 16, eps, rng))
            else:
                cands = ub.ladder(1, 16)
                lw = ub.log_weights(totals, cands, eps) * ub.score_sensitivity(ub.QUANTILE) / sens
                out.append(int(cands[np.argmax(lw + rng.gumbel(size=lw.size))]))
        return np.array(out)
    assert ratio_ok(*_hist(draws(d, 0), draws(d2, RUNS)), RUNS, eps)
    low = 1 - ub.QUANTILE
    assert not ratio_ok(*_hist(draws(d, 0, low), draws(d2, RUNS, low)), RUNS, eps)


def _level_runs(d, user, first, runs, fn=None):
    """Noisy node counts of the tree over time (T = 2: a root and two leaves) with one L a level (root 8, leaves
    1): level d counts each user's first L_d events; the user added (``user`` True) has four events in window 0,
    then four in window 1, in that order."""
    acct = Accounting("user", 4, 8, level_totals=(8, 1))

    def within(bound):
        return d + user * np.array([[min(bound, 4), min(max(bound - 4, 0), 4)]])
    out = []
    for s in range(first, first + runs):
        rng = make_randomness(s).rng
        out.append((fn or mech._tree)(within(8), 1.0, acct, rng, Ledger(1.0), 2, within)[0][0])
    return np.array(out)


def test_one_bound_a_level_and_a_level_counting_past_its_bound_fails():
    """One user more with eight events (four in each of two windows of one cell: a root and two leaves) under one L
    a level, 8 at the root and 1 at the leaves: each node's noisy count and the statistic S (the user's
    contribution to each node times its noisy count) keep their laws within e^epsilon. A tree whose levels are
    calibrated to their own L but count every kept event (the leaves see all eight at sensitivity 1) fails on the
    sum of the leaves."""
    d = np.array([[3, 2]])
    contribution = np.array([8.0, 1, 0])                      # root: all 8; window 0: the first event only
    a, b = _level_runs(d, False, 0, RUNS), _level_runs(d, True, RUNS, RUNS)
    assert _laws_ok(a, b, 1.0)
    assert ratio_ok(*_tails(a @ contribution, b @ contribution), RUNS, 1.0)
    src = inspect.getsource(mech._tree)
    leaky_src = src.replace("counts_within(s) if acct.level_totals else counts", "counts")
    assert leaky_src != src
    space = dict(vars(mech))
    exec(leaky_src, space)
    la, lb = _level_runs(d, False, 0, RUNS, space["_tree"]), _level_runs(d, True, RUNS, RUNS, space["_tree"])
    leaves = np.array([0.0, 1, 1])
    assert not ratio_ok(*_tails(la @ leaves, lb @ leaves), RUNS, 1.0)
