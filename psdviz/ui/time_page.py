"""Counts over time: one private release for every window of a public span, seen window by window.

A time slider (with a step button and a play switch that advances it) over the noisy partition, its colours on
one scale for every window and pale where a cell is within two noise standard errors of zero; for a rectangle
(typed, or box-selected on the map) the line chart of its private counts with their whole intervals and, for the
data owner, the true counts; a teaching view of why per-window releases at the same total epsilon are noisier.
Every number comes from the engine (``pv.build_over_time``, ``TimeRelease`` queries, ``psdviz.lab.time_teaching``);
this module arranges widgets.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

import psdviz as pv
from psdviz import temporal
from psdviz.errors import ParameterError, PsdvizError
from psdviz.lab import time_teaching
from psdviz.lab.synthetic import event_stream
from psdviz.present import PALE_WORDS, PALETTE, colour_bins, legend_entries

from . import words
from .state import forget

FLIGHTS = "US flights, January to June 2001 (vega-datasets)"
SYNTHETIC = "Synthetic stream: a trend, weekly cycles, bursts"
OPEN_FILE = "Open a release over time (.json)"
UNIT_WORDS = {"event": "one event", "user": "one contributor over the whole span",
              "w-event": "one contributor in any w windows"}
RASTER_MAX = 128          # pixels per axis of the map (cells finer than this are drawn at this resolution)


@dataclass(frozen=True)
class TimeData:
    """Timestamped points with a contributor id, a public domain and span, and what a contributor is."""

    name: str
    xy: np.ndarray
    seconds: np.ndarray
    user: np.ndarray
    domain: pv.Domain
    span: tuple[str, str]
    contributor: str


@st.cache_resource(show_spinner="Loading the flights ...", max_entries=1)
def _flights() -> TimeData:
    f = temporal.flight_departures()
    secs = temporal.to_seconds(f["time"])[0]
    return TimeData(FLIGHTS, f[["lon", "lat"]].to_numpy(float), secs, f["route"].to_numpy(),
                    pv.Domain(*temporal.FLIGHTS_DOMAIN), temporal.FLIGHTS_SPAN, "route (origin-destination pair)")


@st.cache_resource(show_spinner="Generating the stream ...", max_entries=1)
def _synthetic() -> TimeData:
    dom = pv.Domain(0, 0, 1, 1)
    xy, secs, user = event_stream(20_000, 182, dom, np.random.default_rng(11), rate=0.2)
    start = int(np.datetime64("2024-01-01", "s").astype(np.int64))
    return TimeData(SYNTHETIC, xy, secs + start, user, dom, ("2024-01-01", "2024-07-01"), "user")


@st.cache_resource(show_spinner="Building the release over time ...", max_entries=8)
def _release(name: str, window: str, epsilon: float, unit: str, mechanism: str, m: int, total: int | str, w: int,
             level: int, seed: int | None, nonce: int) -> temporal.TimeRelease:
    data = _data(name)
    kw: dict = {}
    if unit == "user":
        kw = {"user": data.user, "max_points_per_window": m, "max_points_per_user": total}
    elif unit == "w-event":
        kw = {"user": data.user, "max_points_per_window": m, "w": w}
    return pv.build_over_time(data.xy, data.domain, time=data.seconds, span=data.span, window=window,
                              epsilon=epsilon, unit=unit, mechanism=mechanism, grid_level=level, seed=seed,
                              nonfinite="drop", **kw)


def _data(name: str) -> TimeData:
    return _flights() if name == FLIGHTS else _synthetic()


@st.cache_resource(max_entries=4, show_spinner="Opening the release ...")
def _opened(digest: str, _data: bytes, filename: str):
    from .uploads import open_upload
    return open_upload(_data, filename, pv.load_release, "release")


def render() -> None:
    st.title("Counts over time")
    st.caption("One private release for every window of a public span, on cells shared by all windows: event-level "
               "(windows in parallel), one contributor over the whole span (the tree mechanism over time) or "
               "w-event privacy (budget distribution or absorption).")
    with st.sidebar:
        spec = _controls()
    data: TimeData | None = None
    try:
        if spec[0] == OPEN_FILE:
            rel = _from_file()
            if rel is None:
                return
            name = "the release file"
        else:
            rel = _release(*spec)
            data = _data(spec[0])
            name = f"{words.file_text(data.name)} (a contributor is a {data.contributor})"
    except PsdvizError as exc:
        st.error(f"Cannot build or open it: {words.file_text(exc)}")
        return
    st.caption(f"{name}: {rel.partition.size:,} cells x {rel.windows:,} windows of {rel.axis.label()}; "
               f"`{rel.mechanism}`, epsilon {rel.epsilon:g} per {rel.privacy_unit}."
               + _bound_words(rel.params)
               + (" Seeded: a teaching run, NOT private." if rel.randomness.seeded else ""))
    window = _time_control(rel)
    rect = _map(rel, window)
    _series(rel, data, rect)
    _teaching(rel, data, rect, spec)


def _from_file() -> temporal.TimeRelease | None:
    import hashlib
    up = st.session_state.get("time_upload")
    if up is None:
        st.info("Upload a release over time (`psdviz build ... --time COL --window 1d --out FILE.json`, or a job's "
                "over-time release) to see it as a data consumer does: no raw data is needed or shown.")
        return None
    data = up.getvalue()
    rel = _opened(hashlib.sha1(data).hexdigest(), data, up.name)
    if not isinstance(rel, temporal.TimeRelease):
        raise ParameterError(f"{up.name} is a {rel.report()['kind']} release, not a release over time: open it on the "
                             "Open a release page")
    return rel


def _controls() -> tuple:
    st.header("The release")
    sources = ([FLIGHTS] if temporal.flights_available() else []) + [SYNTHETIC, OPEN_FILE]
    name = st.selectbox("Data", sources, key="time_data",
                        help="The flights need `bash .ci/fetch_test_data` (vega-datasets from the npm registry).")
    if name == OPEN_FILE:
        st.file_uploader("A release over time", type=["json"], key="time_upload")
        return (name,)
    window = str(st.selectbox("Window", ["1d", "1w"], format_func=lambda v: "day" if v == "1d" else "week",
                              key="time_window"))
    epsilon = float(st.select_slider("epsilon", [0.1, 0.2, 0.5, 1.0, 2.0, 5.0], value=1.0, key="time_eps"))
    unit = st.radio("Privacy unit", list(UNIT_WORDS), format_func=UNIT_WORDS.get, key="time_unit")
    mechanism = st.selectbox("Mechanism", list(temporal.MECHANISMS[unit]), key=f"time_mech_{unit}",
                             help="flat: one noisy count a cell and window; tree: every range of windows from a few "
                                  "noisy intervals (error grows with log T); ba / bd: w-event budget absorption or "
                                  "distribution.")
    m = w = 1
    total: int | str = 1
    if unit != "event":
        m = int(st.number_input("At most m events a contributor in one window", 1, 1000, 3, key="time_m"))
    if unit == "user":
        chosen = st.checkbox("Choose L from the data, privately", key="time_l_auto",
                             help=f"L is drawn near the number of events {temporal.BOUND_QUANTILE:.0%} of "
                                  f"contributors do not exceed, with {temporal.BOUND_FRACTION:.0%} of epsilon (the "
                                  "rest measures the counts).")
        total = "auto" if chosen else int(st.number_input("At most L events a contributor in all", m, 100_000,
                                                          max(m, 200), key="time_l"))
    if unit == "w-event":
        w = int(st.number_input("w: windows protected together", 1, 1000, 7, key="time_w"))
    level = int(st.select_slider("Grid (cells per axis)", [3, 4, 5], value=4, format_func=lambda v: f"{2 ** v}",
                                 key="time_level"))
    from .controls import choose_randomness
    seed, nonce = choose_randomness("time", "release over time")
    return name, window, epsilon, unit, mechanism, m, total, w, level, seed, nonce


def _bound_words(params: dict) -> str:
    """The caption's sentence on a privately chosen L (one, or one a level of the tree over time)."""
    if not params.get("max_points_per_user_chosen"):
        return ""
    levels = params.get("max_points_per_user_levels")
    if levels:
        return (f" L = {', '.join(f'{b:,}' for b in levels)} from the whole span down to one window: chosen "
                "privately from the data (longer ranges keep more of each contributor's events; at each level, a "
                "contributor's events beyond its L are dropped).")
    return (f" L = {params['max_points_per_user']:,}: chosen privately from the data (a contributor's events beyond "
            "it are dropped).")


