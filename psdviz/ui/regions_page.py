"""Regions page: private counts for places on a choropleth that does not turn noise into structure;
click a region for its value, standard error, 95 % interval and children. The counts come from a region
release (``pv.build_regions``, every region measured) or from a spatial release whose budget and depth
are planned for the layer (``pv.build(..., "quadtree", workload=layer)``), which answers the regions by
area shares of its cells and any other shape as well."""
from __future__ import annotations

import hashlib
import warnings
from typing import NamedTuple

import numpy as np
import pandas as pd
import streamlit as st

import psdviz as pv
from psdviz import regions as rg
from psdviz.errors import PsdvizError
from psdviz.present import labelled, layer_digest, sample_points, whole_interval
from psdviz.regions import SOURCES, true_counts

from . import answer_box, data_input, export, keys, mapview, words
from . import regions_view as view
from .cache import ProgressBar, owned
from .controls import choose_randomness
from .state import forget
from .uploads import open_upload

LAYERS = {"US states > counties": rg.us_counties, "US states": rg.us_states, "World countries": rg.world_countries}
UPLOAD = "Upload a layer"
REGION_RELEASE, PLANNED = "Region release", "Spatial release planned for these regions"


class ViewKeys(NamedTuple):
    """The session-state keys of one page's region view (the Regions page, or Open a release's counts)."""
    prefix: str          # widget keys: f"{prefix}_layer", f"{prefix}_level", ...
    map: str
    last_click: str
    region: str
    drill: str

    def w(self, name: str) -> str:
        return f"{self.prefix}_{name}"


REGIONS_KEYS = ViewKeys("rg", keys.REGIONS_MAP, keys.REGIONS_LAST_CLICK, keys.REGION, keys.REGIONS_DRILL)


class Route(NamedTuple):
    """How the page speaks of the release the counts come from."""
    what: str            # the release, in words
    caption: str         # what the counts are
    epsilon_help: str    # how epsilon is spent
    noise: str           # where the standard error comes from (and what it leaves out)
    export_name: str     # the release file's download name


ROUTES = {
    REGION_RELEASE: Route(
        "region release",
        "Private counts for places: every region of a public layer, consistent from the top level down "
        "(non-negative whole numbers; a region equals the sum of the regions inside it).",
        "Split evenly across the layer's levels.",
        "from the standard error of the least-squares step, before the counts are made non-negative whole numbers",
        "regions_release.json"),
    PLANNED: Route(
        "spatial release",
        "Private counts for places from a spatial release: a quadtree whose budget and depth were planned for "
        "this layer's regions (the layer is public input, recorded in the release). Each region's answer is the "
        "area share of every released cell it covers, so counts are not whole numbers and can be below zero; the "
        "same release answers rectangles and other layers too.",
        "Split over the quadtree's levels by a plan for these regions.",
        "from the exact variance of the released cells' noise; the error of assuming points spread evenly "
        "inside the cells the region's border cuts is modelled below",
        "spatial_release.json")}
ROUTE_HELP = ("Region release: every region of every level measured and made consistent (whole numbers, a region "
              "equals the sum of the regions inside it). Spatial release: a quadtree whose budget and depth are "
              "planned for this layer's regions; a region's answer is the area share of each released cell it "
              "covers, and the same release answers rectangles or any other layer.")


@st.cache_resource(max_entries=4, show_spinner="Reading the region layer...")
def bundled(name: str) -> rg.Regions:
    return LAYERS[name]()


@st.cache_resource(max_entries=4, show_spinner="Reading the region layer...")
def _uploaded(digest: str, _data: bytes, filename: str, id_col: str, parent: str | None, name: str | None,
              layer: str | None = None) -> tuple[rg.Regions, tuple[str, ...]]:
    """The uploaded layer as Regions, and the repairs made on reading it (features sharing an id merged, shapes
    made valid), in words, for the page to show (kept with the layer: a cached read says them again)."""
    def read(path):
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always", rg.RegionRepairWarning)
            regions = rg.Regions.from_file(path, id=id_col, parent=parent, name=name, layer=layer)
        return regions, tuple(str(w.message) for w in said if issubclass(w.category, rg.RegionRepairWarning))
    return open_upload(_data, filename, read, "layer")


