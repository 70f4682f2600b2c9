"""Teach: noise as noise. Two releases of the same data side by side (two methods, or two epsilons) on
linked maps with one colour scale; one rectangle answered by both beside the truth; the owner's
private-minus-true map (NOT private); and "draw the noise again": k fresh releases answering the same
rectangle, their spread against the standard error they state.

Every number comes from the engine (pv.build, Release.answer / answer_variance,
psdviz.lab.teaching); this module arranges widgets. The data are the map page's, or the bundled
GeoNames sample when the map page has loaded none.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

import psdviz as pv
from psdviz.errors import PsdvizError
from psdviz.lab.teaching import cell_errors, redraw

from . import answer_box, cache, controls, data_input, keys, mapview, words
from .map_layers import MAX_SHAPES, _outline_layer, legend_html, query_layer
from .map_page import keep_new_drawing
from .query_panel import overlaps_domain
from .state import forget
from .teach_view import error_legend, error_map, linked_maps

K_MAX = 50


def render() -> None:
    st.title("Teach: noise as noise")
    data = _data()
    with st.sidebar:
        st.header("Two releases of the same data")
        left = _side("Left", "teach_a", "quadtree", 0.1)
        right = _side("Right", "teach_b", "quadtree", 1.0)
        seed, nonce = controls.choose_randomness("teach", "pair of releases")
    if _forget_other_data(data):
        st.caption("New data: the rectangle and the redraws of the earlier data were cleared.")
    try:
        a = cache.build_release(data, controls.BuildSpec(left[0], left[1], seed=seed, nonce=nonce))
        b = cache.build_release(data, controls.BuildSpec(right[0], right[1], seed=seed, nonce=nonce))
    except PsdvizError as exc:
        st.error(f"Cannot build: {words.file_text(exc)}")
        return
    st.caption(f"Data {words.file_text(data.name)}; left: `{a.method}` at epsilon {a.epsilon:g}, right: "
               f"`{b.method}` at epsilon {b.epsilon:g}. One colour scale for both maps; pan or zoom one and the other "
               "follows. Draw a rectangle on the left map.")
    dual, colours, _ = linked_maps(a, b)
    keep_new_drawing(mapview.latest_value(keys.TEACH_MAP).get("all_drawings"), keys.TEACH_RECT)
    out = mapview.show_map(dual, key=keys.TEACH_MAP, height=520,
                           overlay=query_layer(st.session_state.get(keys.TEACH_RECT))) or {}
    keep_new_drawing(out.get("all_drawings"), keys.TEACH_RECT)
    st.markdown(legend_html(colours), unsafe_allow_html=True)
    rect = st.session_state.get(keys.TEACH_RECT)
    both_answers(a, b, data, rect)
    noise_again(data, a, rect)
    owner_error_map(a, data)


def _side(title: str, prefix: str, method: str, epsilon: float) -> tuple[str, float]:
    st.subheader(title)
    names = list(pv.METHODS)
    m = st.selectbox("Method", names, index=names.index(method), key=f"{prefix}_method",
                     format_func=controls.method_label)
    eps = st.select_slider("epsilon", [0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0], value=epsilon, key=f"{prefix}_eps")
    return m, float(eps)


def _data() -> data_input.Dataset:
    shared = st.session_state.get(keys.SHARED_DATA)
    return shared if shared is not None else data_input.sample_dataset("geonames")


def _forget_other_data(data: data_input.Dataset) -> bool:
    """The rectangle and redraws belong to their data and domain (a new choice on the map page clears them)."""
    owner = f"{data.fingerprint}|{data.domain}"
    old = st.session_state.get(keys.TEACH_DATA)
    st.session_state[keys.TEACH_DATA] = owner
    if old in (None, owner):
        return False
    forget(keys.TEACH_RECT, keys.TEACH_REDRAWS)
    return True


def both_answers(a: pv.Release, b: pv.Release, data: data_input.Dataset, rect) -> None:
    st.subheader("One rectangle, two releases")
    if rect is None:
        st.info("Draw a rectangle on the left map (square tool): both releases answer it, beside the truth.")
        return
    if not overlaps_domain(a.domain, rect):
        st.warning("This rectangle lies outside the domain: neither release says anything about it.")
        return
    q = np.asarray([rect], float)
    truth = int(cache.truth_index(data).count(q)[0])
    rows = []
    for side, rel in (("left", a), ("right", b)):
        p = {k: float(v[0]) for k, v in rel.answer_error(q).items()}
        se = p["standard_error"]
        rows.append({"map": side, "method": rel.method, "epsilon": rel.epsilon,
                     "private answer": answer_box.people(p["shown"]),
                     answer_box.WHOLE: answer_box.interval_text(p["low"], p["high"]),
                     "noise alone (standard error)": answer_box.people(se),
                     "error (NOT private)": answer_box.people(p["shown"] - truth)})
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    st.caption(f"True count (NOT private, for the data owner): {truth:,}. Rectangle x [{words.short(rect[0])}, "
               f"{words.short(rect[2])}], y [{words.short(rect[1])}, {words.short(rect[3])}].")


def noise_again(data: data_input.Dataset, a: pv.Release, rect) -> None:
    st.subheader("Draw the noise again")
    if rect is None or not overlaps_domain(a.domain, rect):
        st.caption("Draw a rectangle first: k fresh releases of the left method will answer it.")
        return
    c1, c2 = st.columns([1, 3])
    k = int(c1.number_input("k fresh releases", 2, K_MAX, 20, key="teach_k"))
    if c1.button("Draw the noise again", key="teach_redraw",
                 help=f"{k} fresh releases of `{a.method}` at epsilon {a.epsilon:g} answer the rectangle"):
        user: dict[str, Any] = ({} if data.user is None else
                                {"user": data.user, "max_points_per_user": data.max_points_per_user})
        with st.spinner(f"Building {k} releases..."):
            r = redraw(data.xy, data.domain, rect, method=a.method, epsilon=a.epsilon, k=k, outside="drop",
                       nonfinite="drop", **user)
        st.session_state[keys.TEACH_REDRAWS] = (tuple(rect), a.method, a.epsilon, r)
    kept = st.session_state.get(keys.TEACH_REDRAWS)
    if kept is None or kept[:3] != (tuple(rect), a.method, a.epsilon):
        c2.caption("Each fresh release spends epsilon again: in real life a data set is released once. Here the "
                   "owner sees what the one release could have been.")
        return
    r = kept[3]
    truth = int(cache.truth_index(data).count(np.asarray([rect], float))[0])
    c2.plotly_chart(_strip(r.answers, truth, r.stated), width="stretch")
    centre = float(r.answers.mean())
    biased = abs(centre - truth) > 3 * r.spread / np.sqrt(r.answers.size)
    c2.caption(f"{r.answers.size} fresh releases: their answers spread with standard deviation {r.spread:,.1f}; "
               f"the releases stated a standard error of the noise of {r.stated:,.1f}. {r.within(truth):.0%} of "
               f"their 95 % intervals (noise and the cells the edges cut) hold the true count, and "
               f"{r.within_noise_band(truth):.0%} of the answers lie in the grey noise band (NOT private)."
               + (f" The answers centre on {centre:,.0f}, not on the truth: the rectangle cuts cells, and a release "
                  "assumes the points spread evenly inside a cell. That error comes from the partition, not from "
                  "the noise, so the noise band leaves it out and the 95 % interval includes it; a rectangle along "
                  "cell borders, or a finer partition, has less of it." if biased else ""))


def _strip(answers: np.ndarray, truth: int, se: float) -> go.Figure:
    fig = go.Figure()
    fig.add_vrect(x0=truth - 1.96 * se, x1=truth + 1.96 * se, fillcolor="#cccccc", opacity=0.4, line_width=0,
                  annotation_text="noise band: truth ± 1.96 standard errors of the noise",
                  annotation_position="top left")
    fig.add_trace(go.Scatter(x=answers, y=np.zeros(answers.size), mode="markers", name="private answers",
                             marker={"size": 10, "color": "#721f81", "opacity": 0.7}))
    fig.add_vline(x=truth, line_color="#0a7d00", annotation_text="true count (NOT private)")
    fig.update_layout(height=220, showlegend=False, yaxis={"visible": False}, margin={"t": 30, "b": 30},
                      xaxis_title="answer to the rectangle")
    return fig


def owner_error_map(a: pv.Release, data: data_input.Dataset) -> None:
    st.subheader("Private minus true, cell by cell (NOT private)")
    if not st.toggle("Show the left release's errors (uses the true counts: for the data owner only)",
                     key="teach_errors"):
        return
    nodes = a.tree.leaf_index()
    if nodes.size > MAX_SHAPES:
        from psdviz.present import frontier, view_depth
        nodes = frontier(a.tree, view_depth(a.tree, MAX_SHAPES))
    err = cell_errors(a, cache.truth_index(data), nodes)
    st.warning("NOT PRIVATE: this map compares the release with the true counts. Never publish it.")
    mapview.show_map(error_map(a, nodes, err.diff, err.z, _outline_layer(a.domain)), key=keys.TEACH_ERRORS_MAP,
                     height=420)
    st.markdown(error_legend(), unsafe_allow_html=True)
    st.caption(f"{err.within(1.0):.0%} of the {nodes.size:,} cells lie within one standard error of their true "
               f"count and {err.within(1.96):.0%} within 1.96 (about 68 % and 95 % for honest, near-normal "
               "noise). Cells far outside show where the release's error is larger than it says.")