def _time_control(rel: temporal.TimeRelease) -> int:
    t = rel.windows
    if st.session_state.get("time_window_at", 0) >= t:
        st.session_state["time_window_at"] = 0
    if st.session_state.pop("time_advance", False):          # a tick of the play switch, before the slider
        st.session_state["time_window_at"] = (st.session_state.get("time_window_at", 0) + 1) % t
    c1, c2, c3 = st.columns([6, 1, 1])
    if c2.button("Step ▶", key="time_step_btn", help="the next window"):
        st.session_state["time_window_at"] = (st.session_state.get("time_window_at", 0) + 1) % t
    playing = c3.toggle("Play", key="time_play", help="advance one window a second")
    starts = rel.axis.starts()
    window = int(c1.select_slider("Window", options=list(range(t)), key="time_window_at",
                                  format_func=lambda i: f"{pd.Timestamp(starts[i]):%Y-%m-%d}",
                                  help="the window shown on the map"))
    if playing:
        _advance()
    start = rel.axis.starts()[window]
    st.caption(f"Window {window + 1:,} of {t:,}: {pd.Timestamp(start):%Y-%m-%d %H:%M} UTC, for {rel.axis.label()}.")
    return window


@st.fragment(run_every=1.0)
def _advance() -> None:
    """While playing: about once a second, ask the next run to show the next window (the slider is already drawn
    in this run, so the step is applied before it is drawn again)."""
    now = time.monotonic()
    if st.session_state.get("time_play") and now - st.session_state.get("time_last_tick", 0.0) >= 0.9:
        st.session_state["time_last_tick"] = now
        st.session_state["time_advance"] = True
        st.rerun()


