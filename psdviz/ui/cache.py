"""Cached engine calls: one build per (data fingerprint, domain, parameters, randomness).

A session's releases belong to that session (:func:`session_releases`, in its ``st.session_state``):
kept until the session ends, so going back to earlier inputs shows the release seen before, never a
silent redraw (a redraw is a new draw the user may have quoted, and averaging redraws averages the noise
away). Seeded builds are also shared across sessions in a process-wide cache (:class:`SharedCache`)
sized in bytes, with one future per key instead of one lock: a build never blocks another key's hit or
build, and two sessions asking for the same seeded build at once build it once. Fresh builds are never
shared. Caching is also a privacy matter: with fresh randomness a rerun must not re-noise the data (each
new release spends epsilon again); a new release is drawn only when the user asks for new noise.
(docs/decisions/classroom.md)
"""
from __future__ import annotations

import threading
import time
import warnings
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from typing import Any

import numpy as np
import streamlit as st

import psdviz as pv
from psdviz.present import PointSet

from .controls import BuildSpec
from .data_input import Dataset


def _dom(d: pv.Domain) -> tuple:
    return (d.xmin, d.ymin, d.xmax, d.ymax)


class ProgressBar:
    """A build's progress: a bar appears once the work has taken ``delay`` seconds (quick work shows
    nothing), with its stage ("Step 2 of 3: ...") and the engine's passes within it (``__call__`` is the
    engine's progress callback); :meth:`stage` moves to the next named stage; :meth:`clear` removes it."""

    def __init__(self, delay: float = 1.0, clock=time.monotonic, stages: Sequence[str] = ()):
        self.start, self.delay, self.clock = clock(), delay, clock
        self.slot = st.empty()
        self.shown = False
        self.stages, self.at = list(stages), 0

    def stage(self, i: int) -> None:
        """Stage ``i`` (of :attr:`stages`) begins."""
        self.at = i
        self(0, 1, "")

    def __call__(self, done: int, total: int, what: str) -> None:
        if self.clock() - self.start < self.delay:
            return
        self.shown = True
        share = min(1.0, done / max(total, 1))
        passes = f"{what}: {done} of {total}" if what else ""
        if not self.stages:
            self.slot.progress(share, text=passes)
            return
        head = f"Step {self.at + 1} of {len(self.stages)}: {self.stages[self.at]}"
        self.slot.progress(min(1.0, (self.at + share) / len(self.stages)),
                           text=f"{head} ({passes})" if passes else head)

    def clear(self) -> None:
        self.slot.empty()


def nbytes(obj) -> int:
    """Bytes an entry holds: a release's tree arrays (the bulk of it), else a rough fixed figure."""
    tree = getattr(obj, "tree", None)
    if tree is None:
        return 64 * 1024
    return sum(int(getattr(v, "nbytes", 0)) for v in vars(tree).values()) + 64 * 1024


class SharedCache:
    """Entries by key, least recently used dropped first once they hold more than ``max_bytes`` (or
    more than ``size`` entries). One future per key: the lock is held only to look up or register a
    key, never while building, so a build blocks neither another key's hit nor its build; two callers
    asking for the same key at once share one build."""

    def __init__(self, size: int = 256, max_bytes: int = 256 * 2**20, measure=nbytes):
        self.size, self.max_bytes, self.measure = size, max_bytes, measure
        self.items: OrderedDict = OrderedDict()
        self.sizes: dict = {}
        self.pending: dict[str, Future] = {}
        self.lock = threading.Lock()

    def get_or_build(self, key: str, make):
        with self.lock:
            if key in self.items:
                self.items.move_to_end(key)
                return self.items[key]
            waiting = self.pending.get(key)
            owner = waiting is None
            fut: Future = Future() if waiting is None else waiting
            if owner:
                self.pending[key] = fut
        if not owner:
            return fut.result()
        try:
            value = make()
        except BaseException as exc:
            with self.lock:
                self.pending.pop(key, None)
            fut.set_exception(exc)
            raise
        with self.lock:
            self.items[key] = value
            self.sizes[key] = self.measure(value)
            self.pending.pop(key, None)
            self._evict()
        fut.set_result(value)
        return value

    def _evict(self) -> None:
        while len(self.items) > 1 and (len(self.items) > self.size or sum(self.sizes.values()) > self.max_bytes):
            old, _ = self.items.popitem(last=False)
            self.sizes.pop(old, None)

    @property
    def bytes(self) -> int:
        return sum(self.sizes.values())


