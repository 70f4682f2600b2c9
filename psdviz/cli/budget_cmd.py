"""``psdviz budget``: what a budget file has spent and has left."""
from __future__ import annotations

import argparse
from pathlib import Path

from ..errors import BudgetError, ParameterError
from ..present import unit_for


def run_budget(a: argparse.Namespace) -> int:
    from ..budget import Budget
    if a.action == "init":
        if a.epsilon is None:
            raise ParameterError("psdviz budget init FILE needs --epsilon (the whole epsilon for the data set)")
        if Path(a.file).exists():
            raise BudgetError(f"{a.file} exists already: a budget is created once (psdviz budget show {a.file})")
        Budget(a.file, total_epsilon=a.epsilon, unit=unit_for(a.max_points_per_user), total_delta=a.delta)
    print(Budget(a.file).report())
    return 0