def _colours(rel: temporal.TimeRelease):
    """One honest colour class per (cell, window), on one scale for all windows (:func:`colour_bins`)."""
    r = rel.partition.rects()
    area = np.repeat((r[:, 2] - r[:, 0]) * (r[:, 3] - r[:, 1]), rel.windows)
    se = np.sqrt(rel.model.variance(np.eye(rel.windows)))
    est = rel.estimate.ravel()
    sd = np.tile(se, rel.partition.size)
    with np.errstate(divide="ignore", invalid="ignore"):
        rel_sd = np.where(est > 0, sd / np.abs(est), np.inf)
    colours = colour_bins(est / area, np.abs(est) <= 2 * sd, rel_sd, area)
    return np.asarray(colours.index).reshape(rel.partition.size, rel.windows), colours


def _raster(rel: temporal.TimeRelease) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The cell under each pixel centre of a raster over the domain, and the pixel centres' x and y."""
    d = rel.partition.grid.domain
    px = min(1 << int(rel.partition.level.max()), RASTER_MAX)
    xs = d.xmin + (np.arange(px) + 0.5) * d.width / px
    ys = d.ymin + (np.arange(px) + 0.5) * d.height / px
    gx, gy = np.meshgrid(xs, ys)
    keys = rel.partition.grid.keys(np.column_stack([gx.ravel(), gy.ravel()]))
    return rel.partition.cell_of(keys).reshape(px, px), xs, ys


