"""The data set's budget on the map page: the file chosen, what remains shown beside epsilon, a build
the remainder cannot take refused in words before it is built, and each fresh release the page shows
recorded once (docs/decisions/app-budget.md)."""
from __future__ import annotations

from pathlib import Path

import streamlit as st

import psdviz as pv
from psdviz.errors import PsdvizError

from . import words

PATH_KEY = "budget_path"
RECORDED_KEY = "budget_recorded"      # release ids this session has recorded, per budget file


def chosen_budget() -> pv.Budget | None:
    """The budget file typed in the sidebar (a path on the machine running the app), its remainder shown;
    None when none is chosen or it cannot be read (then said in words)."""
    text = st.text_input("Budget file of this data set (optional)", key=PATH_KEY,
                         placeholder="e.g. trips.budget.json",
                         help="A psdviz budget file (psdviz budget init FILE --epsilon E) on the machine running "
                              "the app. Each fresh release this page builds and shows is recorded in it once; a "
                              "release the remainder cannot take is not built.")
    if not text.strip():
        return None
    path = Path(text.strip()).expanduser()
    if not path.is_file():
        st.error(f"No budget file at {path}: create one with `psdviz budget init {path.name} --epsilon E`.")
        return None
    try:
        budget = pv.Budget(path)
        left, total, n = budget.remaining, budget.total_epsilon, len(budget.entries)
    except PsdvizError as exc:
        st.error(f"The budget file cannot be used: {words.file_text(exc)}")
        return None
    st.caption(f"Budget **{path.name}** ({budget.unit}): epsilon **{max(left, 0.0):.4g} left** of {total:g}, "
               f"{n} release{'s' * (n != 1)} recorded. Each fresh release shown here is recorded once.")
    return budget


def refusal(budget: pv.Budget | None, rid: str, epsilon: float, unit) -> str | None:
    """Why the fresh release ``rid`` of ``epsilon`` must not be built under ``budget`` (words), or None.
    A release this session already recorded is kept, not drawn again."""
    if budget is None or recorded(budget, rid):
        return None
    try:
        budget.check(float(epsilon), 0.0, unit, what=f"a release at epsilon {epsilon:g}")
    except PsdvizError as exc:
        return str(exc)
    return None


def recorded(budget: pv.Budget | None, rid: str) -> bool:
    return budget is not None and rid in st.session_state.get(RECORDED_KEY, {}).get(str(budget.path.resolve()), ())


def record(budget: pv.Budget | None, release: pv.Release, rid: str) -> None:
    """Record a fresh private release in the budget once per session (a seeded teaching run or a
    non-private reference is not a release and is never recorded)."""
    if budget is None or not release.private or release.randomness.seeded or recorded(budget, rid):
        return
    budget.draw(release, "spatial")
    st.session_state.setdefault(RECORDED_KEY, {}).setdefault(str(budget.path.resolve()), set()).add(rid)
