"""Sparse page over :func:`psdviz.sparse.summarize` (Cormode et al., ICDT 2012).

Tables: points (the map page's data, or a bundled sample) counted on a fine grid (the default: its
dense spots stand out from the noise), the flights sample as tail number x scheduled service
(48.7 million cells, 0.4% non-zero, median count 1: at moderate epsilon its summary is almost all
noise, and the page says why), or an uploaded table (two categorical columns). A contingency
table whose category lists are read from the data carries a caveat (those lists are not private);
an upload can declare public lists instead. Methods: filter, threshold, priority, filter-priority and the full
geometric mechanism when the table is small enough. Parameters are either derived from a private
estimate of the table's size (the engine spends a stated 5% slice) or given explicitly.

Shows the summary size, the build time, block heatmaps of summary and truth (the truth is a
teaching view computed here, never exported), and range/subset query errors against query size.
Exports: the release with its ledger as JSON and its entries as CSV (no true values).
"""
from __future__ import annotations

import hashlib
import json
import time

import numpy as np
import pandas as pd
import streamlit as st

from psdviz.errors import InputDataError, ParameterError, PsdvizError
from psdviz.present import labelled

from .. import sparse
from ..lab.sparse_lab import compare_queries, query_sizes
from ..present import LABORIOUS_MAX, SAMPLES, flights_sparse_table, sample_points
from . import data_input, export, keys, words
from . import sparse_view as view
from .controls import choose_randomness

FLIGHTS = "Flights sample: tail number x scheduled service"
UPLOAD = "Upload a table (two categorical columns)"
POINTS = "Points on a fine grid"
MAP_DATA = "data loaded on the map page"
OBSERVED = "read from the data (not private)"
DECLARED = "declared public lists"
SHARED_DATA_KEY = keys.SHARED_DATA
GRID_SIDES = [128, 256, 512, 1024, 2048, 4096]
FLIGHTS_NOISY = ("Why this table looks like pure noise: most (tail number, service) pairs occur once or twice "
                 "(median 1 flight), no more than the noise of scale 1/epsilon, so at moderate epsilon almost all "
                 "kept entries are empty cells pushed over the threshold by noise. Try a large epsilon.")
OBSERVED_CAVEAT = ("The category lists (row and column values) were read from the data itself, so they are not "
                   "private: publishing them reveals that each listed value occurs in the data. A real release "
                   "needs public lists (e.g. every registered tail number), declared before looking at the data.")
METHOD_HELP = {
    "filter": "Keep noisy cells at or above a threshold theta; zero cells that pass are simulated (section 2.2).",
    "threshold": "Keep each noisy cell with probability min(1, |v| / tau), reweighted (section 2.3).",
    "priority": "Priority sampling: keep the s noisy cells of highest priority (section 2.3).",
    "filter-priority": "Filter with theta, then priority-sample s cells: the paper's best (section 2.4).",
    "geometric": "Noise on every cell, zeros included: the exact but laborious baseline (size-limited).",
}


# ---------------------------------------------------------------- tables
@st.cache_data(show_spinner="Counting the flights table ...", max_entries=2)
def _flights_table():
    return flights_sparse_table(), "flights-tail-service"


@st.cache_data(show_spinner="Counting ...", max_entries=8)
def _contingency(fp: str, rcol: str, ccol: str, _df: pd.DataFrame, row_values=None, col_values=None):
    return sparse.contingency_table(_df[rcol].astype(str), _df[ccol].astype(str), row_values, col_values), fp


@st.cache_data(show_spinner="Counting points on the grid ...", max_entries=8)
def _grid(fp: str, side: int, _xy: np.ndarray, _domain):
    return sparse.grid_table(_xy, _domain, side, side), f"{fp}-grid{side}"   # the table's own fingerprint


def _points_source():
    opts = []
    if SHARED_DATA_KEY in st.session_state:
        opts.append(MAP_DATA)
    opts += [n for n, s in SAMPLES.items() if s.spatial]
    src = st.selectbox("Points", opts, key="sp_points",
                       format_func=lambda o: f"{o}: {st.session_state[SHARED_DATA_KEY].name}" if o == MAP_DATA else o)
    st.caption("The points are counted on a grid over the data set's declared public domain.")
    side = st.select_slider("Grid cells per side", GRID_SIDES, value=256, key="sp_side")
    st.caption("A finer grid has more (mostly empty) cells: the sparse regime of the paper.")
    if src == MAP_DATA:
        d = st.session_state[SHARED_DATA_KEY]
        xy, dom = np.asarray(d.xy, dtype=float), d.domain
        xy = xy[np.isfinite(xy).all(axis=1)]
    else:
        xy, dom = _sample_xy(src), SAMPLES[src].domain
    fp = hashlib.sha1(np.ascontiguousarray(xy).tobytes()).hexdigest()[:16] + repr(dom)
    return _grid(fp, side, xy, dom)


