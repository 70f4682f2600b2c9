"""Open a release: what a data consumer sees, from a release file alone.

No raw data is involved: the page loads a file written by ``release.save`` (or the Map page's
"Release file" download), draws its cells, and answers clicked cells and drawn rectangles with the
release's own answers and their 95 % intervals (``Release.answer_error``: the count noise from the released
noise variances and a model of the cells a rectangle's edges cut, the same interval as every other page). The
truth is never shown, because a consumer does not have it.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

import psdviz as pv
from psdviz.errors import PsdvizError
from psdviz.present import parameters_text, view_depth

from . import answer_box, keys, mapview, regions_page, words
from .map_layers import MAX_SHAPES, legend_html, make_map, query_layer
from .map_page import cell_panel, keep_new_drawing, noise_caption
from .query_panel import at_rect_corner, clicked_point, overlaps_domain, private_answer, rect_order_error
from .state import forget
from .uploads import open_upload

MAP_KEY = keys.RELEASE_MAP
RECT_KEY = keys.RELEASE_QUERY
HISTORY_KEY = keys.RELEASE_QUERIES
REGION_KEYS = regions_page.ViewKeys("rel_rg", "rel_rg_map", "rel_rg_last_click", "rel_rg_region", "rel_rg_drill_next")
SPATIAL_NOISE = regions_page.ROUTES[regions_page.PLANNED].noise
REGION_NOISE = regions_page.ROUTES[regions_page.REGION_RELEASE].noise


@st.cache_resource(max_entries=4, show_spinner="Answering every region from the release...")
def _region_answers(digest: str, layer_name: str, _release, _layer) -> pd.DataFrame:
    return _release.answer_regions(_layer)


@st.cache_resource(max_entries=4, show_spinner="Opening the release...")
def _load(digest: str, _data: bytes, filename: str):
    return open_upload(_data, filename, pv.load_release, "release")


def render() -> None:
    st.title("Open a release")
    with st.sidebar:
        st.header("Release file")
        up = st.file_uploader("A psdviz release file (.parquet from the Map page or release.save; .json for "
                              "region, count-of-counts and sparse releases)", type=["parquet", "json"],
                              key="release_upload")
    if up is None:
        st.info("Upload a release file to see it as a data consumer does: its cells on the map, and any "
                "rectangle you draw answered with its error bar. No raw data is needed or shown.")
        return
    data = up.getvalue()
    digest = hashlib.sha1(data).hexdigest()
    if st.session_state.get(keys.RELEASE_DIGEST) != digest:      # a new file: queries of the old one go
        st.session_state[keys.RELEASE_DIGEST] = digest
        forget(RECT_KEY, HISTORY_KEY)
    try:
        release = _load(digest, data, up.name if Path(up.name).suffix else f"{up.name}.parquet")
    except PsdvizError as exc:
        st.error(f"Cannot open {words.file_text(up.name)}: {words.file_text(exc)}")   # the file's words, as text
        return
    if not isinstance(release, pv.Release):
        other_release(release, digest)
        return
    summary(release)
    depth = depth_control(release)
    view(release, depth)
    region_counts(release, digest)
    ledger_view(release)


def region_counts(release: pv.Release, digest: str) -> None:
    """The analyst's route: the release's answers for every region of a public layer (bundled or uploaded), on a
    choropleth with each region's whole interval, a clicked region's count, and CSV / GeoJSON exports."""
    st.subheader("Counts for regions")
    if not st.toggle("Answer every region of a layer from this release", key="rel_rg_on",
                     help="Each region's answer is the area share of every released cell it covers, with its 95 % "
                          "interval (the noise and a model of the cells its border cuts). No raw data is needed."):
        return
    picked = regions_page.layer_controls(REGION_KEYS)
    if picked is None:
        return
    name, layer = picked
    try:
        counts = _region_answers(digest, name, release, layer)
    except PsdvizError as exc:
        st.error(f"Cannot answer the regions of {name}: {words.file_text(exc)}")
        return
    regions_page.counts_view(release, counts, layer, REGION_KEYS, SPATIAL_NOISE, None, None)


def other_release(release, digest: str) -> None:
    """A region, count-of-counts or sparse release: what it is, its privacy, its table and ledger; a region
    release on its choropleth when its layer is one of the bundled ones."""
    rep = release.report()
    if release.randomness.seeded:
        st.error(release.randomness.warning()["warning"] + ". This file is a teaching artefact, not a release.")
    fx = words.file_text        # the file's own words: shown as written, never as markdown
    st.markdown(f"**{fx(rep.get('method', type(release).__name__))}**, epsilon = {release.epsilon:g}, privacy "
                f"unit: **{fx(release.privacy_unit)}**; randomness: {fx(release.randomness.mode)}.")
    for note in rep.get("notes", []):
        st.caption(fx(note))
    if hasattr(release, "counts"):
        st.caption("Estimates are non-negative whole numbers; a region equals the sum of the regions inside it. "
                   "The 95 % interval is the estimate plus or minus 2.12 standard errors and half a count, never "
                   "below 0; a region given a share of its pooled parent's count has 0 to that parent's upper end "
                   "(the columns low_95 and high_95).")
        layer = _bundled_layer_of(release)
        if layer is not None:        # its outlines are known: the choropleth, a clicked region, the exports
            regions_page.counts_view(release, release.counts(), layer, REGION_KEYS, REGION_NOISE, None, None)
            return
        st.dataframe(release.counts().round({"standard_error": 1}), hide_index=True)
    ledger_view(release)


def summary(release: pv.Release) -> None:
    d = release.domain
    if release.randomness.seeded:
        st.error(release.randomness.warning()["warning"] + ". This file is a teaching artefact, not a release.")
    fx = words.file_text        # the file's own words: shown as written, never as markdown
    st.markdown(f"**{fx(release.method)}**, epsilon = {release.epsilon:g}, privacy unit: "
                f"**{fx(release.privacy_unit)}**; {int(release.tree.is_leaf.sum()):,} cells; randomness: "
                f"{fx(release.randomness_mode)}.")
    st.caption(f"Domain x [{d.xmin:g}, {d.xmax:g}], y [{d.ymin:g}, {d.ymax:g}]; resolution "
               f"{release.grid.bits} ({release.grid.size:,} positions per axis). Parameters: "
               + fx(parameters_text(release.params)))
    for note in release.notes:
        st.caption(fx(note))


def depth_control(release: pv.Release) -> int:
    tree = release.tree
    if tree.height == 0:
        return 0
    return st.slider("View the partition down to level", 0, tree.height, view_depth(tree, MAX_SHAPES),
                     key="release_depth")


@st.fragment
def view(release: pv.Release, depth: int) -> None:
    fmap, info = make_map(release, depth, None, True)
    keep_new_drawing(mapview.latest_value(MAP_KEY).get("all_drawings"), RECT_KEY)
    left, right = st.columns([3, 2])
    with left:
        out = mapview.show_map(fmap, key=MAP_KEY, overlay=query_layer(st.session_state.get(RECT_KEY))) or {}
        st.markdown(legend_html(info.colours), unsafe_allow_html=True)
        noise_caption(release, info.nodes)
    keep_new_drawing(out.get("all_drawings"), RECT_KEY)
    click = clicked_point(out.get("last_object_clicked"))
    if click is not None and not at_rect_corner(click, st.session_state.get(RECT_KEY)):
        st.session_state[keys.CLICKED] = click
    with right:
        query_answer(release)
        cell_panel(release, info.clickable)


def answer_row(release: pv.Release, rect: list[float]) -> dict:
    """The release's answer for a rectangle, its 95 % interval of the whole error (noise and the cells its
    edges cut, ``Release.answer_interval``), and its parts: the noise's standard error and the modelled
    error of the cut cells (``Release.answer_uniformity_error``)."""
    est, se, cut, low, high = private_answer(release, rect)
    return {"xmin": rect[0], "ymin": rect[1], "xmax": rect[2], "ymax": rect[3], "answer": est,
            "low_95": float(low), "high_95": float(high), "standard_error": se, "uniformity_error": cut}


def query_answer(release: pv.Release) -> None:
    st.subheader("Query")
    rect = st.session_state.get(RECT_KEY)
    if rect is None:
        st.info("Draw a rectangle on the map (square tool at the top left): the release answers it.")
        return
    order = rect_order_error(rect)
    if order:
        st.error(order[0].upper() + order[1:] + ".")
        return
    if not overlaps_domain(release.domain, rect):
        st.warning("This rectangle lies outside the release's domain: the release says nothing about it (its "
                   "answer is not 0 with no error). Draw inside the release's cells.")
        return
    try:
        row = answer_row(release, rect)
    except PsdvizError as exc:
        st.error(f"Bad query rectangle: {words.file_text(exc)}")
        return
    hist = st.session_state.setdefault(HISTORY_KEY, [])
    if not hist or hist[-1] != row:
        hist.append(row)
    st.caption(f"x [{rect[0]:.4g}, {rect[2]:.4g}], y [{rect[1]:.4g}, {rect[3]:.4g}]")
    answer_box.show(row["answer"], row["standard_error"], row["uniformity_error"], row["low_95"], row["high_95"],
                    label="Estimated count", method=release.params.get("chosen", release.method))
    history_chart(hist)
    st.caption("Every rectangle answered so far; bars: 95 % intervals with the cut cells' model.")


def history_chart(hist: list[dict]) -> None:
    """Every query answered so far, with its 95 % error bar."""
    df = pd.DataFrame(hist)
    fig = go.Figure(go.Scatter(x=np.arange(1, len(df) + 1), y=df["answer"], mode="markers",
                               error_y={"type": "data", "symmetric": False, "array": df["high_95"] - df["answer"],
                                        "arrayminus": df["answer"] - df["low_95"]}))
    fig.update_layout(height=220, margin={"l": 10, "r": 10, "t": 10, "b": 10}, xaxis_title="query",
                      yaxis_title="estimated count",
                      xaxis={"tickmode": "linear", "tick0": 1, "dtick": 1, "range": [0.5, len(df) + 0.5]})
    st.plotly_chart(fig, width="stretch", key="release_history")


def ledger_view(release: pv.Release) -> None:
    st.subheader("Privacy ledger")
    st.caption(f"Spent {release.ledger.total():.4g} of epsilon {release.epsilon:g} on the worst path "
               f"(privacy unit: {release.privacy_unit}).")
    st.dataframe(words.ledger_frame(release.ledger.records()), hide_index=True, width="stretch")


def _bundled_layer_of(release):
    """The bundled layer whose regions (ids, levels and parents) are exactly the region release's, or None (a
    release of an uploaded layer is shown as its table: its outlines are not in the file)."""
    table = release.table
    for name in regions_page.LAYERS:
        layer = regions_page.bundled(name)
        mine = layer.table()
        if len(mine) == len(table) and (mine["id"].astype(str).to_numpy() == table["id"].astype(str).to_numpy()).all():
            return layer
    return None
