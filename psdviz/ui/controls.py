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
from typing import cast

import streamlit as st

import psdviz as pv
from psdviz.present import (
    BUILD,
    DEFAULT_RESOLUTION,
    MAX_RESOLUTION,
    ParamInfo,
    accepts_workload,
    parameter_info,
    suggested_value,
)

from . import keys

EPSILONS = [0.01, 0.02, 0.03, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0]  # 0.01 .. 10, log scale
EPS_MIN, EPS_MAX = 0.01, 10.0
UNSET_FORMULA = "the paper's formula"
FALLBACK: dict[str, int] = {}   # prefill of an unset data-dependent value with no published hint
LAST_PARAMS_KEY = keys.LAST_PARAMS


def explain(method: str, name: str) -> str:
    """The one-line explanation of a method parameter, from the engine's declaration."""
    return parameter_info(method)[name].meaning


def build_help(name: str) -> str:
    """The explanation of one of pv.build's own inputs (epsilon, seed, resolution), from the engine."""
    return BUILD[name].meaning


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


def auto_rule_sentence() -> str:
    """What ``method="auto"`` does, in one sentence a teacher can read aloud."""
    from psdviz.present import FEATURE_FRACTION
    return (f"auto spends a small part of epsilon ({FEATURE_FRACTION:.0%}) on a few noisy facts about the points "
            "(roughly how many there are and how crowded they are) and picks the method that suits data like "
            "that; the release says what it picked and why.")


def auto_rule_text() -> str:
    """What ``method="auto"`` does, in full: the facts it measures and its rule table (its pick depends on
    noisy facts, so it is known only after the build; the release's first note says what it picked and
    why)."""
    from psdviz.present import FEATURE_FRACTION, RULES
    rows = "; ".join(f"{r.label} when {r.when}" for r in RULES)
    return (f"auto spends {FEATURE_FRACTION:.0%} of epsilon on noisy facts (N, how spread the points are, "
            "the fullest corner cell's count on the release grid; the spread only from N eps = 10^4, where a "
            "rule reads it, its share otherwise going to the corner counts), about 0.5 % more for each fact only "
            "some of its rules use (the same corner count on the 256 x 256 grid on finer grids, the fullest line "
            "of cells, given queries how the points differ across them or along the edges through a corner), and "
            "none that no rule still to be "
            "checked needs (given queries, a rule for them may apply first, and N costs a quarter of its 1 %). "
            f"It picks {rows} ('+nnls': "
            "non-negative least squares over its counts, no epsilon; '/256': splits on the 256 x 256 grid first). "
            "The release says which it picked, why and what finding out cost.")


def _number(name: str, kind: str, value, key: str, text: str, label: str | None = None):
    """An integer or float input; integer parameters stay integers (also when prefilled)."""
    if kind == "int":
        return int(st.number_input(label or name, value=int(value), step=1, key=key, help=text))
    return float(st.number_input(label or name, value=float(value), key=key, help=text, format="%.4g"))


def _optional_number(method: str, info: ParamInfo, key: str, chosen: dict, hint):
    """A parameter that may be None: a checkbox switches it on or off.

    Switched on, it is prefilled with the engine's effective value (e.g. switch = height // 4),
    else with ``hint`` (the value a previous release published), else a plain fallback."""
    text = info.meaning
    on_by_default = info.default is not None
    label = (f"use {info.name} (paper default {info.default:g})" if on_by_default
             else f"set {info.name} (unset: {info.when_none or UNSET_FORMULA})")
    if not st.checkbox(label, value=on_by_default, key=f"{key}_on", help=text):
        return None
    if info.public_fact:   # never prefilled: setting it publishes a fact (N), so the user types it
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
    name, default, text = info.name, info.default, info.meaning
    key = f"p_{method}_{name}"
    if info.kind == "bool":
        return st.checkbox(name, value=bool(default), key=key, help=text)
    if info.kind == "choice":
        return st.selectbox(info.label or name, info.choices, key=key, help=text,
                            index=info.choices.index(default) if default in info.choices else 0)
    if info.optional:
        return _optional_number(method, info, key, chosen or {}, hint)
    if info.share:
        return st.slider(name, 0.05, 0.95, float(cast(float, default)), 0.05, key=key, help=text)
    if info.kind in ("int", "float"):
        return _number(name, info.kind, default, key, text, label=f"{name} (paper default {default:g})")
    return st.text_input(name, value=str(default), key=key, help=text)