@st.cache_resource(max_entries=4, show_spinner="Reading the region layer...")
def _columns(digest: str, _data: bytes, filename: str, layer: str | None) -> tuple[list[str], rg.ColumnGuess | None]:
    """The layer's attribute columns and the id and name columns a person would take
    (:func:`psdviz.regions.guess_columns`, the command line's and Python's guess too); None when no column can
    be an id (the user picks one)."""
    frame = open_upload(_data, filename, lambda path: rg.read_layer(path, layer), "layer")
    cols = [str(c) for c in frame.columns if c != frame.geometry.name]
    try:
        return cols, rg.guess_columns(frame)
    except PsdvizError:
        return cols, None


PLANNED_STAGES = ("planning the quadtree for the regions and measuring it", "answering every region")


def _build(xy: np.ndarray, layer: rg.Regions, epsilon: float, seed: int | None, pooling: str, bar: ProgressBar):
    bar.stage(0)
    rel = pv.build_regions(xy, layer, epsilon=epsilon, seed=seed, pooling=pooling)
    return rel, rel.counts()


def _build_planned(xy: np.ndarray, layer: rg.Regions, epsilon: float, seed: int | None, bar: ProgressBar):
    bar.stage(0)
    rel = pv.build(xy, pv.Domain(*layer.bounds()), "quadtree", epsilon, seed=seed, workload=layer,
                   outside="drop", nonfinite="drop", progress=bar)
    bar.stage(1)
    return rel, rel.answer_regions(layer)


@st.cache_resource(max_entries=4, show_spinner=False)
def _truth(key: str, _xy: np.ndarray, _layer: rg.Regions) -> np.ndarray:
    from psdviz import prepare_points
    return true_counts(prepare_points(_xy, pv.Domain(*_layer.bounds()), outside="drop", nonfinite="drop"), _layer)[0]


def layer_controls(k: ViewKeys = REGIONS_KEYS, say=None) -> tuple[str, rg.Regions] | None:
    """A bundled layer or an uploaded one (with its object, id, parent and name columns, the id and name
    guessed): (its name, the layer), or None while a file is awaited or when the file cannot be used (said in
    words with ``st.error``). The repairs made on reading an upload (ids that several features share, merged)
    are warnings in ``say`` (a container of the main area; default: where the controls are)."""
    try:
        return _layer_controls(k, say)
    except PsdvizError as exc:
        st.error(f"Cannot use this layer: {words.file_text(exc)}")
        return None


def layer_file(k: ViewKeys):
    """The uploader of a region layer file (its value: the uploaded file, or None)."""
    return st.file_uploader("A region layer (GeoJSON, GeoPackage, zipped Shapefile, TopoJSON)",
                            type=["geojson", "json", "gpkg", "zip", "topojson"], key=k.w("upload"))


def _layer_controls(k: ViewKeys, say=None) -> tuple[str, rg.Regions] | None:
    choice = st.selectbox("Region layer", [*LAYERS, UPLOAD], key=k.w("layer"))
    if choice != UPLOAD:
        return choice, bundled(choice)
    up = layer_file(k)
    if up is None:
        st.info("Upload a layer of polygons with an id column (and a parent column for levels).")
        return None
    data = up.getvalue()
    objects = data_input.layer_objects(up.name, data)
    obj = st.selectbox("Layer in the file (e.g. counties or states)", objects, key=k.w("object"),
                       help="This file holds several layers; one of them is the regions (one level, or one with "
                            "a parent column).") if len(objects) > 1 else None
    digest = hashlib.sha1(data).hexdigest()
    cols, guess = _columns(digest, data, up.name, obj)
    id_col = st.selectbox("Region id column", cols, key=k.w("id"),
                          index=cols.index(guess.id) if guess is not None and guess.id in cols else 0,
                          help="Guessed as a person would: a column whose values are unique, named like an id "
                               "(id, code, iso, geoid), text before numbers, never a measure such as a population.")
    parent = st.selectbox("Parent id column (levels)", ["(none)", *cols], key=k.w("parent"))
    names = ["(same as id)", *cols]
    guessed_name = guess.name if guess is not None else None     # the name column does not depend on the id
    read_as = f"{digest}|{obj}|{id_col}"
    if st.session_state.get(k.w("name_for")) != read_as:          # a new file or id column: the name guessed again
        st.session_state[k.w("name")] = (guessed_name if guessed_name in names and guessed_name != id_col
                                         else "(same as id)")
        st.session_state[k.w("name_for")] = read_as
    name = st.selectbox("Name column", names, key=k.w("name"))
    if guess is not None and guess.id == id_col:
        st.caption(f"Guessed: {words.file_text(guess.why)}.")
    layer, repairs = _uploaded(digest, data, up.name, id_col,
                               None if parent == "(none)" else parent, id_col if name == "(same as id)" else name, obj)
    for said in repairs:           # before anything is built, where the page is read
        text = words.file_text(said)
        (say or st).warning(f"{text[:1].upper()}{text[1:]}.")
    return up.name if obj is None else f"{up.name}: {obj}", layer


