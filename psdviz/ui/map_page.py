"""The map page: build a private decomposition, see it on a map, draw a query, compare with the truth.

Every number shown comes from an engine call (psdviz.build, Release.answer / answer_variance /
nodes / report, PointIndex); this module only arranges widgets. The map and the query panel live
in one ``st.fragment`` so drawing a rectangle reruns only that part; query bounds are kept in
session state because the map remounts whenever its content changes (depth, layers, release).
"""
from __future__ import annotations

import functools
import math
from dataclasses import replace

import numpy as np
import pandas as pd
import plotly.express as px
import streamlit as st
from streamlit.errors import StreamlitAPIException

import psdviz as pv
from psdviz.errors import PsdvizError
from psdviz.present import (
    cell_at,
    cell_details,
    deepest_fitting,
    frontier_sizes,
    kept_if_swapped,
    missing_words,
    noise_level,
    outside_warning,
    parameters_text,
    rows_read,
    swamped,
    unit_for,
    view_depth,
)

from . import (
    address,
    answer_box,
    budget_control,
    cache,
    controls,
    data_input,
    epsilon_panel,
    export,
    keys,
    mapview,
    share,
    words,
)
from .map_layers import MAX_SHAPES, MapInfo, legend_html, query_script, release_view
from .map_png import map_png
from .outlines import is_lon_lat
from .query_panel import at_rect_corner, clicked_point, compare, overlaps_domain, rect_from_drawings, rect_order_error
from .session_memo import remembered
from .state import forget

EXPORT_MAX_CELLS = 250_000
SHARED_DATA_KEY = keys.SHARED_DATA
MAP_KEY = keys.MAP


def render() -> None:
    st.subheader("psdviz: private maps, built, seen and queried")
    with st.sidebar:
        share.join()
        st.header("1. Data")
        data = data_input.choose_data()
        st.header("2. Method")
        chosen: dict = {}
        spec = controls.choose_build(beside_epsilon=lambda: chosen.update(budget=budget_control.chosen_budget()))
        budget = chosen.get("budget")
    if isinstance(data, data_input.Step):     # the upload still needs a file, its columns or its bounds
        address.write(address.view(data_input.asked_name(), False, spec, None, None, None))
        if data.bounds:
            data_input.bounds_step(data)
        elif data.problem:                    # said where the map would be, not only below the sidebar's fold
            st.error(f"**{data.title}:** {data.text}")
        else:
            st.info(f"**{words.file_text(data.title)}.** {data.text}")
        return
    if data is None:
        return
    st.session_state[SHARED_DATA_KEY] = data  # other pages (e.g. the Compare page) may offer it
    address.write(address.view(data.name, data.bundled, spec, address.domain_choice(data.bundled), data.domain,
                               st.session_state.get(keys.QUERY_RECT)))
    msg = controls.check_spec(spec)
    if msg:
        st.error(f"{msg}. Pick a value in range.")
        return
    fresh = spec.seed is None and spec.method not in pv.REFERENCES
    rid = cache.release_id(data, spec)
    unit = unit_for(data.max_points_per_user if data.user is not None else None)
    refused = fresh and budget_control.refusal(budget, rid, spec.epsilon, unit)
    if refused:
        st.error(f"Not built: {refused}")
        return
    try:
        release = cache.build_release(data, spec)
        if fresh:
            budget_control.record(budget, release, rid)
    except PsdvizError as exc:
        st.error(f"Cannot build {spec.method}: {words.file_text(exc)}")
        return
    row_warnings(data, release)      # the bad-rows rule's words, above the map
    if release.input_report["rows_used"] == 0:   # the engine released pure noise; tell the data owner
        d = data.domain
        st.error(f"None of the {rows_read(release.input_report):,} points lies inside the domain "
                 f"x [{d.xmin:g}, {d.xmax:g}], y [{d.ymin:g}, {d.ymax:g}]: a release now would be pure noise. "
                 "Check the bounds or the column order (lon, lat).")
        return
    swamp = swamped(release)
    if swamp:
        st.warning(swamp[0].upper() + swamp[1:] + ".")
    forget_other_datas_queries(data)
    remember_params(release)
    input_summary(data, release)
    map_and_query(release, data, rid)
    release_details(data, release)
    budget_view(release)
    export_view(release, rid)
    share.share_panel(spec.method, spec.seed is not None,
                      st.session_state.get("data_source", "").startswith("sample: "))