def _map(rel: temporal.TimeRelease, window: int) -> list[float]:
    index, colours = _colours(rel)
    cells, xs, ys = _raster(rel)
    z = index[:, window][cells]
    n = len(PALETTE)                  # a stepwise scale: palette index i fills [i, i + 1) / n
    scale = [[edge / n, c] for i, c in enumerate(PALETTE) for edge in (i, i + 1)]
    est = rel.estimate[:, window][cells]
    fig = go.Figure(go.Heatmap(z=z, x=xs, y=ys, zmin=-0.5, zmax=len(PALETTE) - 0.5, colorscale=scale, showscale=False,
                               customdata=est, hovertemplate="private count %{customdata:,.0f}<extra></extra>"))
    gx, gy = np.meshgrid(xs, ys)
    fig.add_trace(go.Scatter(x=gx.ravel(), y=gy.ravel(), mode="markers", marker={"opacity": 0, "size": 4},
                             hoverinfo="skip", showlegend=False))
    rect = _rectangle(rel)
    fig.add_shape(type="rect", x0=rect[0], y0=rect[1], x1=rect[2], y1=rect[3], line={"color": "#0a7d00", "width": 2})
    fig.update_layout(height=460, margin={"t": 10, "b": 10, "l": 10, "r": 10}, dragmode="select",
                      xaxis={"title": "x (longitude)", "constrain": "domain"},
                      yaxis={"title": "y (latitude)", "scaleanchor": "x"})
    event = st.plotly_chart(fig, key="time_map", on_select="rerun", selection_mode=("box",), width="stretch")
    boxes = (getattr(event, "selection", None) or {}).get("box") or []
    if boxes:
        b = boxes[-1]
        picked = [min(b["x"]), min(b["y"]), max(b["x"]), max(b["y"])]
        if picked != st.session_state.get("time_picked"):     # the inputs take it before they are drawn
            st.session_state["time_picked"] = st.session_state["time_pending"] = picked
            st.rerun()
    entries = legend_entries(colours)
    swatch = '<span style="background:{};display:inline-block;width:18px;height:11px;border:1px solid #bbb"></span>'
    st.markdown('<div style="font-size:0.8em">' + swatch.format(PALETTE[0]) + f" {PALE_WORDS}, or among the sparsest "
                "cells; " + " ".join(f"{swatch.format(c)} {t}" for c, t in entries) +
                " (estimated events per square unit, log scale; one scale for every window)</div>",
                unsafe_allow_html=True)
    return rect


def _rectangle(rel: temporal.TimeRelease) -> list[float]:
    d = rel.partition.grid.domain
    names = ("time_x0", "time_y0", "time_x1", "time_y1")
    if st.session_state.get("time_rect_domain") != str(d):      # a rectangle belongs to its data's domain
        forget(*names, "time_picked", "time_per_window", "time_pending")
        st.session_state["time_rect_domain"] = str(d)
    pending = st.session_state.pop("time_pending", None)
    if pending is not None:
        for n, v in zip(names, pending):
            st.session_state[n] = float(v)
    default = [d.xmin + 0.55 * d.width, d.ymin + 0.45 * d.height, d.xmin + 0.9 * d.width, d.ymin + 0.85 * d.height]
    with st.expander("The rectangle (box-select on the map, or type it)", expanded=False):
        cols = st.columns(4)
        rect = [float(c.number_input(n[-2:], value=float(st.session_state.get(n, v)), key=n, format="%.4f"))
                for c, n, v in zip(cols, names, default)]
    if rect[2] <= rect[0] or rect[3] <= rect[1]:
        st.error("The rectangle's x1 must exceed x0 and y1 exceed y0.")
        return default
    return rect


def _series(rel: temporal.TimeRelease, data: TimeData | None, rect: list[float]) -> None:
    st.subheader("The rectangle over time")
    s = rel.series(rect)
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=np.r_[s["start"], s["start"][::-1]], y=np.r_[s["high"], s["low"][::-1]],
                             fill="toself", fillcolor="rgba(114,31,129,0.18)", line={"width": 0},
                             name="95 % interval (noise and cut cells)", hoverinfo="skip"))
    fig.add_trace(go.Scatter(x=s["start"], y=s["estimate"], name="private count", line={"color": "#721f81"}))
    owner = data is not None and st.toggle("Show the true counts (for the data owner: NOT private)", key="time_truth")
    if owner and data is not None:
        win = rel.axis.index(data.seconds)
        fig.add_trace(go.Scatter(x=s["start"], y=time_teaching.true_series(data.xy, win, rel.windows, rect),
                                 name="true count (NOT private)", line={"color": "#0a7d00", "dash": "dot"}))
    fig.update_layout(height=330, margin={"t": 20, "b": 20}, yaxis_title="events in the rectangle",
                      legend={"orientation": "h"})
    st.plotly_chart(fig, key="time_series", width="stretch")
    whole = rel.answer_interval([rect])[0]
    est = float(rel.answer([rect])[0])
    st.caption(f"Rectangle x [{words.short(rect[0])}, {words.short(rect[2])}], y [{words.short(rect[1])}, "
               f"{words.short(rect[3])}]. Over the whole span: {est:,.0f} (95 % interval {whole[0]:,.0f} to "
               f"{whole[1]:,.0f}). Each window's interval: the noise and the modelled error of the cells the "
               "rectangle's edges cut" + (" and of windows that repeat an older publication." if rel.mechanism in
                                           ("bd", "ba") else "."))
    if owner:
        st.warning("NOT PRIVATE: the dotted line is the true count. Never publish it.")


