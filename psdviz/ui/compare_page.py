"""Compare page: the accuracy lab over :mod:`psdviz.lab.compare`.

Pick methods and epsilons (or a paper preset), a workload and a number of trials, press Run. Each
(method, epsilon) cell is a cached engine call (``st.cache_data`` keyed by the data fingerprint and
the cell's inputs), so re-running, or adding one epsilon, only computes what is new; the progress
bar advances between cells. Changing any input while a run is going makes Streamlit rerun the
script, which abandons the old run (finished cells stay cached).

Export choice: the CSV is the per-query error table (estimate, true answer, errors); the JSON holds
the settings, the summary and every build's privacy report (ledger). Neither contains the query
rectangles (centred workloads are placed on data points) nor any data point.
"""
from __future__ import annotations

import hashlib
import io
import json

import numpy as np
import pandas as pd
import streamlit as st

from psdviz.errors import InputDataError, ParameterError, PsdvizError

from .. import Domain
from ..lab import compare as C
from ..lab import frontier as F
from ..lab.dpbench import check_histogram, histogram_domain, histogram_points
from ..lab.presets import PRESETS, resolve
from ..lab.synthetic import skewed, with_outliers
from ..present import FRESH, SAMPLES, SEEDED, check_int, sample_points
from . import compare_charts as charts
from . import keys, words
from .cache import SharedCache
from .controls import build_help

EPSILON_CHOICES = [0.01, 0.05, 0.1, 0.2, 0.4, 0.5, 0.7, 1.0, 2.0, 5.0, 10.0]
CUSTOM = "Custom comparison"
SYNTH_DOMAIN = Domain(0.0, 0.0, 1.0, 1.0)
SYNTHETIC = {
    "Synthetic: clustered (50,000 points, unit square)": False,
    "Synthetic: clustered + 0.5% far outliers (unit square)": True,
}
# When another page stores its loaded data set here (an object with .name, .xy, .domain and
# .fingerprint, e.g. the map page's data_input.Dataset), the lab offers it as a source.
SHARED_DATA_KEY = keys.SHARED_DATA


# ---------------------------------------------------------------- data
def fingerprint(xy: np.ndarray, domain: Domain) -> str:
    h = hashlib.blake2b(np.ascontiguousarray(xy).tobytes(), digest_size=16)
    h.update(repr((domain.xmin, domain.ymin, domain.xmax, domain.ymax)).encode())
    return h.hexdigest()


@st.cache_data(show_spinner="Loading data ...", max_entries=8)
def _load(source: str) -> tuple[np.ndarray, Domain, str]:
    if source in SYNTHETIC:
        rng = np.random.default_rng(2012)
        xy = skewed(50_000, SYNTH_DOMAIN, rng)
        if SYNTHETIC[source]:
            xy = with_outliers(xy, SYNTH_DOMAIN, rng, fraction=0.005)
        return xy, SYNTH_DOMAIN, fingerprint(xy, SYNTH_DOMAIN)
    name = source.split(":", 1)[1].strip().split(" ")[0]
    xy = sample_points(name)
    dom = SAMPLES[name].domain
    assert dom is not None   # the compare page offers spatial samples only
    return xy, dom, fingerprint(xy, dom)


HIST_SOURCE = "Upload a 2-D count histogram (.npy, e.g. a DPBench file)"


@st.cache_data(show_spinner="Placing the histogram's points ...", max_entries=4)
def _histogram(digest: str, _data: bytes) -> tuple[np.ndarray, Domain, str]:
    """A histogram upload as points placed uniformly in their cells (the DPBench protocol), domain
    [0, m) x [0, n)."""
    try:
        raw = np.load(io.BytesIO(_data), allow_pickle=False)
    except (ValueError, OSError, EOFError) as exc:
        raise InputDataError(f"not a numpy .npy array ({exc})") from None
    hist = check_histogram(raw)
    xy = histogram_points(hist, np.random.default_rng(0))
    dom = histogram_domain(hist)
    return xy, dom, fingerprint(xy, dom)


def _sources() -> list[str]:
    out = []
    if SHARED_DATA_KEY in st.session_state:
        out.append(f"Data loaded on the map page: {getattr(st.session_state[SHARED_DATA_KEY], 'name', 'upload')}")
    out += [f"Sample: {s.name} ({s.description})" for s in SAMPLES.values() if s.spatial]
    return out + list(SYNTHETIC) + [HIST_SOURCE]


def _data(source: str) -> tuple[np.ndarray, Domain, str] | None:
    if source == HIST_SOURCE:
        up = st.file_uploader("Histogram (.npy: entry [i, j] = points in column-bin i and row-bin j)", type=["npy"],
                              key="cmp_hist")
        if up is None:
            return None
        data = up.getvalue()
        return _histogram(hashlib.sha1(data).hexdigest(), data)
    if source.startswith("Data loaded on the map page"):
        d = st.session_state[SHARED_DATA_KEY]
        xy = np.asarray(d.xy, dtype=float)
        return xy, d.domain, fingerprint(xy, d.domain)
    return _load(source)


