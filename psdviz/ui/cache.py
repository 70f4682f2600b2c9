"""Cached engine calls: one build per (data fingerprint, domain, parameters, randomness).

``st.cache_resource`` keeps the Release object itself (it holds closures, so it is not pickled).
Caching is also a privacy matter: with fresh randomness a rerun must not re-noise the data (each
new release spends epsilon again); a new release is drawn only when the user asks for new noise.
"""
from __future__ import annotations

import time

import numpy as np
import streamlit as st

import psdviz as pv

from .controls import BuildSpec
from .data_input import Dataset


def _dom(d: pv.Domain) -> tuple:
    return (d.xmin, d.ymin, d.xmax, d.ymax)


class ProgressBar:
    """The build's progress callback: a bar appears once the build has taken ``delay`` seconds
    (quick builds keep only the spinner), showing the passes done; :meth:`clear` removes it."""

    def __init__(self, delay: float = 1.0, clock=time.monotonic):
        self.start, self.delay, self.clock = clock(), delay, clock
        self.slot = st.empty()
        self.shown = False

    def __call__(self, done: int, total: int, what: str) -> None:
        if self.clock() - self.start < self.delay:
            return
        self.shown = True
        self.slot.progress(min(1.0, done / max(total, 1)), text=f"{what}: {done} of {total}")

    def clear(self) -> None:
        self.slot.empty()


@st.cache_resource(max_entries=8, show_spinner=False)
def _build(fp: str, domain: tuple, spec_key: str, _data: Dataset, _spec: BuildSpec, _progress=None) -> pv.Release:
    user = {} if _data.user is None else {"user": _data.user, "max_points_per_user": _data.max_points_per_user}
    return pv.build(_data.xy, pv.Domain(*domain), method=_spec.method, epsilon=_spec.epsilon, seed=_spec.seed,
                    outside="drop", nonfinite="drop", resolution=_spec.resolution, progress=_progress,
                    **user, **_spec.params)


@st.cache_resource(max_entries=4, show_spinner=False)
def _truth(fp: str, domain: tuple, _xy: np.ndarray) -> pv.PointIndex:
    return pv.PointIndex(pv.prepare_points(_xy, pv.Domain(*domain), outside="drop", nonfinite="drop").xy)


def build_release(data: Dataset, spec: BuildSpec) -> pv.Release:
    """The (cached) release; raises ValueError with the engine's message on bad parameters."""
    bar = ProgressBar()
    try:
        with st.spinner(f"Building {spec.method} (epsilon {spec.epsilon:g})...", show_time=True):
            return _build(data.fingerprint, _dom(data.domain), spec.key, data, spec, bar)
    finally:
        bar.clear()


def truth_index(data: Dataset) -> pv.PointIndex:
    """Exact counting index over the points inside the domain (teaching views only, never published)."""
    return _truth(data.fingerprint, _dom(data.domain), data.xy)


def release_id(data: Dataset, spec: BuildSpec) -> str:
    return f"{data.fingerprint}|{_dom(data.domain)}|{spec.key}"