def _teaching(rel: temporal.TimeRelease, data: TimeData | None, rect: list[float], spec: tuple) -> None:
    st.subheader("Why one release per window is noisier")
    m = int(rel.params.get("max_points_per_window", 1))
    event = rel.privacy_unit.kind == "point"
    table = time_teaching.range_errors(rel, m)
    if event:
        st.info("At event level the windows hold disjoint events: per-window releases compose in parallel and may "
                "each spend the whole epsilon, so they cost nothing more. The gap below opens as soon as the unit is "
                "a contributor present in many windows (choose one in the sidebar): then T releases at epsilon / T "
                "each are what a budget file allows. The figures below are for a contributor of one event a window.")
    st.markdown(f"The same total epsilon {rel.epsilon:g} spent as {rel.windows:,} independent per-window releases "
                f"(epsilon {rel.epsilon / rel.windows:.3g} each, sequential composition: a contributor is in every "
                "window) gives every window's count noise of scale T m / epsilon; this release's noise does not grow "
                "with the number of windows that way.")
    fig = go.Figure()
    for col, colour in (("per-window releases", "#cd4071"), ("this release", "#721f81")):
        fig.add_trace(go.Scatter(x=table["windows"], y=table[col], name=col, mode="lines+markers",
                                 line={"color": colour}))
    fig.update_layout(height=280, margin={"t": 20, "b": 20}, xaxis={"type": "log", "title": "windows in the range"},
                      yaxis={"type": "log", "title": "noise standard error, one cell"}, legend={"orientation": "h"})
    st.plotly_chart(fig, key="time_teach", width="stretch")
    st.dataframe(table.round({"this release": 1, "per-window releases": 1, "ratio": 2}), hide_index=True)
    if data is None or event or np.unique(rel.partition.level).size != 1:
        return
    if st.button("Build the per-window releases too", key="time_build_pw_btn",
                 help="what a publisher does today: one release a window at epsilon / T (takes a few seconds)"):
        win = rel.axis.index(data.seconds)
        user = None if spec[3] == "event" else data.user
        with st.spinner(f"Building {rel.windows:,} per-window releases ..."):
            pw = time_teaching.per_window_releases(data.xy, win, user, rel, m, seed=spec[9])
        st.session_state["time_per_window"] = (spec, tuple(rect), time_teaching.per_window_series(pw, rect))
    kept = st.session_state.get("time_per_window")
    if kept is not None and kept[0] == spec and kept[1] == tuple(rect):
        pw_series, s = kept[2], rel.series(rect)
        fig = go.Figure()
        fig.add_trace(go.Scatter(x=s["start"], y=pw_series["estimate"], name="per-window releases",
                                 line={"color": "#cd4071"}))
        fig.add_trace(go.Scatter(x=s["start"], y=s["estimate"], name="this release", line={"color": "#721f81"}))
        fig.update_layout(height=300, margin={"t": 20, "b": 20}, legend={"orientation": "h"})
        st.plotly_chart(fig, key="time_teach_series", width="stretch")
        ratio = float(np.median(pw_series["standard_error"]) / np.median(s["standard_error"]))
        st.caption(f"The rectangle's private count in each window from both: the per-window releases' noise standard "
                   f"error is {ratio:,.1f} times this release's (median over the windows).")