def _points() -> tuple[str, np.ndarray]:
    shared = st.session_state.get(keys.SHARED_DATA)
    options = ["GeoNames sample"] + ([f"Map page data: {shared.name}"] if shared is not None else [])
    pick = st.radio("Points", options, key="rg_points", horizontal=True)
    if pick == "GeoNames sample":
        return "geonames", sample_points("geonames")
    assert shared is not None   # offered only when the map page shared its data
    return f"map:{shared.fingerprint}", shared.xy


def _layer_digest(layer: rg.Regions) -> str:
    """Names the layer's content (ids, names, parents and outlines), so that two uploads under one name, or one
    upload read with another name or parent column, are never confused."""
    f = layer.frame
    label = [f"{i}\x1f{n}\x1f{p}" for i, n, p in zip(f["id"], f["name"], f["parent"])]   # a missing parent: "None"
    return layer_digest(f.geometry.to_numpy(), np.array(label, dtype=object))


def _pick_region(frame, counts: pd.DataFrame, level: int, k: ViewKeys) -> str | None:
    """The selected region: a click on the map (handled once), or the selector."""
    ids = counts[counts["level"] == level]["id"].tolist()
    result = mapview.latest_value(k.map)
    click = result.get("last_object_clicked") if isinstance(result, dict) else None
    if click and "lat" in click:
        sig = (round(float(click["lat"]), 6), round(float(click["lng"]), 6))
        if st.session_state.get(k.last_click) != sig:
            st.session_state[k.last_click] = sig
            hit = view.region_at(frame, counts, level, float(click["lat"]), float(click["lng"]))
            if hit is not None:
                st.session_state[k.region] = hit
    if st.session_state.get(k.region) not in ids:
        st.session_state[k.region] = ids[0] if ids else None
    names = dict(zip(counts["id"], counts["name"]))
    return st.selectbox("Region", ids, key=k.region, format_func=lambda i: region_label(names.get(i, i), i))


def _source_words(counts: pd.DataFrame, r: pd.Series) -> str:
    """How a pooled region's count was made, in words."""
    if r["source"] == SOURCES[1]:
        return ("Pooled: this region's private count was too small for the regions inside it at this epsilon, so "
                "it was measured twice and the regions inside it get shares of it by area.")
    by_id = counts.set_index("id")
    up = r["parent"]
    while by_id.loc[up, "source"] == SOURCES[2]:     # a shared region's pooled ancestor
        up = by_id.loc[up, "parent"]
    return (f"Not measured: an area share of the count of {words.file_text(by_id.loc[up, 'name'])}, which was "
            "pooled (uniform density assumed inside it; the standard error covers the noise, not that assumption).")