@st.cache_data(show_spinner="Loading the sample ...", max_entries=4)
def _sample_xy(name: str) -> np.ndarray:
    return sample_points(name)


def _upload_source():
    up = st.file_uploader(f"Table (CSV/TSV or Parquet, at most {data_input.MAX_UPLOAD_MB} MB): one row per individual",
                          type=["csv", "tsv", "txt", "parquet"], key="sp_upload")
    if up is None:
        st.info("Upload a table to continue, or pick another source.")
        return None
    df = data_input.read_table(up.name, up.getvalue())
    cols = [str(c) for c in df.columns]
    if len(cols) < 2:
        raise InputDataError("the table needs at least two columns (the two attributes to cross)")
    rcol = st.selectbox("Row attribute", cols, key="sp_rcol")
    ccol = st.selectbox("Column attribute", cols, index=1, key="sp_ccol")
    st.caption("The table counts individuals per (row value, column value).")
    if rcol == ccol:
        raise ParameterError("row and column attributes must be two different columns")
    lists = _declared_lists()
    if lists is None:
        st.info("Type the public row values and column values (one per line), or read them from the data.")
        return None
    fp = hashlib.sha1(pd.util.hash_pandas_object(df[[rcol, ccol]], index=False).to_numpy().tobytes()).hexdigest()[:16]
    return _contingency(fp + json.dumps(lists), rcol, ccol, df, *lists)


def _declared_lists() -> tuple[list[str] | None, list[str] | None] | None:
    """(row values, column values) declared public by the user, (None, None) = read from the data,
    or None while the declared lists are still empty."""
    how = st.radio("Category lists", [OBSERVED, DECLARED], key="sp_lists", horizontal=True,
                   help="Which row and column values the table has. Values read from the data are not private.")
    if how == OBSERVED:
        return None, None
    c1, c2 = st.columns(2)
    how_to = "One value per line or comma separated."
    rows = _split(c1.text_area("Row values (public list)", key="sp_rvals", help=how_to))
    cols = _split(c2.text_area("Column values (public list)", key="sp_cvals", help=how_to))
    st.caption("Every row of the upload must use listed values; listed values that never occur are empty cells.")
    return (rows, cols) if rows and cols else None


def _split(text: str) -> list[str]:
    return list(dict.fromkeys(v.strip() for v in text.replace(",", "\n").splitlines() if v.strip()))


# ---------------------------------------------------------------- engine call
@st.cache_data(show_spinner="Building the private summary ...", max_entries=32)
def _summarize(fp: str, epsilon: float, method: str, params_key: str, seed: int | None, nonce: int, _table):
    """One cached summary; with fresh randomness (seed None) ``nonce`` tells releases apart."""
    params = json.loads(params_key)
    start = time.perf_counter()
    rel = sparse.summarize(_table, method, epsilon, seed=seed, **params)
    return rel, time.perf_counter() - start


@st.cache_data(show_spinner="Answering range and subset queries ...", max_entries=32)
def _queries(fp: str, key: str, q: int, _rel, _table) -> pd.DataFrame:
    return compare_queries(_rel, _table, query_sizes(_table.m), q, seed=0)


def _param_controls(method: str, m: int) -> dict:
    st.caption(METHOD_HELP[method])
    if method == "geometric":
        if m > LABORIOUS_MAX:
            raise ParameterError(f"the full geometric mechanism materialises all m = {m:,} cells; this page allows it "
                                 f"up to {LABORIOUS_MAX:,} cells. Pick a shortcut method or a smaller grid.")
        return {}
    auto = st.radio("Parameters", ["automatic (from a private size estimate)", "explicit"], key="sp_auto",
                    horizontal=True)
    st.caption("Automatic: the engine spends 5% of epsilon on noisy table statistics and sizes the "
               "summary like the true table (ICDT'12 appendix C).")
    if auto.startswith("automatic"):
        return {}
    p: dict = {}
    if method in ("filter", "filter-priority"):
        p["theta"] = int(st.number_input("theta (filter threshold)", 1, 10**6, 3, key="sp_theta"))
        st.caption("Noisy cells below theta are dropped; larger theta means a smaller summary.")
    if method == "threshold":
        p["tau"] = float(st.number_input("tau (sampling threshold)", 0.001, 1e9, 5.0, key="sp_tau"))
        st.caption("A noisy value v is kept with probability min(1, |v| / tau).")
    if method in ("priority", "filter-priority"):
        p["size"] = int(st.number_input("s (summary size)", 1, max(m - 1, 1), min(10_000, max(m - 1, 1)),
                                        key="sp_size"))
        st.caption("Exactly s cells are kept by priority sampling.")
    return p