# ---------------------------------------------------------------- cached engine calls
@st.cache_data(show_spinner=False, max_entries=16)
def _queries(fp: str, workload_key: str, seed: int | None, _xy: np.ndarray, _domain: Domain,
             _workload: C.Workload) -> C.QuerySet:
    return C.make_queries(_xy, _domain, _workload, seed)


CELLS = SharedCache(256)   # (data, workload, variant, epsilon, trials, seed) -> (table, reports), shared


def _cell(fp: str, workload_key: str, variant_key: str, epsilon: float, trials: int, seed: int | None,
          xy: np.ndarray, domain: Domain, variant: C.Variant, qs: C.QuerySet,
          progress=None) -> tuple[pd.DataFrame, list]:
    """One (variant, epsilon) cell, cached outside st.cache so that its builds can move the progress bar."""
    def run() -> tuple[pd.DataFrame, list]:
        reports: list = []
        return C.run_cell(xy, domain, variant, epsilon, qs, trials, seed, reports=reports, progress=progress), reports
    return CELLS.get_or_build(_key([fp, workload_key, variant_key, epsilon, trials, seed]), run)


def _key(obj) -> str:
    return json.dumps(obj, sort_keys=True, default=str)


def run_with_progress(xy, domain, fp, variants, epsilons, workload, trials, seed, nonce=0):
    """Run the grid cell by cell (each cached) with a progress bar; returns (table, reports).

    ``seed`` None = fresh randomness (OS entropy); ``nonce`` (bumped by each press of Run) is part
    of the cache keys, so a fresh run is kept across reruns until Run is pressed again."""
    wkey = _key(workload.__dict__) + f"|{nonce}"
    bar = st.progress(0.0, text="Drawing the queries and their true answers ...")
    qs = _queries(fp, wkey, seed, xy, domain, workload)
    cells = [(v, e) for v in variants for e in epsilons]
    frames, reports = [], {}
    for i, (v, e) in enumerate(cells):
        label = f"Building {v.label} at epsilon {e:g} ({i + 1}/{len(cells)})"
        bar.progress(i / len(cells), text=f"{label} ...")

        def passes(trial, done, total, what, i=i, label=label):   # the engine's passes inside this cell
            share = (trial + done / max(total, 1)) / trials
            bar.progress(min(1.0, (i + share) / len(cells)), text=f"{label}, trial {trial + 1}: {what} {done}/{total}")
        df, reps = _cell(fp, wkey, _key(v.__dict__), e, trials, seed, xy, domain, v, qs, passes)
        frames.append(df)
        reports[f"{v.label} @ epsilon {e:g}"] = reps
    bar.progress(1.0, text=f"Done: {len(cells)} cells x {trials} trial(s) x {len(qs.truth)} queries.")
    return pd.concat(frames, ignore_index=True), reports


# ---------------------------------------------------------------- controls
def _parse_pairs(text: str) -> tuple[tuple[float, float], ...]:
    """'1x1, 5x5, 15x0.2' -> ((1, 1), (5, 5), (15, 0.2))."""
    out = []
    for part in [p for p in text.replace(";", ",").split(",") if p.strip()]:
        bits = part.lower().replace("*", "x").split("x")
        if len(bits) != 2:
            raise ParameterError(f"query shapes: write each as WIDTHxHEIGHT, e.g. 1x1 (got {part.strip()!r})")
        try:
            out.append((float(bits[0]), float(bits[1])))
        except ValueError:
            raise ParameterError(f"query shapes: {part.strip()!r} is not two numbers") from None
    if not out:
        raise ParameterError("query shapes: give at least one shape, e.g. 1x1, 5x5")
    return tuple(out)


def _parse_fractions(text: str) -> tuple[tuple[float, float], ...]:
    try:
        vals = [float(p) for p in text.replace(";", ",").split(",") if p.strip()]
    except ValueError:
        raise ParameterError(f"area fractions: write numbers separated by commas, e.g. 0.001, 0.01 "
                             f"(got {text!r})") from None
    if not vals:
        raise ParameterError("area fractions: give at least one, e.g. 0.001, 0.01")
    return tuple((v, 1.0) for v in vals)


