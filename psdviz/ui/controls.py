"""Build controls: method, epsilon, the method's own parameters (read generically), randomness.

Parameters come from the engine (:func:`psdviz.methods.param_info.parameter_info`: names, paper defaults,
types, the fixed value sets the builders validate against), so new methods appear without UI
changes and a select box cannot offer a value the engine refuses. Integer parameters are integer
inputs; parameters that accept None get an on/off switch (prefilled, when switched on, with the
engine's effective value). Each widget carries a one-line explanation for a student.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field

import streamlit as st

import psdviz as pv
from psdviz.core.grid import DEFAULT_RESOLUTION, MAX_RESOLUTION
from psdviz.methods.param_info import ParamInfo, parameter_info, suggested_value

EPSILONS = [0.01, 0.02, 0.03, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0]  # 0.01 .. 10, log scale
EPS_MIN, EPS_MAX = 0.01, 10.0
CHOICE_LABELS = {"pruning": "when to prune", "budget": "budget plan per level", "median": "private median method",
                 "variant": "h-tree variant"}
UNSET_MEANS = {"prune": "no pruning", "switch": "a quarter of the height", "n_public": "N stays private",
               "height": "chosen from N and epsilon"}
UNSET_FORMULA = "the paper's formula"
FALLBACK: dict[str, int] = {}   # prefill of an unset data-dependent value with no published hint
LAST_PARAMS_KEY = "psdviz_last_params"   # method -> the parameters its last release published

EXPLAIN = {
    "epsilon": "Privacy loss: smaller epsilon = more noise = stronger privacy. Any one person changes "
               "what is published by a factor of at most e^epsilon.",
    "height": "Number of levels below the root. Deeper trees give smaller cells but split the "
              "budget over more levels (more noise per count).",
    "budget": "How epsilon is split over levels: uniform (same at every level), geometric (more to the "
              "deeper levels, which minimises query error; Cormode et al. Lemma 3), or leaf (all on the leaves).",
    "postprocess": "Make the noisy counts consistent (each parent = sum of its children) by least "
                   "squares. Uses released values only, so it costs no privacy and lowers error.",
    "prune": "Cut the subtrees of nodes whose count is below this threshold (empty areas stop early). "
             "Switch off to keep the full tree.",
    "pruning": "When the prune threshold applies: build (kd-tree default: a node whose noisy count is small "
               "is not split and gets the budget of the levels below for one more count, as the ICDE'12 "
               "authors' code does) or after_ols (the paper's text: prune the complete tree after OLS).",
    "count_fraction": "Share of epsilon spent on noisy counts; the rest pays for the private split points "
                      "(medians) of data-dependent trees.",
    "switch": "Hybrid tree: the top levels split at private medians, the levels below at midpoints "
              "(free). Unset = a quarter of the height (best worst case in our DPBench sweeps; the paper "
              "found half-way best on its data).",
    "median": "How each private median is chosen: em (exponential mechanism, the paper's choice), smooth "
              "(smooth sensitivity, needs delta) or noisymean (a noisy average).",
    "sample_rate": "Compute the medians on a random sample of this share of the points: sampling "
                   "amplifies privacy (Theorem 7), so each median gets a larger effective epsilon.",
    "delta": "Small failure probability allowed by each smooth-sensitivity median ((epsilon, delta)-DP); "
             "the release's delta is this times the median levels, at most 0.001. Only used when median = smooth.",
    "order": "Hilbert curve order: points are snapped to a 2^order x 2^order grid before the curve "
             "orders them (18 is finer than any data here).",
    "grid": "kd-cell: points are first counted on a grid x grid lattice; medians are then found on those "
            "cell counts instead of on the points.",
    "grid_size": "Cells per side. Unset = the paper's formula m = sqrt(N * epsilon / c) with N estimated "
                 "privately (or the public N below).",
    "n_public": "Declare the number of points public (then N costs no budget). Leave unset if N is private.",
    "n_fraction": "Share of epsilon used to estimate N privately when a formula needs it.",
    "c": "Constant in the size formula sqrt(N * epsilon / c): larger c = fewer, bigger cells.",
    "alpha": "Adaptive grid: share of epsilon spent on the coarse first-level grid; the rest goes to "
             "the finer grids inside each cell.",
    "c2": "Adaptive grid: constant of the second-level size m2 = sqrt(N' * (1 - alpha) * epsilon / c2), "
          "N' = the cell's noisy count, rounded to the integer with the least modelled error (a cell is "
          "split 2 x 2 once that root passes sqrt 2).",
    "m1": "Adaptive grid: cells per side of the first-level grid. Unset = max(10, floor(sqrt(N * epsilon / c) / 4)).",
    "variant": "h-tree variant: standard (strips, then cells in each strip), composite (a coarse h-tree "
               "with a fine h-tree in each cell) or hybrid (a coarse h-tree with uniform grids inside).",
    "size": "h-tree: number of strips and of cells per strip (m). Unset = sqrt(N * epsilon / c) with N "
            "estimated privately.",
    "median_fraction": "h-tree: share of epsilon spent on the private split points (medians); the rest "
                       "pays for the counts.",
    "tree_fraction": "PrivTree: share of epsilon spent on deciding which cells to split; the rest pays "
                     "for the leaf counts.",
    "theta": "PrivTree: a cell is split while its (noisy, depth-biased) count exceeds theta (the paper uses 0).",
    "max_depth": "PrivTree: a safety cap on the depth (no privacy cost); the tree normally stops earlier.",
    "split_fraction": "kd-privtree: share of epsilon spent on choosing where each cell is cut (exponential "
                      "mechanism over a few grid positions); the rest of the budget goes to the split tests and "
                      "counts.",
    "split_levels": "kd-privtree: how many top depths choose their cut privately (the budget is split evenly "
                    "between them); deeper cells are cut at the middle of their longer side, for free.",
    "seed": "Fresh randomness for real releases; a seed makes a lesson reproducible (and is labelled so).",
    "resolution": "Every published coordinate lies on a public grid of 2^k positions per axis, fixed before "
                  "the data are seen (no float can leak a data value); it is also the data's precision: no "
                  "cell is narrower than one step. 20 is about 38 m on the world; 8 for data on a 256 x 256 grid.",
}
# the same name means something slightly different in some methods
EXPLAIN_FOR = {
    ("htree", "c"): "h-tree: constant in the size formula m = sqrt(N * epsilon / c) (the paper's c = 3).",
    ("ag", "c"): "Adaptive grid: constant of the first-level size m1 = sqrt(N * epsilon / c) / 4 (the paper's 10).",
    ("quadtree", "c"): "Quadtree: constant of the height rule h = ceil(log4(N * epsilon / c)); a leaf then holds "
                       "about c / epsilon points, a few noise standard deviations.",
    ("quadtree", "height"): "Levels below the root. Unset: chosen from N and epsilon, h = ceil(log4(N * epsilon / c)) "
                            "(quad-opt); deeper trees give smaller cells but more noise per cell.",
    ("kd-privtree", "tree_fraction"): "kd-privtree: share of epsilon spent on PrivTree's tests of which cells to "
                                      "split; split_fraction pays for where, the rest for the leaf counts.",
    ("kd-privtree", "theta"): "kd-privtree: a cell is split while its (noisy, depth-biased) count exceeds theta "
                              "(PrivTree's rule; 0 as in the paper).",
    ("kd-privtree", "max_depth"): "kd-privtree: a safety cap on the depth of the binary tree (no privacy cost).",
    ("hybrid", "height"): "Levels below the root. Unset: the quadtree's rule h = ceil(log4(N * epsilon / 10)), "
                          "at most the paper's 8 (its lower levels are quadtree levels); N public or estimated.",
}


def explain(method: str, name: str) -> str:
    """The one-line explanation of a method parameter."""
    return EXPLAIN_FOR.get((method, name), EXPLAIN.get(name, "method parameter"))


@dataclass(frozen=True)
class BuildSpec:
    method: str
    epsilon: float
    params: dict = field(default_factory=dict)
    seed: int | None = None
    nonce: int = 0        # fresh randomness: bumped by "draw new noise"; part of the cache key
    resolution: int = DEFAULT_RESOLUTION   # bits per axis of the public grid every coordinate lies on

    @property
    def key(self) -> str:
        return json.dumps([self.method, self.epsilon, self.params, self.seed, self.nonce, self.resolution],
                          sort_keys=True, default=str)


def method_label(m: str) -> str:
    if m == "auto":
        return "auto (recommended)"
    return f"{m} (not private: reference)" if m in pv.REFERENCES else m


def auto_rule_text() -> str:
    """What ``method="auto"`` does, in one line (its pick depends on noisy facts, so it is known
    only after the build; the release's first note says what it picked and why)."""
    from psdviz.methods.auto import FEATURE_FRACTION, RULES
    rows = "; ".join(f"{r.label} when {r.when}" for r in RULES)
    return (f"auto spends {FEATURE_FRACTION:.0%} of epsilon on three noisy facts (N, how spread the points "
            f"are, the fullest corner cell's count) and picks {rows} ('+nnls': non-negative least squares "
            "over its counts, no epsilon). The release says which it picked and why.")


def _number(name: str, kind: str, value, key: str, text: str, label: str | None = None):
    """An integer or float input; integer parameters stay integers (also when prefilled)."""
    if kind == "int":
        return int(st.number_input(label or name, value=int(value), step=1, key=key, help=text))
    return float(st.number_input(label or name, value=float(value), key=key, help=text, format="%.4g"))


def _optional_number(method: str, info: ParamInfo, key: str, chosen: dict, hint):
    """A parameter that may be None: a checkbox switches it on or off.

    Switched on, it is prefilled with the engine's effective value (e.g. switch = height // 4),
    else with ``hint`` (the value a previous release published), else a plain fallback."""
    text = explain(method, info.name)
    on_by_default = info.default is not None
    label = (f"use {info.name} (paper default {info.default:g})" if on_by_default
             else f"set {info.name} (unset: {UNSET_MEANS.get(info.name, UNSET_FORMULA)})")
    if not st.checkbox(label, value=on_by_default, key=f"{key}_on", help=text):
        return None
    if info.name == "n_public":   # never prefilled: declaring N publishes it, so the user types it
        typed = st.number_input("N (declared public)", min_value=1, value=None, step=1, key=key, help=text,
                                placeholder="type the public number of points")
        st.caption("This publishes N: the release states it exactly. Leave it empty to keep N private.")
        return None if typed is None else int(typed)
    value = info.default if on_by_default else suggested_value(method, info.name, chosen)
    if value is None:
        value = hint if hint is not None else FALLBACK.get(info.name, 10)
    return _number(info.name, info.kind, value, key, text)


def parameter_widget(method: str, info: ParamInfo, chosen: dict | None = None, hint=None):
    """The widget of one method parameter, typed by the engine (:func:`psdviz.methods.param_info.parameter_info`).

    ``chosen`` = the values picked above it (for effective defaults), ``hint`` = the value a previous
    release published for it (prefill of data-dependent sizes such as grid_size)."""
    name, default, text = info.name, info.default, explain(method, info.name)
    key = f"p_{method}_{name}"
    if info.kind == "bool":
        return st.checkbox(name, value=bool(default), key=key, help=text)
    if info.kind == "choice":
        return st.selectbox(CHOICE_LABELS.get(name, name), info.choices, key=key, help=text,
                            index=info.choices.index(default) if default in info.choices else 0)
    if info.optional:
        return _optional_number(method, info, key, chosen or {}, hint)
    if info.kind == "float" and name.endswith("fraction"):
        return st.slider(name, 0.05, 0.95, float(default), 0.05, key=key, help=text)
    if info.kind in ("int", "float"):
        return _number(name, info.kind, default, key, text, label=f"{name} (paper default {default:g})")
    return st.text_input(name, value=str(default), key=key, help=text)


def choose_build() -> BuildSpec:
    """Sidebar widgets -> BuildSpec (values only; validation is the engine's)."""
    options = list(pv.METHODS) + list(pv.REFERENCES)
    method = st.selectbox("Method", options, index=options.index("auto"), format_func=method_label, key="method",
                          help="How the domain is cut into cells and which counts get noise. auto: the "
                               "recommended private method, picked by a rule from two cheap noisy facts.")
    if method in pv.REFERENCES:
        st.warning("Not private: a teaching reference showing the cost of privacy. It cannot be exported.")
    epsilon = st.select_slider("epsilon (privacy budget)", EPSILONS, value=0.5, key="epsilon",
                               help=EXPLAIN["epsilon"])
    if st.checkbox("type epsilon", key="eps_typed_on", help="Any value from 0.01 to 10."):
        epsilon = st.number_input("epsilon", value=float(epsilon), key="eps_typed", format="%.4g")
    st.caption(EXPLAIN["epsilon"])
    if method == "auto":
        st.caption(auto_rule_text())
    params = {}
    hints = st.session_state.get(LAST_PARAMS_KEY, {}).get(method, {})
    with st.expander("Method parameters", expanded=False):
        chosen: dict = {}
        for name, info in parameter_info(method).items():
            chosen[name] = value = parameter_widget(method, info, chosen, hints.get(name))
            if value != info.default:
                params[name] = value
        resolution = int(st.number_input("resolution (bits per axis)", 1, MAX_RESOLUTION, DEFAULT_RESOLUTION,
                                         step=1, key="resolution", help=EXPLAIN["resolution"]))
    mode = st.radio("Randomness", ["fresh", "seed"], horizontal=True, key="rand_mode", help=EXPLAIN["seed"])
    seed = None
    if mode == "seed":
        seed = int(st.number_input("seed", min_value=0, value=7, step=1, key="seed"))
    nonce = st.session_state.setdefault("nonce", 0)
    if mode == "fresh" and st.button("Draw new noise", key="renoise",
                                     help="A new release with fresh noise (each release costs epsilon again)."):
        st.session_state["nonce"] = nonce = nonce + 1
    return BuildSpec(method, float(epsilon), params, seed, nonce, resolution)


def choose_randomness(prefix: str, what: str) -> tuple[int | None, int]:
    """The randomness control of the lab pages, labelled as on the map page.

    Returns (None, nonce) for fresh randomness (OS entropy; the nonce, bumped by "Draw new noise",
    belongs in the cache key so a rerun keeps the release) or (seed, 0) for a reproducible lesson."""
    mode = st.radio("Randomness", ["fresh", "seed"], horizontal=True, key=f"{prefix}_rand", help=EXPLAIN["seed"])
    if mode == "seed":
        seed = int(st.number_input("seed", 0, 2**31 - 1, 0, key=f"{prefix}_seed"))
        st.caption(f"Seeded: the same seed gives the same {what} (reproducible for a lesson; labelled so in "
                   "the export).")
        return seed, 0
    nonce = st.session_state.setdefault(f"{prefix}_nonce", 0)
    if st.button("Draw new noise", key=f"{prefix}_renoise",
                 help=f"A new {what} with fresh noise (each release costs epsilon again)."):
        st.session_state[f"{prefix}_nonce"] = nonce = nonce + 1
    st.caption(f"Fresh: noise from OS entropy, as a real release would use; the {what} is kept until you draw "
               "new noise.")
    return None, nonce


def check_spec(spec: BuildSpec) -> str | None:
    """The app's own range for epsilon (the engine accepts more): a message, or None if fine."""
    if not EPS_MIN <= spec.epsilon <= EPS_MAX:
        return f"epsilon must be between {EPS_MIN} and {EPS_MAX} (got {spec.epsilon:g})"
    return None
