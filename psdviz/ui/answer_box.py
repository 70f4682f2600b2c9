"""A private number as people read it first: the estimate and the 95 % interval of its whole error
(the count noise and the modelled error of the cells the query's edges cut), the noise alone as a
detail beside it. One place, so every page (map, Open a release, Teach, Regions) says it the same way."""
from __future__ import annotations

import math

import streamlit as st

import psdviz as pv

from . import words

WHOLE = "95 % interval, noise and the cells the edges cut"
HOLDS = ("Where the release shows little of how the points sit inside its cells (sparse data, cells cut at "
         "medians of the data) the model takes them as uneven, so the interval is wider there.")
NOISE_ONLY = "95 % interval of the noise (a region release counts whole regions: no cell is cut)"


def people(v: float) -> str:
    """A count rounded for people (whole numbers from 100 and for whole values, one decimal below);
    "not known" for NaN."""
    if not math.isfinite(v):
        return "not known"
    return f"{v:,.0f}" if abs(v) >= 100 or v == int(v) else f"{v:,.1f}"


def interval_text(low: float, high: float) -> str:
    """"low to high" of a 95 % interval, rounded for people."""
    return f"{people(low)} to {people(high)}"


def below_zero(est: float) -> str:
    """One plain sentence for an estimate below zero (a count cannot be), else empty."""
    if not (math.isfinite(est) and est < 0):
        return ""
    return (f"The estimate came out at {people(est)}: the noise took it below zero, which a count cannot be, so 0 is "
            "shown and the interval starts at 0.")


def cell_below_zero(estimate: float, noisy: float | None) -> str:
    """One plain sentence for a clicked cell whose released count or estimate is below zero, else empty."""
    low = min(estimate, noisy if noisy is not None else 0.0)
    if not (math.isfinite(low) and low < 0):
        return ""
    return ("Below zero: the noise took this cell's count below zero, which a count cannot be; the map draws it as "
            "not distinguishable from zero, and a rectangle's answer is never shown below 0.")


def _caveat(method: str | None) -> str:
    """Where ``method``'s whole interval is measured to fall short, in its spec's words (empty when none is
    known; docs/decisions/whole-interval.md has the figures)."""
    return pv.method_spec(method).interval_caveat if method is not None and method in pv.METHODS + pv.REFERENCES else ""


def detail(se: float, cut: float | None, method: str | None = None) -> str:
    """What the interval is made of, in words: the noise alone, then the cut cells' model, and where the
    interval is known to fall short, why."""
    noise = f"the noise's standard error {people(se)}"
    if cut is None:
        return f"{NOISE_ONLY}; {noise}."
    caveat = _caveat(method)
    short = f" For {method}: {caveat}." if caveat else ""
    return (f"{WHOLE}. In it: {noise}; the cells the edges cut, a model's standard deviation {people(cut)}, held to "
            f"what those cells could hold.{short}")


def show(est: float, se: float, cut: float | None, low: float, high: float, label: str = "Private answer",
         method: str | None = None) -> None:
    """The estimate (held at 0, and said so when the noise took it below), its whole 95 % interval as the
    headline under it (full width: two numbers side by side in half a column were cut to "67,70..."), and what
    it is made of below. ``low`` and ``high`` are the engine's (``Release.answer_error``, a release's counts)."""
    st.metric(label, people(max(est, 0.0) if math.isfinite(est) else est))
    if below_zero(est):
        st.caption(below_zero(est))
    st.metric("95 % interval", interval_text(low, high),
              help=(NOISE_ONLY if cut is None else f"{WHOLE}: the estimate plus or minus 2.12 standard deviations of "
                    f"its whole error and half a count, never below 0. The cut cells' part is {words.CUT_MODEL}, "
                    f"at most what those cells could hold. {HOLDS}"))
    st.caption(detail(se, cut, method))
