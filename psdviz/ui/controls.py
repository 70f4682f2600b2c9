"""Build controls: method, epsilon, the method's own parameters (read generically), randomness.

Parameters come from ``psdviz.method_parameters(method)`` (names and the paper defaults), so new
methods appear without UI changes. Each widget carries a one-line explanation for a student.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field

import streamlit as st

import psdviz as pv

EPSILONS = [0.01, 0.02, 0.03, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0]  # 0.01 .. 10, log scale
EPS_MIN, EPS_MAX = 0.01, 10.0
BUDGET_PLANS = ("uniform", "geometric", "leaf")

EXPLAIN = {
    "epsilon": "Privacy loss: smaller epsilon = more noise = stronger privacy. Any one person changes "
               "what is published by a factor of at most e^epsilon.",
    "height": "Number of levels below the root. Deeper trees give smaller cells but split the "
              "budget over more levels (more noise per count).",
    "budget": "How epsilon is split over levels: uniform (same at every level), geometric (more to the "
              "deeper levels, which minimises query error; Cormode et al. Lemma 3), or leaf (all on the leaves).",
    "postprocess": "Make the noisy counts consistent (each parent = sum of its children) by least "
                   "squares. Uses released values only, so it costs no privacy and lowers error.",
    "prune": "After post-processing, cut the subtrees of nodes whose count is below this threshold "
             "(empty areas stop early). Leave unset to keep the full tree.",
    "count_fraction": "Share of epsilon spent on noisy counts; the rest pays for the private split points "
                      "(medians) of data-dependent trees.",
    "grid_size": "Cells per side. Unset = the paper's formula m = sqrt(N * epsilon / c) with N estimated "
                 "privately (or the public N below).",
    "n_public": "Declare the number of points public (then N costs no budget). Leave unset if N is private.",
    "n_fraction": "Share of epsilon used to estimate N privately when a formula needs it.",
    "c": "Constant in the grid-size formula (the paper suggests 10).",
    "seed": "Fresh randomness for real releases; a seed makes a lesson reproducible (and is labelled so).",
}


@dataclass(frozen=True)
class BuildSpec:
    method: str
    epsilon: float
    params: dict = field(default_factory=dict)
    seed: int | None = None
    nonce: int = 0        # fresh randomness: bumped by "draw new noise"; part of the cache key

    @property
    def key(self) -> str:
        return json.dumps([self.method, self.epsilon, self.params, self.seed, self.nonce], sort_keys=True,
                          default=str)


def method_label(m: str) -> str:
    return f"{m} (not private: reference)" if m in pv.REFERENCES else m


def _number(name: str, default, key: str):
    """An optional number: unset (None) keeps the paper's formula/default."""
    if default is None:
        on = st.checkbox(f"set {name}", value=False, key=f"{key}_on", help=EXPLAIN.get(name))
        if not on:
            return None
        is_int = name in ("grid_size", "n_public", "height")
        return st.number_input(name, value=10 if is_int else 0.0, step=1 if is_int else None,
                               key=key, help=EXPLAIN.get(name))
    if isinstance(default, int):
        return int(st.number_input(f"{name} (paper default {default})", value=default, step=1, key=key,
                                   help=EXPLAIN.get(name)))
    return float(st.number_input(f"{name} (paper default {default:g})", value=float(default), key=key,
                                 help=EXPLAIN.get(name), format="%.4g"))


def parameter_widget(method: str, name: str, default):
    key = f"p_{method}_{name}"
    if isinstance(default, bool):
        return st.checkbox(name, value=default, key=key, help=EXPLAIN.get(name))
    if name == "budget":
        return st.selectbox("budget plan per level", BUDGET_PLANS, index=BUDGET_PLANS.index(default)
                            if default in BUDGET_PLANS else 0, key=key, help=EXPLAIN["budget"])
    if name.endswith("fraction") and isinstance(default, float):
        return st.slider(name, 0.05, 0.95, float(default), 0.05, key=key, help=EXPLAIN.get(name))
    if default is None or isinstance(default, (int, float)):
        return _number(name, default, key)
    return st.text_input(name, value=str(default), key=key, help=EXPLAIN.get(name, "method parameter"))


def choose_build() -> BuildSpec:
    """Sidebar widgets -> BuildSpec (values only; validation is the engine's)."""
    options = list(pv.METHODS) + list(pv.REFERENCES)
    method = st.selectbox("Method", options, index=options.index("quadtree") if "quadtree" in options else 0,
                          format_func=method_label, key="method",
                          help="How the domain is cut into cells and which counts get noise.")
    if method in pv.REFERENCES:
        st.warning("Not private: a teaching reference showing the cost of privacy. It cannot be exported.")
    epsilon = st.select_slider("epsilon (privacy budget)", EPSILONS, value=0.5, key="epsilon",
                               help=EXPLAIN["epsilon"])
    if st.checkbox("type epsilon", key="eps_typed_on", help="Any value from 0.01 to 10."):
        epsilon = st.number_input("epsilon", value=float(epsilon), key="eps_typed", format="%.4g")
    st.caption(EXPLAIN["epsilon"])
    params = {}
    with st.expander("Method parameters", expanded=False):
        for name, default in pv.method_parameters(method).items():
            value = parameter_widget(method, name, default)
            if value != default:
                params[name] = value
    mode = st.radio("Randomness", ["fresh", "seed"], horizontal=True, key="rand_mode", help=EXPLAIN["seed"])
    seed = None
    if mode == "seed":
        seed = int(st.number_input("seed", min_value=0, value=7, step=1, key="seed"))
    nonce = st.session_state.setdefault("nonce", 0)
    if mode == "fresh" and st.button("Draw new noise", key="renoise",
                                     help="A new release with fresh noise (each release costs epsilon again)."):
        st.session_state["nonce"] = nonce = nonce + 1
    return BuildSpec(method, float(epsilon), params, seed, nonce)


def check_spec(spec: BuildSpec) -> str | None:
    """The app's own range for epsilon (the engine accepts more): a message, or None if fine."""
    if not EPS_MIN <= spec.epsilon <= EPS_MAX:
        return f"epsilon must be between {EPS_MIN} and {EPS_MAX} (got {spec.epsilon:g})"
    return None