# ---------------------------------------------------------------- page
def _source():
    src = st.radio("Table", [POINTS, FLIGHTS, UPLOAD], key="sp_source",
                   help="Points on a grid is the default: its dense spots stand out clearly from the noise.")
    st.caption("A count table with many cells, almost all of them zero.")
    if src == FLIGHTS:
        st.caption(FLIGHTS_NOISY)
        return _flights_table()
    if src == UPLOAD:
        return _upload_source()
    return _points_source()


def _show(rel, seconds: float, table, fp: str, key: str) -> None:
    c1, c2, c3, c4 = st.columns(4)
    c1.metric("Cells in the table (m)", f"{table.m:,}")
    c2.metric("Summary size", f"{rel.size:,}")
    c3.metric("Build time", f"{seconds:.2f} s")
    c4.metric("Epsilon spent", f"{rel.ledger.total():g}")
    st.caption(f"The true table has {table.n:,} non-zero cells; publishing all m noisy cells would need "
               f"{table.m:,} entries.")
    idx, _, weights = rel.leaves()
    if idx.size:
        real = float(np.isin(idx, table.indices).mean())
        st.caption(f"Teaching view (not private): {real:.1%} of the summary's entries are cells that are really "
                   "non-zero; the rest are empty cells that the noise pushed over the threshold.")
    shape = view.table_shape(table.layout, table.m)
    fig = view.heatmaps(view.block_sums(table.indices, table.counts, shape),
                        view.block_sums(idx, weights, shape))
    st.plotly_chart(fig, width="stretch", key="sp_heat")
    st.caption(f"The {shape[0]:,} x {shape[1]:,} cells drawn as blocks (each the sum of its cells).")
    q = st.slider("Queries per size", 10, 200, 40, 10, key="sp_q")
    st.caption("Random ranges of consecutive cells (row-major order) and random subsets of cells.")
    errors = _queries(fp, key, q, rel, table)
    measure = st.radio("Error", ["abs_error", "rel_error"], key="sp_measure", horizontal=True,
                       format_func=lambda m: "absolute (the paper's)" if m == "abs_error" else "relative")
    st.plotly_chart(view.error_chart(errors, measure), width="stretch", key="sp_err")
    with st.expander("Query comparisons (table)"):
        st.dataframe(errors.groupby(["kind", "size"]).agg(median_abs_error=("abs_error", "median"),
                                                           mean_truth=("truth", "mean")).reset_index(), hide_index=True)
    allow = export.allow_seeded_export(rel.randomness, "sp_allow_seeded")
    if allow is None:
        return
    d1, d2 = st.columns(2)
    d1.download_button("Download the summary (JSON, with its ledger)",
                       lambda: export.release_bytes(rel, ".json", allow), "sparse_summary.json", "application/json",
                       key="sp_json", on_click="ignore")
    table = labelled(rel.to_frame(), rel.randomness)        # a seeded run's rows say NOT PRIVATE
    d2.download_button("Download the summary entries (CSV)", lambda: table.to_csv(index=False),
                       "sparse_summary.csv", "text/csv", key="sp_csv", on_click="ignore")
    st.caption("Exports hold the released entries, parameters and ledger; no true counts.")


def render() -> None:
    st.title("Sparse tables")
    st.caption("Publish a huge, mostly-empty count table privately as a small summary (Cormode et al., ICDT 2012).")
    try:
        loaded = _source()
    except (PsdvizError, OSError, KeyError) as exc:
        st.error(f"Data problem: {words.file_text(exc)}")
        return
    if loaded is None:
        return
    table, fp = loaded
    st.caption(f"{table.m:,} cells, {table.n:,} non-zero ({table.density:.3%}), {table.l1:,} individuals.")
    if table.layout.get("categories") == "observed in the data":
        st.warning(OBSERVED_CAVEAT)
    method = st.selectbox("Method", list(sparse.METHODS), index=list(sparse.METHODS).index("filter-priority"),
                          key="sp_method")
    epsilon = float(st.select_slider("Epsilon", [0.01, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0], value=1.0,
                                     key="sp_eps"))
    st.caption("Epsilon: the privacy budget; every cell's count gets two-sided geometric noise of scale 1/epsilon.")
    seed, nonce = choose_randomness("sp", "summary")
    try:
        params = _param_controls(method, table.m)
        pkey = json.dumps(params, sort_keys=True)
        rel, seconds = _summarize(fp, epsilon, method, pkey, seed, nonce, table)
    except PsdvizError as exc:
        st.error(str(exc))
        return
    _show(rel, seconds, table, fp, f"{epsilon}-{method}-{pkey}-{seed}-{nonce}")


if __name__ == "__main__":
    render()