def forget_other_datas_queries(data: data_input.Dataset) -> None:
    """A query belongs to the data and domain it was asked of: new data or a new domain clears the
    rectangle, the clicked cell, the query history and the epsilon plan. A new method or epsilon on
    the same data keeps them: the same rectangle is answered by the new release, and the history
    (one data set) compares the releases. The drawing the map still holds stays marked as seen, so
    it is not taken up again."""
    owner = f"{data.fingerprint}|{data.domain}"
    if st.session_state.get(keys.QUERY_DATA) not in (None, owner):
        forget(keys.QUERY_RECT, keys.QUERY_TYPED, keys.CLICKED, keys.COMPARISONS, keys.EPSILON_PLAN)
    st.session_state[keys.QUERY_DATA] = owner


def remember_params(release: pv.Release) -> None:
    """Keep the parameters this release published (e.g. the grid size its formula chose) as the
    prefill of the method's parameter widgets. Never the exact number of rows: N is private, and
    declaring it public is the user's typed decision."""
    hints = dict(release.params)
    st.session_state.setdefault(controls.LAST_PARAMS_KEY, {})[release.method] = hints


def release_line(release: pv.Release, markdown: bool = True) -> str:
    """What the release is and what protects it, in one line (beside the map and on its PNG)."""
    label = "PRIVATE release" if release.private else "NOT PRIVATE reference"
    b, c = ("**", "`") if markdown else ("", "")
    return (f"{b}{label}{b}: {c}{release.method}{c}, epsilon = {release.epsilon:g} (privacy unit: "
            f"{release.privacy_unit}), randomness: {release.randomness_mode}; {int(release.tree.is_leaf.sum()):,} "
            f"cells, {release.tree.n_nodes:,} nodes, height {release.tree.height}.")


AUTO_VARIES = ("auto's facts are noisy, so on a small data set another build (new noise) may pick another method; "
               "a seed makes the pick repeatable.")


def auto_words(release: pv.Release) -> None:
    """What auto picked in one sentence a teacher can read out, and that the pick may vary (its facts are
    noisy); its noisy facts, their cost, the rule and the whole rule table are in :func:`auto_details`."""
    from psdviz.present import RULES
    rule = next((r for r in RULES if r.when == release.params.get("rule")), None)
    chosen = release.params.get("chosen", "?")
    st.markdown(f"**auto chose {chosen}.** " + (rule.plain if rule is not None else ""))
    st.caption(AUTO_VARIES)


def auto_details(release: pv.Release) -> None:
    """auto's noisy facts, their cost, the rule and its evidence, and the whole rule table, behind an expander
    (under the map: the first screen holds the map)."""
    from psdviz.present import RULES, auto_measured
    with st.expander("How auto chose"):
        st.caption(auto_measured(release.notes))      # the noisy facts, what they cost, the rule
        st.markdown(rule_table(RULES))
        st.caption("Rules are read top to bottom; the first that holds picks the method. The facts are noisy "
                   "(paid for in the ledger), never the exact data.")


@functools.cache
def rule_table(rules) -> str:
    """auto's rules as a Markdown table (the page's own words: no data frame, whose grid component the
    browser would load before the map on every first visit); public, the same for every session: made once."""
    rows = [f"| {words.file_text(r.when)} | {words.file_text(r.label)} | {words.file_text(r.plain)} |" for r in rules]
    return "\n".join(["| when | method | in words |", "|---|---|---|", *rows])


def input_summary(data: data_input.Dataset, release: pv.Release) -> None:
    """Above the map: what the release is, and what auto picked."""
    st.markdown(release_line(release))
    if release.method == "auto":
        auto_words(release)


