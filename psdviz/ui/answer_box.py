"""A private number as people read it first: the estimate and the 95 % interval of its whole error
(the count noise and the modelled error of the cells the query's edges cut), the noise alone as a
detail beside it. One place, so every page (map, Open a release, Teach, Regions) says it the same way."""
from __future__ import annotations

import math

import streamlit as st

import psdviz as pv
from psdviz.present import whole_interval

from . import words

WHOLE = "95 % interval, noise and the cells the edges cut"
SPARSE = ("on very sparse data (a few thousand points over many cells) the interval holds the truth less often "
          "than 95 %: the model of the cut cells reads the release, which knows little there")
NOISE_ONLY = "95 % interval of the noise (a region release counts whole regions: no cell is cut)"


def people(v: float) -> str:
    """A count rounded for people (whole numbers from 100 and for whole values, one decimal below);
    "not known" for NaN."""
    if not math.isfinite(v):
        return "not known"
    return f"{v:,.0f}" if abs(v) >= 100 or v == int(v) else f"{v:,.1f}"


def interval_text(est: float, se: float, cut: float = 0.0) -> str:
    """"low to high" of the whole 95 % interval."""
    low, high = (float(v) for v in whole_interval(est, se, cut))
    return f"{people(low)} to {people(high)}"


def _caveat(method: str | None) -> str:
    """Where ``method``'s whole interval is measured to fall short, in its spec's words (empty when none is
    known; docs/decisions/whole-interval.md has the figures)."""
    return pv.method_spec(method).interval_caveat if method is not None and method in pv.METHODS + pv.REFERENCES else ""


def detail(se: float, cut: float | None, method: str | None = None) -> str:
    """What the interval is made of, in words: the noise alone, then the cut cells' model, and where the
    interval is known to fall short, why."""
    noise = f"the noise alone ± {people(1.96 * se)} (standard error {people(se)})"
    if cut is None:
        return f"{NOISE_ONLY}; {noise}."
    caveat = _caveat(method)
    short = f" For {method}: {caveat}." if caveat else ""
    return f"{WHOLE}. In it: {noise}; the cells the edges cut ± {people(1.96 * cut)} (a model).{short}"


def show(est: float, se: float, cut: float | None, label: str = "Private answer", method: str | None = None) -> None:
    """The estimate, its whole 95 % interval as the headline under it (full width: two numbers side by
    side in half a column were cut to "67,70..."), and what it is made of below."""
    st.metric(label, people(est))
    st.metric("95 % interval", interval_text(est, se, 0.0 if cut is None else cut),
              help=(NOISE_ONLY if cut is None else f"{WHOLE}: the estimate plus or minus 1.96 standard deviations of "
                    f"its whole error. The cut cells' part is {words.CUT_MODEL}. As measured, {SPARSE}."))
    st.caption(detail(se, cut, method))