def _region_panel(counts: pd.DataFrame, rid: str, truth: np.ndarray | None, noise: str, k: ViewKeys) -> None:
    row = counts.index[counts["id"] == rid][0]
    r = counts.loc[row]
    st.subheader(words.file_text(r["name"]))     # the layer's own words: shown as written, never as markdown
    if not np.isfinite(float(r["estimate"])):
        st.info("Outside the release's domain: the release says nothing about this region (no answer, not 0).")
        return
    if float(r.get("domain_share", 1.0)) < 0.999:
        st.caption(f"Only {float(r['domain_share']):.0%} of this region lies inside the release's domain: the "
                   "answer counts that part.")
    cut = float(r["uniformity_error"]) if "uniformity_error" in r else None
    low, high = ((float(r["low_95"]), float(r["high_95"])) if "low_95" in r else
                 (float(v) for v in whole_interval(float(r["estimate"]), float(r["standard_error"]), cut or 0.0)))
    answer_box.show(float(r["estimate"]), float(r["standard_error"]), cut, low, high, label="Private count")
    st.caption(f"The noise's standard error: {noise}.")
    if r.get("source", SOURCES[0]) != SOURCES[0]:
        st.caption(_source_words(counts, r))
    if truth is not None and st.toggle("True count (NOT private)", key=k.w("truth")):
        st.metric("True count (NOT private)", f"{int(truth[row]):,}")
    kids = counts[counts["parent"] == rid]
    if len(kids):
        st.caption(f"{len(kids)} regions inside; their counts add up to {round(float(kids['estimate'].sum())):,}.")
        st.dataframe(kids[["id", "name", "estimate", "standard_error"]].round({"estimate": 0, "standard_error": 1}),
                     hide_index=True, height=220)
        if st.button("Drill down a level", key=k.w("drill")):     # applied before the widgets of the next run
            st.session_state[k.drill] = (int(r["level"]) + 1, str(kids["id"].iloc[0]), rid)
            st.rerun()


def _with_outlines(frame, counts: pd.DataFrame):
    """The counts beside each region's outline (a GeoDataFrame for the GIS files)."""
    return frame[["id", "geometry"]].merge(counts, on="id")


def export_table(rel, counts: pd.DataFrame) -> pd.DataFrame:
    """The counts as every region file is written, by the page and the command line alike: one column order,
    rounded for people (:func:`psdviz.regions.people_table`), labelled NOT private when seeded."""
    return rg.people_table(labelled(counts, rel.randomness))


def _exports(rel, counts: pd.DataFrame, frame, name: str | None, k: ViewKeys) -> None:
    """The counts as CSV, GeoJSON and GeoParquet (labelled NOT private when seeded), and the release file and its
    statement when ``name`` is given (a page that opened the file has it already)."""
    allow = export.allow_seeded_export(rel.randomness, k.w("allow_seeded"))
    if allow is None:
        return
    c1, c2 = st.columns(2)          # two: four columns cut the labels at 1024 px
    if name is not None:
        c1.download_button("Release file (JSON)", lambda: export.release_bytes(rel, ".json", allow), name,
                           "application/json", key=k.w("json"), on_click="ignore")
        c1.download_button("Privacy statement (Markdown)", lambda: str(rel.report(format="markdown")),
                           "region_statement.md", "text/markdown", key=k.w("statement_json"), on_click="ignore")
    counts = export_table(rel, counts)
    # every file is made when its button is pressed: the outlines' GeoJSON alone took 0.9 s on every rerun
    c2.download_button("Counts (CSV)", lambda: counts.to_csv(index=False), "region_counts.csv", "text/csv",
                       key=k.w("csv"), on_click="ignore")
    c1.download_button("Counts with outlines (GeoJSON)", lambda: _with_outlines(frame, counts).to_json(),
                       "region_counts.geojson", "application/geo+json", key=k.w("geojson"), on_click="ignore")
    c2.download_button("Counts with outlines (GeoParquet)",
                       lambda: export.geoparquet_bytes(_with_outlines(frame, counts)),
                       "region_counts.parquet", "application/vnd.apache.parquet", key=k.w("geoparquet"),
                       on_click="ignore")


def _counts(route: str, key: str, xy: np.ndarray, layer: rg.Regions, epsilon: float, seed: int | None,
            nonce: int, pool: bool):
    """(release, one row per region: id, name, level, parent, estimate, standard_error[, source]): this session's
    own (the same draw when the user comes back to these inputs; :func:`.cache.owned`), with a progress bar
    naming the stages when the work takes more than a second."""
    pooling = "sparse" if pool else "none"
    full = f"regions|{route}|{key}|{epsilon!r}|{seed}|{nonce}|{pooling if route != PLANNED else ''}"
    bar = ProgressBar(stages=PLANNED_STAGES if route == PLANNED else ("counting the regions privately",))
    try:
        make = ((lambda: _build_planned(xy, layer, epsilon, seed, bar)) if route == PLANNED else
                (lambda: _build(xy, layer, epsilon, seed, pooling, bar)))
        return owned(full, make, seed is not None)
    finally:
        bar.clear()


def region_label(name, rid) -> str:
    """A region as the picker shows it: its name and id, or the name alone when the id is the name."""
    return str(name) if str(name) == str(rid) else f"{name} ({rid})"