def row_warnings(data: data_input.Dataset, release: pv.Release) -> None:
    """The bad-rows rule's warnings for the data owner, above the map where they are seen without opening
    anything (exact counts: the owner's view, never the release's): rows missing a coordinate, and many rows
    outside the domain with the likely cause (the columns the other way round)."""
    rep = release.input_report
    read = rows_read(rep)
    missing = missing_words(read, rep["rows_nonfinite_dropped"])
    if missing:
        st.warning(missing[0].upper() + missing[1:] + ".")
    outside = rep["rows_outside_domain"]
    if outside_warning(read, outside, data.domain, None) is None:
        return
    swapped = None if data.bundled else remembered(
        keys.SWAPPED, (data.fingerprint, str(data.domain)), lambda: kept_if_swapped(data.xy, data.domain), keep=1)
    text = str(outside_warning(read, outside, data.domain, swapped,
                               swap="the longitude and latitude columns the other way round",
                               check="check the public bounds (the sidebar's Domain) and the columns"))
    if "likely cause" in text:
        text += " (swap the two column pickers in the sidebar)"
    st.warning(text[0].upper() + text[1:] + ".")


def release_details(data: data_input.Dataset, release: pv.Release) -> None:
    """Under the map: how auto chose, the data read and used, the parameters and the public grid."""
    rep = release.input_report
    if release.method == "auto":
        auto_details(release)
    details = st.expander("Data, parameters and public grid of this release")
    details.caption(f"Data {words.file_text(data.name)}: {rows_read(rep):,} rows read; "
                    + (f"{rep['rows_dropped_by_user_bound']:,} beyond {data.max_points_per_user} per user dropped at "
                       "random (user-level privacy); " if data.user is not None else "")
                    + f"{rep['rows_nonfinite_dropped']:,} with a missing coordinate dropped; "
                    f"{rep['rows_outside_domain']:,} outside the domain ({rep['outside_rows']}); {rep['rows_used']:,} "
                    f"used. Domain ({data.domain_source}): x [{data.domain.xmin:g}, {data.domain.xmax:g}], "
                    f"y [{data.domain.ymin:g}, {data.domain.ymax:g}].")
    details.caption("Parameters used (defaults from the paper, formulas evaluated by the engine): "
               + parameters_text(release.params))
    sx, sy = release.grid.step
    details.caption(f"Public grid: resolution {release.grid.bits} ({release.grid.size:,} positions per axis, "
                    f"step {words.short(sx)} x {words.short(sy)}); every published coordinate lies on it."
                    + "".join(f" {n}." for n in release.notes if "capped" in n))


def view_controls(release: pv.Release, rid: str) -> tuple[int, bool, bool]:
    tree = release.tree
    sizes = frontier_sizes(tree)
    default = view_depth(tree, MAX_SHAPES)
    c1, c2 = st.columns([4, 3])   # the toggles stacked: each whole label fits its column down to 1024 px
    if tree.height > 0:
        depth = c1.slider("View the partition down to level", 0, tree.height, default, key=f"depth|{rid}",
                          help=f"Cells per level: {', '.join(f'{d}: {s:,}' for d, s in enumerate(sizes))}. "
                               f"Views above {MAX_SHAPES:,} cells are drawn as a raster (click still works).")
    else:
        depth = 0
    show = c2.toggle("True points (NOT private)", key="show_points",
                     help="For teaching only: the raw data, which a real release would never show.")
    if show:
        c2.warning("The blue dots are the raw data: not private.")
    outlines = c2.toggle("Country outlines", value=True, key="show_outlines",
                         help="Thin grey borders (Natural Earth 1:110m, public) for orientation; drawn for "
                              "longitude/latitude domains only, never for other coordinates.")
    st.session_state.setdefault(keys.BASEMAP, False)
    c2.toggle("Basemap (OpenStreetMap)", key="basemap",
              help="Map tiles from openstreetmap.org under the cells (lon/lat domains only; off by default: the app "
                   "works offline). When they cannot be loaded the layer removes itself, the map says so once, and "
                   "the outlines remain.")
    return depth, show, outlines


VIEWS_KEPT = 4   # map views a session keeps (its releases at the depths and options it looked at last)


