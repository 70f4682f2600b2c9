"""Privacy audit regressions (docs/design.md privacy rules): calibration of helper measurements and what
releases/exports may contain. Each test failed before the fix it guards."""
import json

import numpy as np
import pandas as pd
import pytest

from psdviz.core.ledger import Ledger
from psdviz.core.noise import geometric_variance
from psdviz.core.rng import make_randomness
from psdviz.sparse import make_table, summarize
from psdviz.sparse.params import table_stats
from psdviz.sparse.sample import flights_sparse_table


def _table(n=1000, m=100_000, count=3):
    return make_table(np.arange(0, m, m // n)[:n], np.full(n, count), m)


def test_sparse_statistics_noise_uses_the_declared_sensitivity():
    """n and ||M||_1 change by up to s when one individual changes the counts by s in L1, so their
    noise must have scale s / (epsilon / 2). Variance check: 4000 draws of n_hat - n; the sample
    variance of a two-sided geometric has relative sd sqrt((kurtosis - 1) / draws) ~ sqrt(5/4000) =
    3.5%, so +-15% is about 4 sd; with sensitivity 1 (the old code) the variance is 25x smaller."""
    t, sens = _table(), 5.0
    rnd = make_randomness(11)
    diffs = []
    for _ in range(4000):   # epsilon 2, half of it on the statistics: epsilon 0.5 for n
        st = table_stats(t, 2.0, rnd, Ledger(2.0), "noisy", 0.5, sens)
        diffs.append(st.n - t.n)
    expected = float(geometric_variance(0.5, sens))
    assert np.var(diffs) == pytest.approx(expected, rel=0.15)


def test_sparse_statistics_ledger_records_the_sensitivity():
    rel = summarize(_table(), "filter", 1.0, seed=2, sensitivity=4)
    stats = [s for s in rel.ledger.spends if s.what.startswith("table statistics")]
    assert len(stats) == 1 and stats[0].sensitivity == 4.0
    assert all(s.sensitivity == 4.0 for s in rel.ledger.spends if s.epsilon > 0)


def _flights_like():
    return pd.DataFrame({"tailnum": ["N1", "N1", "N2", None, "", "N3"],
                         "carrier": ["AA", "AA", "UA", "UA", "DL", "DL"],
                         "flight": [1, 1, 2, 2, 3, 4], "origin": ["JFK"] * 6,
                         "dest": ["MIA", "MIA", "SFO", "SFO", "ATL", "BOS"]})


def test_sparse_release_drops_data_owner_counts_and_labels_observed_categories(tmp_path):
    """The table's layout carries exact input figures (rows dropped) for the data owner; the release
    and its JSON export must not, and observed category lists must be labelled not private."""
    table = flights_sparse_table(_flights_like())
    assert table.layout["rows_without_tail_dropped"] == 2          # the data owner still sees it
    rel = summarize(table, "filter", 1.0, seed=0, theta=1)
    exported = json.loads(rel.save(tmp_path / "s.json", allow_seeded=True).read_text())
    assert "rows_without_tail_dropped" not in exported["report"]["layout"]
    assert "rows_without_tail_dropped" not in json.dumps(exported)
    assert any(n.startswith("NOT PRIVATE") and "category lists" in n for n in exported["report"]["notes"])


def test_sparse_release_with_declared_categories_has_no_not_private_note():
    from psdviz.sparse import contingency_table
    t = contingency_table(["a", "b"], ["x", "y"], row_values=["a", "b", "c"], col_values=["x", "y"])
    rel = summarize(t, "filter", 1.0, seed=0, theta=1)
    assert not any("NOT PRIVATE" in n for n in rel.notes)


def test_report_input_handling_states_rules_not_whether_rows_were_dropped():
    """The public part of the report must not depend on the data: with nonfinite='drop', a NaN row
    present or not used to flip 'rows_with_nan_or_inf' between 'dropped' and 'refused or none'."""
    import psdviz as pv
    rng = np.random.default_rng(0)
    pts = rng.random((500, 2))
    with_nan = np.vstack([pts, [[np.nan, 0.5]]])
    dom = pv.Domain(0, 0, 1, 1)
    a = pv.build(pts, dom, "quadtree", 1.0, seed=1, nonfinite="drop", height=3).report()
    b = pv.build(with_nan, dom, "quadtree", 1.0, seed=1, nonfinite="drop", height=3).report()
    assert a["input_handling"] == b["input_handling"]
    assert a["input_handling"]["rows_with_nan_or_inf"] == "dropped"
    c = pv.build(pts, dom, "quadtree", 1.0, seed=1, height=3).report()
    assert c["input_handling"]["rows_with_nan_or_inf"] == "refused"
    assert a == b                                   # the whole report: publishable facts only
    assert a != pv.build(pts, dom, "quadtree", 1.0, seed=1, nonfinite="drop", height=3).audit() \
        and b["ledger"] == a["ledger"]


def test_report_holds_no_input_counts_and_audit_holds_them():
    """Report() is publishable as is; the exact counts live in audit() only."""
    import json

    import psdviz as pv
    pts = np.random.default_rng(1).random((321, 2))
    rel = pv.build(np.vstack([pts, [[5.0, 5.0]]]), pv.Domain(0, 0, 1, 1), "ug", 1.0, seed=1)
    text = json.dumps(rel.report(), default=str)
    assert "321" not in text and "322" not in text and "rows_used" not in text and "rows_in\"" not in text
    audit = rel.audit()
    assert audit["rows_in"] == 322 and audit["rows_used"] == 321 and audit["rows_outside_domain"] == 1
    assert "not differentially private" in audit["note"]


def test_noisymean_ledger_records_the_sum_sensitivity():
    """The noisy mean's sum of (x - lo) has sensitivity equal to the node's width in grid steps
    (noisymean.py): the ledger must say so (it once recorded 1 for a domain 2^20 steps wide)."""
    import psdviz as pv
    rng = np.random.default_rng(0)
    dom = pv.Domain(0, 0, 50, 20)
    rel = pv.build(rng.random((400, 2)) * [50, 20], dom, "kd-noisymean", 1.0, seed=2, height=2, prune=None)
    med = [s for s in rel.ledger.spends if s.what == "median"]
    steps = rel.grid.size
    assert med[0].sensitivity == steps     # root: split along x over the whole width (2^20 grid steps)
    assert med[1].sensitivity == steps     # its children split along y over the full height
    assert all("node width in grid steps" in s.note for s in med)


def test_hilbert_noisymean_ledger_records_the_range_length():
    import psdviz as pv
    rng = np.random.default_rng(0)
    rel = pv.build(rng.random((300, 2)), pv.Domain(0, 0, 1, 1), "hilbert", 1.0, seed=1, height=2, order=4,
                   median="noisymean", prune=None)
    med = [s for s in rel.ledger.spends if s.what == "median"]
    assert med[0].sensitivity == pytest.approx(4.0 ** 4)  # the root's range: every curve position
    assert med[0].sensitivity >= med[-1].sensitivity > 1
