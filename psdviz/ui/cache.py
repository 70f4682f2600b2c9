"""Cached engine calls: one build per (data fingerprint, domain, parameters, randomness).

Releases are kept in a small process-wide cache (:class:`SharedCache`, shared by sessions like
``st.cache_resource`` but outside Streamlit's caching, because a build draws its progress bar as it
goes and Streamlit forbids a cached function to write to elements created outside it).
Caching is also a privacy matter: with fresh randomness a rerun must not re-noise the data (each
new release spends epsilon again); a new release is drawn only when the user asks for new noise.
"""
from __future__ import annotations

import threading
import time
import warnings
from collections import OrderedDict

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


class SharedCache:
    """Up to ``size`` releases by key, least recently used dropped first; one lock, so two sessions
    asking for the same new release build it once."""

    def __init__(self, size: int = 8):
        self.size, self.items, self.lock = size, OrderedDict(), threading.Lock()

    def get_or_build(self, key: str, make):
        with self.lock:
            if key in self.items:
                self.items.move_to_end(key)
                return self.items[key]
            rel = make()
            self.items[key] = rel
            while len(self.items) > self.size:
                self.items.popitem(last=False)
            return rel


RELEASES = SharedCache()


def _build(_data: Dataset, domain: tuple, _spec: BuildSpec, _progress=None) -> pv.Release:
    user = {} if _data.user is None else {"user": _data.user, "max_points_per_user": _data.max_points_per_user}
    with warnings.catch_warnings():   # the map page tells the owner itself, as an error beside the controls
        warnings.simplefilter("ignore", pv.EmptyReleaseWarning)
        warnings.simplefilter("ignore", pv.NoiseDominatesWarning)     # the map page says it beside the map
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
            return RELEASES.get_or_build(release_id(data, spec),
                                         lambda: _build(data, _dom(data.domain), spec, bar))
    finally:
        bar.clear()


def truth_index(data: Dataset) -> pv.PointIndex:
    """Exact counting index over the points inside the domain (teaching views only, never published)."""
    return _truth(data.fingerprint, _dom(data.domain), data.xy)


def release_id(data: Dataset, spec: BuildSpec) -> str:
    return f"{data.fingerprint}|{_dom(data.domain)}|{spec.key}"
