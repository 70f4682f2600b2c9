"""Count-of-counts page over :func:`psdviz.coco.publish` (Kuo et al., VLDB 2018).

Data: the bundled flights sample (services grouped under USA > state > airport) or an uploaded
table of records (pick the group columns, an optional record column, the location (leaf) column,
and the hierarchy: coarser columns of the same table or an uploaded hierarchy file). Method: naive,
H_g or H_c with top-down consistency, or bottom-up (the whole budget on the leaves, summed up).
A node is picked in the tree selector or by clicking it on the map (US states as regions from the
us-atlas outlines when fetched, other nodes as markers). The page shows the true
and private histograms of the node (the truth is a teaching view, computed here, never exported),
the earthmover's error, and the check that the node equals the sum of its children.
"""
from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd
import streamlit as st

from psdviz.errors import ParameterError, PsdvizError
from psdviz.present import labelled

from .. import coco
from ..present import flights_table, load_flight_airports
from . import coco_view as view
from . import data_input, export, keys, mapview, outlines, words
from .controls import choose_randomness

FLIGHTS = "Bundled flights sample (NYC 2013: services grouped by USA > state > airport)"
UPLOAD = "Upload a table of records"
METHOD_CHOICES: dict[str, tuple[str, coco.Consistency]] = {
    "H_c (cumulative, top-down consistency)": ("hc", "top-down"),
    "H_g (unattributed, top-down consistency)": ("hg", "top-down"),
    "naive (noisy histogram per node, no consistency)": ("naive", "independent"),
    "bottom-up (H_c at the leaves, parents are sums)": ("hc", "bottom-up"),
}
MAP_KEY = keys.COCO_MAP


# ---------------------------------------------------------------- data
@st.cache_data(show_spinner="Grouping the flights ...", max_entries=4)
def _flights(max_size: int):
    table, h = flights_table(max_size=max_size)
    ap = load_flight_airports()
    pos = view.node_positions(h, dict(zip(ap["iata"], ap["lat"])), dict(zip(ap["iata"], ap["lon"])))
    return table, h, pos, f"flights-{max_size}"


@st.cache_data(show_spinner="Grouping the records ...", max_entries=8)
def _grouped(fp: str, group_cols: tuple, record_col: str | None, leaf_col: str, path_cols: tuple,
             max_size: int, _df: pd.DataFrame, _hier: pd.DataFrame | None):
    df = _df
    if record_col:
        df = df.drop_duplicates(list(group_cols) + [record_col])
    if _hier is None:
        h = coco.Hierarchy.from_columns(df, list(path_cols) + [leaf_col], root="root")
        lat: dict[str, float] = {}
        lon: dict[str, float] = {}
    else:
        h = coco.Hierarchy.from_columns(_hier, list(path_cols), root="root")
        lat, lon = {}, {}
        if {"lat", "lon"} <= set(_hier.columns):
            leaf = _hier[path_cols[-1]].astype(str)
            lat = dict(zip(leaf, pd.to_numeric(_hier["lat"], errors="coerce")))
            lon = dict(zip(leaf, pd.to_numeric(_hier["lon"], errors="coerce")))
    table = coco.group_records(df[list(group_cols)], df[leaf_col].astype(str), h, max_size, span="split")
    return table, h, view.node_positions(h, lat, lon), fp


def _read_upload(label: str, key: str) -> pd.DataFrame | None:
    up = st.file_uploader(label, type=["csv", "tsv", "txt", "parquet"], key=key)
    if up is None:
        return None
    return data_input.read_table(up.name, up.getvalue())


def _upload_controls(max_size: int):
    df = _read_upload(f"Records (CSV/TSV or Parquet, at most {data_input.MAX_UPLOAD_MB} MB): one row per record",
                      "coco_upload")
    if df is None:
        st.info("Upload a table of records to continue, or pick the flights sample.")
        return None
    cols = [str(c) for c in df.columns]
    group_cols = st.multiselect("Group columns", cols, key="coco_gcols")
    st.caption("Records with the same values in these columns form one group (e.g. a household).")
    record_col = st.selectbox("Record column (optional)", ["(every row is a record)"] + cols, key="coco_rcol")
    st.caption("If set, repeated values of this column within a group count once.")
    leaf_col = st.selectbox("Location column (the leaf of the hierarchy)", cols, key="coco_lcol")
    st.caption("Where each group lives: a leaf name of the hierarchy (e.g. an airport or a county).")
    how = st.radio("Hierarchy", ["coarser columns of this table", "upload a hierarchy file"], key="coco_hsrc",
                   horizontal=True)
    st.caption("The hierarchy and the list of groups should be public inputs; taken from the records, as "
               "here, they are labelled 'from the data: not private' on the release.")
    hier = None
    if how.startswith("coarser"):
        path_cols = tuple(st.multiselect("Coarser levels, coarsest first", [c for c in cols if c != leaf_col],
                                         key="coco_pcols"))
        st.caption("E.g. state for airports. Leave empty for root > leaves.")
    else:
        hier = _read_upload("Hierarchy file: one row per leaf, columns coarsest first, the leaf column last; "
                            "optional lat and lon columns put the nodes on the map", "coco_hupload")
        if hier is None:
            st.info("Upload the hierarchy file to continue.")
            return None
        hcols = [c for c in map(str, hier.columns) if c not in ("lat", "lon")]
        path_cols = tuple(hcols)
    if not group_cols:   # a next step, not a mistake: no red error before the user had a chance to pick
        st.info("Pick the group columns (at least one column that identifies a group) to continue.")
        return None
    if leaf_col in group_cols:
        raise ParameterError("location column: it must not also be a group column")
    fp = hashlib.sha1(pd.util.hash_pandas_object(df, index=False).to_numpy().tobytes()).hexdigest()[:16]
    if hier is not None:
        fp += hashlib.sha1(pd.util.hash_pandas_object(hier, index=False).to_numpy().tobytes()).hexdigest()[:8]
    rc = None if record_col.startswith("(") else record_col
    return _grouped(fp, tuple(group_cols), rc, leaf_col, path_cols, max_size, df, hier)


