"""The public time axis, the tree over time and its least squares, and contribution bounding over time."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from psdviz.errors import InputDataError, ParameterError
from psdviz.temporal.axis import TimeAxis, parse_window, to_seconds
from psdviz.temporal.bounding import bound_over_time
from psdviz.temporal.timetree import TimeTree, TreeModel


def test_windows_in_words_and_seconds():
    assert [parse_window(w) for w in ("1d", "6h", "1w", "3600s", "hour", "day", "week", 90, "30m")] == \
        [86400, 21600, 604800, 3600, 3600, 86400, 604800, 90, 1800]
    for bad in ("0d", "1y", "", -1, 0, 1.5, True):
        with pytest.raises(ParameterError, match="window"):
            parse_window(bad)


def test_the_axis_cuts_a_public_span_and_drops_what_lies_outside():
    ax = TimeAxis.over(("2001-01-01", "2001-07-01"), "1d")
    assert ax.windows == 181 and ax.label() == "1 day"
    stamps = ["2001-01-01 06:00:00", "2001-06-30 23:59:00", "2001-07-01 00:00:00", "2000-12-31 23:59:59", None]
    secs, missing = to_seconds(pd.Series(pd.to_datetime(stamps)))
    assert list(ax.index(secs)[:4]) == [0, 180, -1, -1] and list(missing) == [False] * 4 + [True]
    assert TimeAxis.over((0, 10), 3).windows == 4          # the last window reaches past the end
    assert ax.window_range("2001-01-08", "2001-01-14") == (7, 14)
    zoned = to_seconds(pd.Series(pd.to_datetime(["2001-01-01 01:00"]).tz_localize("Europe/Paris")))[0]
    assert ax.index(zoned)[0] == 0 and zoned[0] == ax.start
    with pytest.raises(ParameterError, match="after its start"):
        TimeAxis.over(("2001-02-01", "2001-01-01"), "1d")
    with pytest.raises(ParameterError, match="windows"):
        TimeAxis.over(("2000-01-01", "2020-01-01"), "1m")
    with pytest.raises(InputDataError, match="not timestamps"):
        to_seconds(np.array(["yesterday", "x"], dtype=object))


@pytest.mark.parametrize(("windows", "fanout"), [(1, 2), (7, 2), (10, 3), (64, 2), (37, 4)])
def test_least_squares_over_the_tree_is_the_dense_weighted_solution(windows, fanout):
    """Against the obvious slow version: x = (A' W A)^-1 A' W y with A the node-by-window incidence matrix."""
    tree = TimeTree(windows, fanout)
    var = np.random.default_rng(1).uniform(0.5, 3.0, tree.levels)
    model = TreeModel(tree, var)
    a = ((np.arange(windows)[None, :] >= tree.lo[:, None]) & (np.arange(windows)[None, :] < tree.hi[:, None]))
    a = a.astype(float)
    w = 1.0 / var[tree.depth]
    y = np.random.default_rng(2).normal(0, 5, (3, tree.n_nodes))
    gram = a.T @ (w[:, None] * a)
    dense = np.linalg.solve(gram, (a.T * w) @ y.T).T
    np.testing.assert_allclose(model.estimate(y), dense, atol=1e-8)
    q = np.random.default_rng(3).integers(0, 2, (5, windows)).astype(float)
    np.testing.assert_allclose(model.variance(q), np.einsum("kt,ts,ks->k", q, np.linalg.inv(gram), q), rtol=1e-9)
    counts = np.random.default_rng(4).integers(0, 50, (2, windows))
    np.testing.assert_allclose(model.estimate(tree.node_counts(counts)), counts, atol=1e-9)   # exact counts stay


def test_bounding_keeps_at_most_m_a_window_and_l_in_all_uniformly():
    user = np.repeat([0, 1, 2], [30, 4, 1])
    window = np.r_[np.repeat(np.arange(10), 3), [0, 0, 1, 2], [5]]
    keep = bound_over_time(user, window, 2, 5, np.random.default_rng(0))
    per_uw = pd.Series(1, index=pd.MultiIndex.from_arrays([user[keep], window[keep]])).groupby(level=[0, 1]).sum()
    assert per_uw.max() <= 2 and np.bincount(user[keep]).tolist() == [5, 4, 1]
    runs = 3000            # which of user 0's 30 rows are kept: each with probability 5 / 30, whatever its window
    hits = sum(bound_over_time(user, window, 2, 5, np.random.default_rng(s))[:30] for s in range(runs)).astype(float)
    p = 5 / 30
    assert np.abs(hits / runs - p).max() < 5 * np.sqrt(p * (1 - p) / runs)