def map_view(release: pv.Release, data: data_input.Dataset, depth: int, show_points: bool,
             outlines: bool) -> tuple[mapview.MapView, MapInfo]:
    """This session's map of its release at this depth: its layers made once and kept with the session (the
    release is its own; a rerun, a drawn rectangle or a return to the page shows the same view again), in
    the domain's public frame made once per process (:func:`psdviz.ui.map_layers.release_view`)."""
    basemap = bool(st.session_state.get(keys.BASEMAP, False))
    key = (data.fingerprint, str(data.domain), id(release), depth, show_points, outlines, basemap)
    pts = (lambda: cache.truth_index(data).xy) if show_points else (lambda: None)
    return remembered(keys.MAP_VIEWS, key, lambda: release_view(release, depth, pts(), outlines, basemap),
                      owner=release, keep=VIEWS_KEPT)


@st.fragment
def map_and_query(release: pv.Release, data: data_input.Dataset, rid: str) -> None:
    """The map with the answer beside it (the first screen), the view's controls right under them (a change
    reruns this fragment alone), then the legend, the typed query and the epsilon planner. A clicked cell is
    answered beside the map too, above the query."""
    top = st.container()                      # drawn first, filled once the view's controls below are read
    depth, show_points, outlines = view_controls(release, rid)
    view, info = map_view(release, data, depth, show_points, outlines)
    _take_drawing(mapview.latest_value(MAP_KEY))
    # stays visible when the map remounts; a typed one clears the drawn rectangles
    rect = st.session_state.get(keys.QUERY_RECT)
    kept = None if rect is None else (tuple(float(v) for v in rect), bool(st.session_state.get(keys.QUERY_TYPED)))
    overlay = None if kept is None else remembered(keys.OVERLAYS, kept, lambda: query_script(*kept))
    # the map is the page's main element; the answer to the drawn rectangle sits beside it, in view
    on_map, beside = top.columns([5, 2])
    with on_map:
        out = mapview.show_map(replace(view, query=kept, overlay=overlay), key=MAP_KEY,
                               height=map_height(release.domain)) or {}
    drawn = _take_drawing(out)
    address.write_rect(st.session_state.get(keys.QUERY_RECT))     # the rectangle asked is part of the view
    _take_click(out, drawn)
    with beside:     # a clicked cell is answered where the click was made: beside the map, above the query
        clicked = st.session_state.get(keys.CLICKED) is not None
        if clicked:
            cell_panel(release, info.clickable)
        query_answer(release, data)
        if not clicked:
            st.caption("Click a cell to see its level, epsilon and noise.")
    st.markdown(legend_html(info.colours), unsafe_allow_html=True)
    st.download_button("Map (PNG, with its legend and privacy line)",
                       lambda: map_png(release, info.nodes, info.colours, release_line(release, markdown=False)),
                       file_name="psdviz_map.png", mime="image/png", key="dl_map_png", on_click="ignore")
    if info.raster:
        st.caption(f"{info.nodes.size:,} cells: drawn as a raster; click a cell for its details.")
    noise_caption(release, info.nodes)
    if outlines and not info.outlines:
        st.caption(outline_note(release.domain))
    left, _ = st.columns(2)
    with left:
        typed_query(data)
        epsilon_panel.render(release.domain, st.session_state.get(keys.QUERY_RECT), release.method, release.params,
                             release.grid.bits)


def _take_click(value: dict, drawn: bool) -> None:
    """A new click on the map in its returned ``value`` becomes the clicked cell; the end of a drag (a drawn
    rectangle, reported as a click on the cell under the mouse) does not."""
    click = clicked_point(value.get("last_object_clicked"))
    fresh = click is not None and click != st.session_state.get(keys.CLICK_SEEN)   # the map repeats its last click
    if fresh and not drawn and not at_rect_corner(click, st.session_state.get(keys.QUERY_RECT)):
        st.session_state[keys.CLICKED] = click
    if click is not None:
        st.session_state[keys.CLICK_SEEN] = click