# ---------------------------------------------------------------- engine call
@st.cache_data(show_spinner="Publishing private histograms ...", max_entries=32)
def _publish(fp: str, eps: tuple, method: str, consistency: coco.Consistency, seed: int | None, nonce: int,
             _table: coco.GroupedTable):
    """One cached release; with fresh randomness (seed None) ``nonce`` tells releases apart."""
    return coco.publish(_table, None, method, list(eps), seed=seed, consistency=consistency)


@st.cache_data(show_spinner=False, max_entries=8)
def _truth(fp: str, _table: coco.GroupedTable) -> np.ndarray:
    return coco.true_histograms(_table)


# ---------------------------------------------------------------- node picking
def _apply_click(result, pos: pd.DataFrame, level: int, names: tuple, regions: dict[int, dict]) -> None:
    """A new click selects a node in the tree selector (clicks are processed once): the state region
    containing the click, else the nearest marker."""
    click = (result or {}).get("last_object_clicked") if isinstance(result, dict) else None
    if not click or "lat" not in click:
        return
    sig = (round(float(click["lat"]), 6), round(float(click["lng"]), 6))
    if st.session_state.get(keys.COCO_LAST_CLICK) == sig:
        return
    st.session_state[keys.COCO_LAST_CLICK] = sig
    node = view.region_node(regions, float(click["lat"]), float(click["lng"]))
    if node is None:
        node = view.nearest_node(pos, level, float(click["lat"]), float(click["lng"]))
    if node is not None:
        st.session_state[keys.COCO_NODE] = names[node]


def _node_picker(h: coco.Hierarchy, pos: pd.DataFrame, groups: np.ndarray) -> int:
    order = view.dfs_order(h)
    labels = dict(zip(order, view.node_labels(h)))
    names = tuple(h.names)
    has_map = bool(pos["lat"].notna().any())
    col_map, col_pick = st.columns([3, 2]) if has_map else (st.container(), st.container())
    if has_map:
        with col_map:
            level = st.radio("Map shows", list(range(1, h.n_levels)), index=0, key="coco_map_level", horizontal=True,
                             format_func=lambda lv: f"level {lv}" + (" (leaves)" if lv == h.n_levels - 1 else ""))
            regions = view.node_regions(h, level, outlines.state_regions([names[i] for i in h.level_nodes(level)]))
            st.caption(("Click a state or a marker" if regions else "Click a marker") + " to pick that node; "
                       + ("the fill darkens" if regions else "marker size grows") + " with its number of groups."
                       + ("" if regions or level != 1 else " (No state outlines: the us-atlas file is missing "
                          "or the names are not US states.)"))
            _apply_click(st.session_state.get(MAP_KEY), pos, level, names, regions)   # a click from the last run
            current = st.session_state.get(keys.COCO_NODE, names[0])
            sel = h.node_id(current) if current in names else 0
            result = mapview.show_map(view.marker_map(pos, level, groups, sel, regions), key=MAP_KEY, height=430)
            before = st.session_state.get(keys.COCO_NODE)
            _apply_click(result, pos, level, names, regions)
            if st.session_state.get(keys.COCO_NODE) != before:
                st.rerun()
    with col_pick:
        if st.session_state.get(keys.COCO_NODE) not in names:
            st.session_state[keys.COCO_NODE] = names[0]
        name = st.selectbox("Node", [names[i] for i in order], key="coco_node",
                            format_func=lambda n: labels[h.node_id(n)].replace(" ", "\u00a0"))
        st.caption("The tree selector: pick any node (root, a region or a leaf).")
    return h.node_id(name)