def _used_words(rel) -> str:
    """The points used, in words (exact counts: the data owner's view), and the release's notes; a region
    release also counts the points that fall in no region."""
    audit = rel.audit()
    where = (f"{audit['rows_in_no_region']:,} of them fall in no region of the layer and "
             if "rows_in_no_region" in audit else "")
    return (f"{audit['rows_used']:,} points read inside the layer's bounds; {where}{audit['rows_outside_domain']:,} "
            "lie outside its bounds (exact counts: for the data owner only). "
            + " ".join(f"{n[0].upper()}{n[1:]}." for n in rel.notes))


def render() -> None:
    st.title("Regions")
    notes = st.container()        # the layer's repairs, said in the main area before anything is built
    with st.sidebar:
        st.header("Regions")
        picked = layer_controls(say=notes)
        if picked is None:
            return
        layer_name, layer = picked
        data_name, xy = _points()
        route = st.radio("Counts from", list(ROUTES), key="rg_route", help=ROUTE_HELP)
        words_for = ROUTES[route]
        epsilon = st.select_slider("Epsilon", [0.01, 0.03, 0.1, 0.3, 1.0, 3.0], value=1.0, key="rg_eps",
                                   help=words_for.epsilon_help)
        pool = route == REGION_RELEASE and st.checkbox(
            "Pool sparse regions", value=True, key="rg_pool",
            help="A region whose private count is too small for its children at this epsilon is measured again "
                 "instead, and the regions inside it get shares of its count by area (their noise would be larger "
                 "than their counts). Off: every region is measured.")
        seed, nonce = choose_randomness("rg", words_for.what)
    st.caption(words_for.caption)
    key = f"{data_name}|{layer_name}|{_layer_digest(layer)}"
    try:
        rel, counts = _counts(route, key, xy, layer, float(epsilon), seed, nonce, pool)
    except PsdvizError as exc:
        st.error(f"Cannot build: {words.file_text(exc)}")
        return
    st.caption(_used_words(rel))
    counts_view(rel, counts, layer, REGIONS_KEYS, words_for.noise, _truth(key, xy, layer), words_for.export_name)


def _focus(layer: rg.Regions, counts: pd.DataFrame, level: int, k: ViewKeys):
    """The outline of the region last drilled into while its children's level is shown (the map zooms to it),
    else None (the whole layer)."""
    focus = st.session_state.get(k.w("focus"))
    row = counts.index[(counts["id"] == focus) & (counts["level"] == level - 1)]
    return layer.frame.geometry.iloc[row[0]] if len(row) else None


def counts_view(rel, counts: pd.DataFrame, layer: rg.Regions, k: ViewKeys, noise: str, truth: np.ndarray | None,
                export_name: str | None) -> None:
    """One level of a layer on a choropleth of private counts (classes no narrower than their noise), the chosen
    region's count with its whole interval, its children and a drill down; the ledger and the exports."""
    drill = st.session_state.get(k.drill)
    forget(k.drill)
    if drill is not None:     # the level and region below the one drilled into; the map zooms to that one
        st.session_state[k.w("level")], st.session_state[k.region], st.session_state[k.w("focus")] = drill
    c_level, c_colour = st.columns(2)
    level = c_level.radio("Level", list(range(layer.n_levels)), key=k.w("level"), horizontal=True,
                          format_func=lambda lv: f"level {lv}")
    area = layer.area_km2
    by = c_colour.radio("Colour by", ["private count", "density per km²"] if area is not None else ["private count"],
                        key=k.w("colour"), horizontal=True,
                        help="Density: each region's private count over its area (equal-area projection), so "
                             "large regions do not look full only because they are large.")
    col_map, col_panel = st.columns([3, 2])
    with col_panel:
        rid = _pick_region(layer.frame, counts, level, k)
        if rid is not None:
            _region_panel(counts, rid, truth, noise, k)
    with col_map:
        fmap, text = view.choropleth(layer.frame, counts, level, rid, area if by != "private count" else None,
                                     focus=_focus(layer, counts, level, k))
        mapview.show_map(fmap, key=k.map, height=520)
        st.caption(text)
    with st.expander("Ledger"):
        st.dataframe(words.ledger_frame(rel.ledger.records()), hide_index=True)
    _exports(rel, counts, layer.frame, export_name, k)