RELEASES = SharedCache()


def _build(_data: Dataset, domain: tuple, _spec: BuildSpec, _progress=None) -> pv.Release:
    user: dict[str, Any] = ({} if _data.user is None else
                            {"user": _data.user, "max_points_per_user": _data.max_points_per_user})
    points = (prepared_sample(_data.fingerprint, domain, _spec.resolution, _data.xy)
              if _data.bundled and _data.user is None else _data.xy)
    with warnings.catch_warnings():   # the map page tells the owner itself, as an error beside the controls
        warnings.simplefilter("ignore", pv.EmptyReleaseWarning)
        warnings.simplefilter("ignore", pv.NoiseDominatesWarning)     # the map page says it beside the map
        return pv.build(points, pv.Domain(*domain), method=_spec.method, epsilon=_spec.epsilon, seed=_spec.seed,
                        outside="drop", nonfinite="drop", resolution=_spec.resolution, progress=_progress,
                        **user, **_spec.params)


@st.cache_resource(max_entries=8, show_spinner=False)
def prepared_sample(fp: str, domain: tuple, resolution: int, _xy: np.ndarray) -> PointSet:
    """A bundled sample's points checked against the domain and quantised to the public grid, once per
    process for every session's builds (public data and public inputs only; each build draws its own noise
    and reads the same counts it would read from the array: :func:`psdviz.core.domain.reuse_points`)."""
    return pv.prepare_points(_xy, pv.Domain(*domain), outside="drop", nonfinite="drop", resolution=resolution)


@st.cache_resource(max_entries=4, show_spinner=False)
def _truth(fp: str, domain: tuple, _xy: np.ndarray) -> pv.PointIndex:
    return pv.PointIndex(pv.prepare_points(_xy, pv.Domain(*domain), outside="drop", nonfinite="drop").xy)


def session_releases() -> dict:
    """This session's releases by key: kept for the whole session (never evicted while it can return to
    them), released with the session's state when it ends."""
    return st.session_state.setdefault("psdviz_session_releases", {})


def owned(key: str, make: Callable[[], Any], seeded: bool) -> Any:
    """This session's value for ``key``: the one it made before (the same draw when the user comes back), else a
    seeded build from the shared cache (built once for every session asking) or a fresh one of its own."""
    mine = session_releases()
    if key not in mine:
        mine[key] = RELEASES.get_or_build(key, make) if seeded else make()
    return mine[key]


def build_release(data: Dataset, spec: BuildSpec) -> pv.Release:
    """The release for these inputs (:func:`owned`); raises ValueError with the engine's message on bad
    parameters."""
    key = release_id(data, spec)
    if key in session_releases():
        return session_releases()[key]
    bar = ProgressBar()
    try:
        with st.spinner(f"Building {spec.method} (epsilon {spec.epsilon:g})...", show_time=True):
            return owned(key, lambda: _build(data, _dom(data.domain), spec, bar), spec.seed is not None)
    finally:
        bar.clear()


def truth_index(data: Dataset) -> pv.PointIndex:
    """Exact counting index over the points inside the domain (teaching views only, never published)."""
    return _truth(data.fingerprint, _dom(data.domain), data.xy)


def release_id(data: Dataset, spec: BuildSpec) -> str:
    return f"{data.fingerprint}|{_dom(data.domain)}|{spec.key}"