# ---------------------------------------------------------------- page
def _budget_controls(h: coco.Hierarchy, consistency: str) -> list[float]:
    st.markdown("**Epsilon per level**")
    st.caption("Each level's histograms use their own budget; levels add up along a path "
               "(sequential composition), nodes of one level are disjoint (parallel).")
    cols = st.columns(h.n_levels)
    eps = [float(c.number_input(f"level {lv}", 0.001, 10.0, 0.5 if lv else 0.2, 0.05, format="%.3f",
                                key=f"coco_eps{lv}"))
           for lv, c in enumerate(cols)]
    if consistency == "bottom-up":
        st.caption(f"Bottom-up spends the total {sum(eps):g} on the leaves; every other node is the sum of its leaves.")
    return eps


def groups_label(rel: coco.CocoRelease) -> str:
    """The node's group count G, named as the warning above names it: public only when the groups were
    declared, else read from the data and not private."""
    return "Groups G (public)" if rel.structure_public else "Groups G (NOT private)"


def _show_node(rel: coco.CocoRelease, truth: np.ndarray, node: int) -> None:
    h = rel.hierarchy
    name = h.names[node]
    log_y = st.checkbox("Log scale", value=True, key="coco_log",
                        help="Most groups are small; log scale shows the tail.")
    st.plotly_chart(view.histogram_figure(truth[node], rel.histograms[node], name, log_y), width="stretch",
                    key="coco_hist")
    err = rel.emd(truth)
    chk = view.children_check(rel, node)
    c1, c2, c3 = st.columns(3)
    c1.metric("Earthmover's error", f"{err[node]:,.0f}",
              help="At this node; it reads the true histogram (NOT private).")
    c1.caption("Records to add to or remove from groups to turn the private histogram into the true one.")
    c2.metric(groups_label(rel), f"{int(rel.groups[node]):,}")
    if chk["equal"] is None:
        c3.metric("Sum of children", "leaf")
        c3.caption("A leaf has no children to add up.")
    else:
        c3.metric("Node = sum of its children", "yes" if chk["equal"] else f"no (off by up to {chk['max_difference']})")
        c3.caption(f"Released histogram against the sum of its {chk['children']} children's.")
    by_level = rel.emd_by_level(truth).rename("mean earthmover's error").to_frame()
    by_level.index.name = "level"
    with st.expander("Error by level and whole-release checks"):
        st.dataframe(by_level)
        st.json(rel.check_consistency())


def _exports(rel: coco.CocoRelease) -> None:
    allow = export.allow_seeded_export(rel.randomness, "coco_allow_seeded")
    if allow is None:
        return
    c1, c2 = st.columns(2)
    c1.download_button("Release (JSON)",
                       lambda: export.release_bytes(rel, ".json", allow), "count_of_counts.json", "application/json",
                       key="coco_json", on_click="ignore", help="The release with its ledger.")
    table = labelled(rel.records(), rel.randomness)         # a seeded run's rows say NOT PRIVATE
    c2.download_button("Download the private histograms (CSV)", lambda: table.to_csv(index=False),
                       "count_of_counts.csv", "text/csv", key="coco_csv", on_click="ignore")
    st.caption("Exports hold the private histograms, the hierarchy and G (labelled with where they came from), "
               "and the ledger; no true values.")


def render() -> None:
    st.title("Count of counts")
    st.caption("How many groups have 1, 2, 3, ... records, in every region, published with differential privacy.")
    source = st.radio("Data", [FLIGHTS, UPLOAD], key="coco_source")
    max_size = int(st.number_input("Largest group size K (public bound)", 1, 100_000, 365, key="coco_K"))
    st.caption("Larger groups are truncated to K. For the flights, K = 365: a service flies at most daily.")
    try:
        loaded = _flights(max_size) if source == FLIGHTS else _upload_controls(max_size)
    except (PsdvizError, OSError, KeyError) as exc:
        st.error(f"Data problem: {words.file_text(exc)}")
        return
    if loaded is None:
        return
    table, h, pos, fp = loaded
    st.caption(f"{table.n_records:,} records in {table.n_groups:,} groups; hierarchy of {h.n_levels} levels "
               f"and {h.n_nodes} nodes; {table.n_truncated} groups truncated at K.")
    label = st.selectbox("Method", list(METHOD_CHOICES), key="coco_method")
    st.caption("H_c and H_g fit the noisy histograms with isotonic regression, then make levels agree top-down.")
    method, consistency = METHOD_CHOICES[label]
    eps = _budget_controls(h, consistency)
    seed, nonce = choose_randomness("coco", "release")
    try:
        rel = _publish(fp, tuple(eps), method, consistency, seed, nonce, table)
    except PsdvizError as exc:
        st.error(str(exc))
        return
    if not rel.structure_public:
        st.warning(coco.STRUCTURE_FROM_DATA + ". The paper assumes a public list of groups "
                   "(empty ones included); the release and its exports carry this label.")
    st.caption(f"Total epsilon spent: {rel.ledger.total():g} (ledger in the JSON export).")
    node = _node_picker(h, pos, rel.groups)
    _show_node(rel, _truth(fp, table), node)
    _exports(rel)


if __name__ == "__main__":
    render()
