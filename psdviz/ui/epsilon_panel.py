"""The "What epsilon do I need?" panel beside the query, on ``pv.plan_epsilon``.

For the drawn rectangle, a target (a share of the query's expected count, or an absolute count) and
a public N the user types (never prefilled: N is private unless declared), the panel shows the
smallest epsilon meeting the target and the curve of expected standard error against epsilon.
Planning reads no data and spends no budget; it runs only when the user asks (a button), as the
quadtree's plan builds up to ~40 noise-only trees.
"""
from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

import psdviz as pv
from psdviz.errors import PsdvizError
from psdviz.present import PLANNABLE

from . import keys, words

RESULT_KEY = keys.EPSILON_PLAN


def render(domain: pv.Domain, rect: list[float] | None, spec_method: str, spec_params: dict, resolution: int) -> None:
    with st.expander("What epsilon do I need?"):
        if rect is None:
            st.caption("Draw (or type) a query rectangle first: the plan is for that query's size and place.")
            return
        built = built_method(spec_method, spec_params)
        method = st.selectbox("Plan for method", PLANNABLE, index=PLANNABLE.index(default_plan(built)),
                              key="plan_method",
                              help="Methods whose error is known before the data are read (the quadtree without "
                                   "pruning, the uniform grid; the adaptive grid under a uniform density).")
        st.caption(plan_caption(spec_method, built, method))
        n = st.number_input("Public N (type it: an estimate you may publish)", min_value=1, value=None, step=1,
                            key="plan_n", placeholder="e.g. a published population figure")
        c1, c2 = st.columns(2)
        kind = c1.radio("Target", ["% of the expected count", "absolute count"], key="plan_kind")
        value = c2.number_input("Target standard error", min_value=0.001, value=5.0 if kind.startswith("%") else 100.0,
                                key="plan_target")
        params = {k: v for k, v in spec_params.items() if method == spec_method and k in ("height", "budget", "c",
                                                                                         "alpha", "c2")}
        if not st.button("Plan epsilon", key="plan_go"):
            show(st.session_state.get(RESULT_KEY))
            return
        if n is None:
            st.error("Type a public N: the plan needs the number of points, and the app never fills in the "
                     "private one.")
            return
        target = {"relative": value / 100} if kind.startswith("%") else {"target": value}
        try:
            with st.spinner("Planning (no data read, no budget spent)..."):
                plan = pv.plan_epsilon(method, domain, rect, n=int(n), points=15, resolution=resolution,
                                       **target, **params)
        except PsdvizError as exc:
            st.error(f"Cannot plan: {words.file_text(exc)}")
            return
        st.session_state[RESULT_KEY] = plan
        show(plan)


def built_method(spec_method: str, params: dict) -> str:
    """The method the release really used: auto's pick for auto."""
    return str(params.get("chosen", spec_method)) if spec_method == "auto" else spec_method


def default_plan(built: str) -> str:
    """Plan for the built method when its error can be planned, else for the uniform grid."""
    return built if built in PLANNABLE else "ug"


def plan_caption(spec_method: str, built: str, planned: str) -> str:
    """Says plainly which method the plan is for, and whether that is the one this release used."""
    which = f"{built} (auto's pick)" if spec_method == "auto" else built
    if planned == built:
        return f"Plans for {which}, the method this release used."
    if built not in PLANNABLE:
        return (f"This release used {which}, whose error depends on the data and cannot be planned before they are "
                f"read; the plan is for {planned} instead.")
    return f"The plan is for {planned}, not for {which}, the method this release used."


def show(plan: pv.EpsilonPlan | None) -> None:
    if plan is None:
        return
    if plan.epsilon is None:
        st.warning(f"{plan.method}: the target (standard error {plan.target:,.1f}) is not met below epsilon "
                   f"{plan.curve[0][-1]:g}; ask for a larger target or a larger query.")
    else:
        st.metric(f"Smallest epsilon ({plan.method})", f"{plan.epsilon:.3g}",
                  help=f"expected standard error {plan.target:,.1f} for a query expected to hold "
                       f"{plan.expected_count:,.0f} points")
    if plan.method == "ag":
        st.caption("Adaptive grid: planned for a uniform density; on clustered data its sub-grids differ.")
    eps, err = plan.curve
    fig = go.Figure(go.Scatter(x=eps, y=err, mode="lines+markers", name="expected standard error"))
    fig.add_hline(y=plan.target, line_dash="dash", annotation_text="target")
    if plan.epsilon is not None:
        fig.add_vline(x=plan.epsilon, line_dash="dot")
    fig.update_layout(height=240, margin={"l": 10, "r": 10, "t": 10, "b": 10}, xaxis_type="log", yaxis_type="log",
                      xaxis_title="epsilon", yaxis_title="standard error (points)")
    st.plotly_chart(fig, width="stretch", key="plan_curve")