MAP_WIDTH_PX = 720   # about the map's column (5 / 7 of the main column) on a 1400 px window with the sidebar open


def map_height(d: pv.Domain) -> int:
    """Pixel height that shows the domain at the map's width without grey bands: its Web Mercator
    aspect for lon/lat domains (about square for the world), its plain aspect otherwise."""
    if is_lon_lat(d.xmin, d.ymin, d.xmax, d.ymax):
        merc = lambda lat: math.log(math.tan(math.pi / 4 + math.radians(max(-85.0, min(85.0, lat))) / 2))
        ratio = (merc(d.ymax) - merc(d.ymin)) / math.radians(d.width)
    else:
        ratio = d.height / d.width
    return int(min(820, max(420, MAP_WIDTH_PX * ratio + 80)))


def noise_caption(release: pv.Release, nodes: np.ndarray) -> None:
    """How much of this view is noise: the cells' noise sd and the share of estimates below 2 sd."""
    level = noise_level(release.tree, nodes)
    if level is None:
        return
    sd, share = level
    st.caption(f"Noise in this view: a cell's noisy count has standard deviation about {sd:,.1f}; "
               f"{share:.0%} of the cells shown have an estimate below twice their own noise: they cannot be told "
               "apart from empty cells, and are drawn in the palest colour unless they cannot be told apart from "
               "the lowest colour class either (then they take that class). A shallower level or a larger "
               "epsilon leaves less noise per cell.")


def outline_note(d: pv.Domain) -> str:
    """Why the map has no country outlines although they are switched on."""
    if not is_lon_lat(d.xmin, d.ymin, d.xmax, d.ymax):
        return "No country outlines: the domain is not longitude/latitude."
    return "No country outlines: the outline file is missing (run `bash .ci/fetch_assets`)."


def _take_drawing(value: dict) -> bool:
    """A newly drawn rectangle in the map's returned ``value`` becomes the query and, one thing at a time,
    closes the clicked cell's panel and ends a typed query; True when there was one."""
    if not keep_new_drawing(value.get("all_drawings")):
        return False
    forget(keys.CLICKED, keys.QUERY_TYPED)
    return True


def keep_new_drawing(drawings, key: str = "query_rect") -> bool:
    """Make a newly drawn rectangle the kept query (``st.session_state[key]``); True when there was one. A
    drawing already seen is ignored, so a typed query is not overwritten by the same old drawing on the next
    rerun."""
    rect = rect_from_drawings(drawings)
    if rect is not None and rect != st.session_state.get(f"seen|{key}"):
        st.session_state[f"seen|{key}"] = st.session_state[key] = rect
        return True
    return False


def typed_query(data: data_input.Dataset) -> None:
    """A rectangle typed instead of drawn (answered beside the map like a drawn one)."""
    with st.expander("Type a query rectangle instead of drawing"):
        c1, c2 = st.columns(2)
        d = data.domain
        xmin = c1.number_input("query x min", value=d.xmin, key="qx0")
        xmax = c2.number_input("query x max", value=d.xmin + d.width / 4, key="qx1")
        ymin = c1.number_input("query y min", value=d.ymin, key="qy0")
        ymax = c2.number_input("query y max", value=d.ymin + d.height / 4, key="qy1")
        typed = [xmin, ymin, xmax, ymax]
        if st.session_state.get(keys.QUERY_TYPED) and st.session_state.get(keys.QUERY_RECT) == typed:
            st.info("Answered: the private answer, its 95 % interval and the true count are in the Query panel "
                    "beside the map, at the top of the page.")
        if st.button("Answer this rectangle", key="qtyped"):
            st.session_state[keys.QUERY_RECT] = typed
            st.session_state[keys.QUERY_TYPED] = True
            try:
                st.rerun(scope="fragment")       # the map's fragment alone, as a drawing would
            except StreamlitAPIException:        # the page runs whole (not as a fragment): rerun it all
                st.rerun()


