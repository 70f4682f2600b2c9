"""The budget and the ledger compare epsilons relatively, at any scale, and refuse totals that are not finite."""
import json

import numpy as np
import pytest

import psdviz as pv
from psdviz.core.errors import BudgetError
from psdviz.core.ledger import Ledger


def test_a_tiny_budget_refuses_a_release_ten_times_larger(tmp_path):
    """Once an absolute tolerance of 1e-12 let a total of 1e-13 take a release of 1e-12 (ten times over)."""
    b = pv.Budget(tmp_path / "b.json", total_epsilon=1e-13)
    with pytest.raises(BudgetError, match="asks for 1e-12"):
        b.check(1e-12, 0.0, "one point")
    b.check(1e-13, 0.0, "one point")                    # exactly the total fits


def test_a_ledger_refuses_a_spend_past_a_tiny_budget():
    with pytest.raises(ValueError, match="would exceed the budget 1e-13"):
        Ledger(1e-13).spend("counts", 1e-12, "geometric")


def test_many_small_releases_fill_a_budget_exactly(tmp_path):
    b = pv.Budget(tmp_path / "b.json", total_epsilon=1.0)
    for _ in range(10):
        b.record("spatial", "ug", 0.1, 0.0, "one point")
    with pytest.raises(BudgetError):
        b.check(1e-9, 0.0, "one point")


@pytest.mark.parametrize("total", ["Infinity", "NaN", "-1", "0", "true", "1e400"])
def test_a_budget_file_with_a_total_that_is_not_a_finite_positive_number_is_refused(tmp_path, total):
    path = tmp_path / "b.json"
    pv.Budget(path, total_epsilon=1.0)
    path.write_text(path.read_text().replace('"total_epsilon": 1.0', f'"total_epsilon": {total}'))
    assert total in path.read_text()
    with pytest.raises(BudgetError, match="total_epsilon must be a finite number > 0"):
        _ = pv.Budget(path).remaining


def test_a_budget_file_with_an_infinite_entry_is_refused(tmp_path):
    path = tmp_path / "b.json"
    pv.Budget(path, total_epsilon=1.0).record("spatial", "ug", 0.5, 0.0, "one point")
    doc = json.loads(path.read_text())
    doc["releases"][0]["epsilon"] = float("-inf")
    path.write_text(json.dumps(doc))
    with pytest.raises(BudgetError, match="damaged"):
        pv.Budget(path).check(0.1, 0.0, "one point")


def test_building_against_a_budget_never_overspends_at_small_scales(tmp_path):
    b = pv.Budget(tmp_path / "b.json", total_epsilon=3e-6)
    pts = np.random.default_rng(0).random((100, 2))
    pv.build(pts, pv.Domain(0, 0, 1, 1), "ug", 2e-6, seed=1, privacy_budget=b)
    with pytest.raises(BudgetError):
        pv.build(pts, pv.Domain(0, 0, 1, 1), "ug", 2e-6, seed=1, privacy_budget=b)
    assert b.spent == pytest.approx(2e-6)


def test_psdviz_imports_and_keeps_a_budget_without_fcntl(tmp_path):
    """Windows has no fcntl: with it made unimportable, psdviz imports and a budget takes a release (the lock
    then comes from filelock's other backend)."""
    import subprocess
    import sys
    code = ("import sys; sys.modules['fcntl'] = None\n"
            "import psdviz as pv\n"
            f"b = pv.Budget({str(tmp_path / 'b.json')!r}, total_epsilon=1.0)\n"
            "b.record('spatial', 'ug', 0.25, 0.0, 'one point'); print(b.spent)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "0.25", out.stderr[-500:]