def _custom_controls(domain: Domain, fp: str):
    names = list(C.available_methods())
    picked = st.multiselect("Methods", names, default=names[:2], key="cmp_methods",
                            help="Each method is built with its paper's default parameters.")
    st.caption("Methods: the private decompositions to compare (non-private references are labelled).")
    eps = st.multiselect("Epsilons", EPSILON_CHOICES, default=[0.1, 0.5, 1.0], key="cmp_eps")
    st.caption("Epsilon: the privacy budget of each build; smaller means more privacy and more noise.")
    kind = st.radio("Workload", ["Shapes in data units", "Areas centred on data points"], key="cmp_kind",
                    horizontal=True)
    st.caption("Shapes are placed uniformly in the domain; centred areas surround random data points.")
    if kind.startswith("Shapes"):
        w, h = domain.width, domain.height
        default = f"{w / 20:.3g}x{h / 20:.3g}, {w / 5:.3g}x{h / 5:.3g}, {w / 2:.3g}x{h / 50:.3g}"
        text = st.text_input("Query shapes (width x height)", default,
                             key=f"cmp_shapes_{fp[:12]}")  # per data set: defaults follow the domain
        st.caption(f"In data units; the domain is {w:g} x {h:g}. Example: 1x1, 5x5, 15x0.2.")
        sizes = _parse_pairs(text)
        kind_code = "shape"
    else:
        text = st.text_input("Query areas (share of the domain)", "0.0001, 0.001, 0.01", key="cmp_areas")
        st.caption("Each query is a square of this share of the domain's area around a random data point.")
        sizes = _parse_fractions(text)
        kind_code = "centered"
    q = st.slider("Queries per shape", 10, 1000, 200, 10, key="cmp_q")
    st.caption("Only queries with a non-zero true answer are kept (as in the ICDE'12 protocol).")
    variants = [C.variant(m, m) for m in picked]
    if st.checkbox("Also the quadtree planned for these queries (quadtree+W)", key="cmp_planned",
                   help="The quadtree given this workload's rectangles: its budget per level is planned for them "
                        "(as DPBench gives DAWA-2D its test queries)."):
        variants.append(C.variant("quadtree+W", "quadtree", planned=True))
        st.caption("quadtree+W is given the queries themselves. They were drawn from the data (kept for a non-zero "
                   "answer, or centred on data points), so it shows what planning for known queries is worth; it is "
                   "not a private release of the data. A publisher plans for queries chosen without the data.")
    return variants, sorted(eps), C.Workload(kind_code, sizes, q)


def _preset_controls(preset_name: str, domain: Domain):
    p = PRESETS[preset_name]
    st.markdown(f"**{p.title}** — {p.description}")
    st.caption(f"Source: {p.source}. Query sizes are the paper's, scaled to this domain.")
    variants, notes = resolve(p)
    for n in notes:
        st.caption(f"Left out: {n}")
    for v in variants:
        if not v.private:
            st.caption(f"{v.label} is a non-private reference (shows the cost of privacy).")
    q = st.slider("Queries per shape", 10, 1000, min(p.queries, 200), 10, key="cmp_pq",
                  help=f"The paper used {p.queries}.")
    st.caption(f"The paper used {p.queries} queries per shape; fewer makes the demo faster.")
    return variants, list(p.epsilons), p.workload(domain, queries=q)


def _randomness() -> int | None:
    """Fresh randomness (None) or a seed, labelled as on the map page."""
    mode = st.radio("Randomness", ["fresh", "seed"], horizontal=True, key="cmp_rand", help=build_help("seed"))
    if mode == "fresh":
        st.caption("Fresh: new queries and noise from OS entropy at every Run, as a real release would use.")
        return None
    seed = int(st.number_input("seed", 0, 2**31 - 1, 0, key="cmp_seed"))
    st.caption("Seeded: the same seed gives the same queries and noise (reproducible for a lesson; "
               "labelled so in the export).")
    return seed


# ---------------------------------------------------------------- results
def auto_picks(reports: dict) -> list[str]:
    """The methods ``auto`` picked in this run's builds (from their reports), most frequent first."""
    picks = [r["parameters"]["chosen"] for reps in reports.values() for r in reps if r.get("method") == "auto"]
    return sorted(set(picks), key=lambda m: (-picks.count(m), m))


def frontier_view(results: pd.DataFrame, log_y: bool, reports: dict) -> None:
    """Error against epsilon per method, auto's pick marked, and a one-line reading per query shape."""
    target = st.select_slider("Target error for the reading", [0.01, 0.02, 0.05, 0.1, 0.2, 0.5], value=0.1,
                              key="cmp_target", format_func=lambda v: f"{v:.0%}")
    front = F.frontier(results)
    picks = auto_picks(reports)
    st.plotly_chart(charts.error_lines(results, log_y, picks[0] if picks else None, target), width="stretch",
                    key="cmp_lines")
    st.caption(f"Thick line with stars: auto and the method it picked here ({', '.join(picks)}); dashed: the "
               f"{target:.0%} target." if picks else
               f"Dashed: the {target:.0%} target. Add auto to the methods to see which method it picks.")
    for line in F.reading(front, target):
        st.caption(line)