def query_answer(release: pv.Release, data: data_input.Dataset) -> None:
    """The answer to the kept rectangle: private estimate, standard error and 95 % interval, then the
    true count and the errors for the data owner (labelled not private)."""
    st.subheader("Query")
    rect = st.session_state.get(keys.QUERY_RECT)
    if rect is None:
        st.info("Draw a rectangle on the map (square tool at the top left) to compare the private answer "
                "with the truth.")
        return
    order = rect_order_error(rect)
    if order:
        st.error(order[0].upper() + order[1:] + ".")
        return
    if not overlaps_domain(release.domain, rect):
        st.warning("This rectangle lies outside the domain: the release says nothing about it (its answer is not "
                   "0 with no error). Draw inside the cells.")
        return
    try:      # this session's answer for its release and rectangle, made once (a rerun shows it again)
        row = remembered(keys.ANSWERS, (data.fingerprint, str(data.domain), id(release), tuple(rect)),
                         lambda: compare(release, cache.truth_index(data), rect), owner=release)
    except PsdvizError as exc:
        st.error(f"Bad query rectangle: {words.file_text(exc)}")
        return
    hist = st.session_state.setdefault(keys.COMPARISONS, [])
    sig = tuple(rect) + (row["method"], row["epsilon"], row["private_answer"])
    if not hist or hist[-1].get("_sig") != sig:
        hist.append({**row, "_sig": sig})
    est, se = row["private_answer"], row["standard_error"]
    st.caption(f"Query #{len(hist)} on {words.file_text(data.name)}: x [{words.short(rect[0])}, "
               f"{words.short(rect[2])}], y [{words.short(rect[1])}, {words.short(rect[3])}]; `{row['method']}`, "
               f"epsilon {row['epsilon']:g}")
    answer_box.show(est, se, row["uniformity_error"], row["low_95"], row["high_95"],
                    method=release.params.get("chosen", release.method))
    st.metric("True answer (not private)", f"{row['true_answer_NOT_PRIVATE']:,}")
    # one above the other: side by side in the narrow answer column, a 1024 px window cut both labels
    st.metric("Absolute error", answer_box.people(row["abs_error"]),
              help="|private - true| (it reads the true answer: not private)")
    st.metric("Relative error", f"{100 * row['rel_error']:.1f} %",
              help="|private - true| / max(true, 0.1% of the points)")


def cell_panel(release: pv.Release, nodes: np.ndarray) -> None:
    """The clicked cell: its level, epsilon there and along its path, noise, noisy and estimated counts."""
    click = st.session_state.get(keys.CLICKED)
    if click is None:
        return
    node = cell_at(release.tree, nodes, *click)
    if node is None:
        st.caption("The click was outside the domain.")
        return
    c = cell_details(release, node)
    st.subheader("Clicked cell")
    st.markdown(
        f"level **{c['level']}**; its count's epsilon **{c['count_epsilon']:.3g}** (its split's "
        f"{c['split_epsilon']:.3g}); {c['path_epsilon']:.3g} spent along its path from the root, with the counts "
        "and splits of the cells above it  \n"
        f"noise: standard deviation **{_count(c['noise_sd'])}** (scale 1/epsilon = {_count(c['noise_scale'])})  \n"
        f"noisy count **{_count(c['noisy'])}**, estimated count **{answer_box.people(c['estimate'])}** "
        f"(95 % interval {answer_box.interval_text(c['low_95'], c['high_95'])})  \n"
        f"x [{c['rect'][0]:.3f}, {c['rect'][2]:.3f}], y [{c['rect'][1]:.3f}, {c['rect'][3]:.3f}]")
    if said := answer_box.cell_below_zero(c["estimate"], c["noisy"]):
        st.caption(said)


def _count(v) -> str:
    """A released count or its noise rounded for people ("not measured" where none was released)."""
    return "not measured" if v is None else answer_box.people(float(v))