def choose_build(beside_epsilon=None) -> BuildSpec:
    """Sidebar widgets -> BuildSpec (values only; validation is the engine's); ``beside_epsilon``: drawn
    right under the epsilon control (the map page's data set budget)."""
    options = list(pv.METHODS) + list(pv.REFERENCES)
    method = st.selectbox("Method", options, index=options.index("auto"), format_func=method_label, key="method",
                          help="How the domain is cut into cells and which counts get noise. auto: the "
                               "recommended private method, picked by a rule from two cheap noisy facts.")
    if method in pv.REFERENCES:
        st.warning("Not private: a teaching reference showing the cost of privacy. It cannot be exported.")
    epsilon = st.select_slider("epsilon (privacy budget)", EPSILONS, value=0.5, key="epsilon",
                               help=build_help("epsilon"))
    if st.checkbox("type epsilon", key="eps_typed_on", help="Any value from 0.01 to 10."):
        epsilon = st.number_input("epsilon", value=float(epsilon), key="eps_typed", format="%.4g")
    st.caption(build_help("epsilon"))
    if beside_epsilon is not None:
        beside_epsilon()
    if method == "auto":
        st.caption(auto_rule_sentence())
        with st.expander("How auto decides"):
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
                                         step=1, key="resolution", help=build_help("resolution")))
    workload = drawn_workload(method)
    if workload:
        params["workload"] = workload
    mode = st.radio("Randomness", ["fresh", "seed"], horizontal=True, key="rand_mode", help=build_help("seed"))
    seed = None
    if mode == "seed":
        seed = int(st.number_input("seed", min_value=0, value=7, step=1, key="seed"))
    nonce = st.session_state.setdefault(keys.NONCE, 0)
    if mode == "fresh" and st.button("Draw new noise", key="renoise",
                                     help="A new release with fresh noise (each release costs epsilon again)."):
        st.session_state[keys.NONCE] = nonce = nonce + 1
    return BuildSpec(method, float(epsilon), params, seed, nonce, resolution)


def choose_randomness(prefix: str, what: str) -> tuple[int | None, int]:
    """The randomness control of the lab pages, labelled as on the map page.

    Returns (None, nonce) for fresh randomness (OS entropy; the nonce, bumped by "Draw new noise",
    belongs in the cache key so a rerun keeps the release) or (seed, 0) for a reproducible lesson."""
    mode = st.radio("Randomness", ["fresh", "seed"], horizontal=True, key=f"{prefix}_rand", help=build_help("seed"))
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


def drawn_workload(method: str) -> list[list[float]] | None:
    """The rectangles queried so far on this data, as the workload of a method that plans for one (the quadtree,
    the hybrid, the strategy, auto) when the user asks for it (``pv.build(..., workload=...)``: the measurements
    planned for them; public input, recorded in the release)."""
    if not accepts_workload(method):
        return None
    drawn = {(h["xmin"], h["ymin"], h["xmax"], h["ymax"]) for h in st.session_state.get(keys.COMPARISONS, [])}
    if not drawn:
        return None
    text = (f"Plan the release for the {len(drawn)} rectangle{'s' * (len(drawn) > 1)} queried so far: epsilon "
            "goes to the measurements those queries use (the release records them and answers any other).")
    if not st.checkbox(f"Plan for my {len(drawn)} queries", key="plan_workload", help=text):
        return None
    return [list(map(float, r)) for r in sorted(drawn)]


def check_spec(spec: BuildSpec) -> str | None:
    """The app's own range for epsilon (the engine accepts more): a message, or None if fine."""
    if not EPS_MIN <= spec.epsilon <= EPS_MAX:
        return f"epsilon must be between {EPS_MIN} and {EPS_MAX} (got {spec.epsilon:g})"
    return None