# ---------------------------------------------------------------- results
def _show_results(results: pd.DataFrame, reports: dict, experiment: dict) -> None:
    eps_values = sorted(results["epsilon"].unique())
    log_y = st.checkbox("Log scale for errors", value=True, key="cmp_log",
                        help="Errors span orders of magnitude across methods and epsilons.")
    e = st.select_slider("Epsilon shown in the box plots", eps_values, value=eps_values[0], key="cmp_box_eps") \
        if len(eps_values) > 1 else eps_values[0]
    st.plotly_chart(charts.error_boxes(results, e, log_y), width="stretch", key="cmp_boxes")
    st.caption(f"Each box: the {charts.ERROR_LABEL} over all queries and trials.")
    if len(eps_values) > 1:
        frontier_view(results, log_y, reports)
    st.plotly_chart(charts.build_times(results), width="stretch", key="cmp_times")
    st.caption("Build times on this machine (shared cores: treat them as rough).")
    with st.expander("Summary table"):
        st.dataframe(charts.summary_table(results), hide_index=True)
    c1, c2 = st.columns(2)
    c1.download_button("Download the error table (CSV)", charts.results_csv(results), "comparison.csv",
                       "text/csv", key="cmp_csv")
    c2.download_button("Download summary + privacy reports (JSON)", charts.results_json(results, experiment, reports),
                       "comparison.json", "application/json", key="cmp_json")
    st.caption("Exports hold estimates, true answers of the queries and errors, plus each build's ledger; "
               "no query rectangles and no data points.")


def render() -> None:
    st.title("Compare methods")
    st.caption("The accuracy lab: how far are private answers from the truth, per method, epsilon and query shape?")
    source = st.selectbox("Data", _sources(), key="cmp_source")
    st.caption("The points whose range counts are queried; the domain is the data set's declared public bounds.")
    try:
        loaded = _data(source)
    except (PsdvizError, FileNotFoundError) as exc:
        st.error(f"Could not load the data: {words.file_text(exc)}")
        return
    if loaded is None:
        st.info("Upload a histogram to continue (the DPBench preset reruns docs/reproduction/dpbench.md on it).")
        return
    xy, domain, fp = loaded
    st.caption(f"{len(xy):,} points; domain x [{domain.xmin:g}, {domain.xmax:g}], "
               f"y [{domain.ymin:g}, {domain.ymax:g}].")
    preset = st.selectbox("Preset", [CUSTOM] + list(PRESETS), key="cmp_preset",
                          format_func=lambda k: k if k == CUSTOM else PRESETS[k].title)
    st.caption("A preset re-runs a paper's headline comparison on the loaded data.")
    try:
        if preset == CUSTOM:
            variants, epsilons, workload = _custom_controls(domain, fp)
        else:
            variants, epsilons, workload = _preset_controls(preset, domain)
        trials = st.slider("Trials", 1, 20, 2, key="cmp_trials")
        st.caption("Each trial is a fresh private build; more trials show the spread caused by the noise.")
        seed = _randomness()
        variants, epsilons = C.check_grid(variants, epsilons)
        workload.check(domain)
        check_int(trials, "trials", 1, C.MAX_TRIALS)
    except PsdvizError as exc:
        st.error(str(exc))
        return
    experiment = {"data": source, "fingerprint": fp, "methods": [v.__dict__ for v in variants],
                  "epsilons": epsilons, "workload": workload.__dict__, "trials": trials, "seed": seed,
                  "randomness": FRESH if seed is None else SEEDED, "preset": None if preset == CUSTOM else preset}
    key = _key(experiment)
    cells = len(variants) * len(epsilons)
    if st.button(f"Run comparison ({cells} builds x {trials} trial(s))", type="primary", key="cmp_run_btn"):
        st.session_state[keys.CMP_RUN] = key
        st.session_state[keys.CMP_NONCE] = st.session_state.get(keys.CMP_NONCE, 0) + 1   # fresh: new noise per press
    if st.session_state.get(keys.CMP_RUN) != key:
        if st.session_state.get(keys.CMP_RUN):
            st.info("The inputs changed since the last run: press Run to compare again.")
        return
    nonce = st.session_state.get(keys.CMP_NONCE, 0) if seed is None else 0
    if seed is None:
        st.caption("Fresh randomness: press Run again for new queries and new noise.")
    try:
        results, reports = run_with_progress(xy, domain, fp, variants, epsilons, workload, trials, seed, nonce)
    except PsdvizError as exc:
        st.error(str(exc))
        return
    _show_results(results, reports, experiment)


if __name__ == "__main__":
    render()