def budget_view(release: pv.Release) -> None:
    """Ledger total, and (on demand) a plotly chart of epsilon per level and the ledger table.

    The chart and table sit behind a toggle: drawing plotly and the data grid in the same pass as
    the map delays the map's first paint by several seconds in a loaded headless browser.
    """
    st.subheader("Where the privacy budget went")
    recs = pd.DataFrame(release.ledger.records())
    c1, c2 = st.columns([1, 3])
    c1.metric("Epsilon spent", f"{release.ledger.total():.4g}",
              help="On the worst path: the sum of sequential steps.")
    c2.caption(f"chosen epsilon: {release.epsilon:g}. Nodes within one level cover disjoint regions, so a level "
               "costs its epsilon once (parallel composition); levels add up (sequential composition).")
    if recs.empty:
        st.info("No privacy budget spent (a non-private reference).")
        return
    if not st.toggle("Show the budget chart and the ledger table", key="show_budget"):
        return
    recs = words.ledger_frame(release.ledger.records())
    fig = px.bar(recs, x="level", y="epsilon", color="what", barmode="stack",
                 labels={"level": "tree level", "epsilon": "epsilon"}, height=300)
    fig.update_xaxes(type="category")
    st.plotly_chart(fig, width="stretch")
    st.dataframe(recs, hide_index=True, width="stretch")


def export_view(release: pv.Release, rid: str) -> None:
    st.subheader("Export")
    c1, c2 = st.columns(2)          # two: three columns cut the labels at 1024 px
    c2.download_button("Privacy report (JSON)", lambda: export.report_bytes(release, {"app": "psdviz map page"}),
                       file_name="psdviz_report.json", mime="application/json",
                       key="dl_report", on_click="ignore")
    c2.download_button("Privacy statement (Markdown)", lambda: str(release.report(format="markdown")),
                       file_name="psdviz_statement.md", mime="text/markdown", key="dl_statement", on_click="ignore",
                       help="To hand on with the release: what was released, the privacy unit and epsilon in words, "
                            "the ledger, the expected error at typical query sizes and what is not private.")
    hist = st.session_state.setdefault(keys.COMPARISONS, [])  # filled by the query fragment; read at click time
    c2.download_button("Query comparisons (CSV)", lambda: export.comparisons_csv(hist), file_name="psdviz_queries.csv",
                       mime="text/csv", key="dl_csv", on_click="ignore")
    c2.download_button("Owner's audit (NOT private)",
                       lambda: export.audit_bytes(release), file_name="psdviz_audit_NOT_PRIVATE.json",
                       mime="application/json", key="dl_audit",
                       on_click="ignore",
                       help="JSON with the exact input counts, for your records only: never publish it with the "
                            "release.")
    if not release.private:
        c1.info("Non-private references cannot be exported as a release.")
        return
    with c1:
        allow = export.allow_seeded_export(release.randomness, "allow_seeded_export")
    if allow is None:
        return
    n_leaves = int(release.tree.is_leaf.sum())
    depth = None if n_leaves <= EXPORT_MAX_CELLS else deepest_fitting(release.tree, EXPORT_MAX_CELLS)
    what = "all published cells" if depth is None else f"the cells down to level {depth}"
    c1.download_button("Release file (GeoParquet)",
                       lambda: export.release_file_bytes(release, allow), file_name="psdviz_release.parquet",
                       mime="application/vnd.apache.parquet", key="dl_release", on_click="ignore",
                       help="Opens in 'Open a release'. All cells with estimates, noise variances and the tree links, "
                            "plus the method, domain, resolution, epsilon, ledger and privacy unit: a consumer can "
                            "map it and answer queries with error bars. Never holds the audit or the seed.")
    c1.download_button("Cells only (GeoJSON)", lambda: export.geojson_bytes(release, depth, allow),
                       file_name="psdviz_release.geojson", mime="application/geo+json", key="dl_geojson",
                       on_click="ignore", help=f"The map's cells with their estimates and intervals: {what}.")
    c2.download_button("Synthetic points (CSV)",
                       lambda: export.synthetic_csv(release, allow), file_name="psdviz_synthetic_points.csv",
                       mime="text/csv", key="dl_synthetic", on_click="ignore",
                       help="Drawn from the private release; no real point. As many points as the release's total, "
                            "each in a published cell chosen in proportion to its estimate and uniform inside it: "
                            "post-processing of the release, no epsilon spent, no real point "
                            "(Release.sample_points, psdviz sample).")
