"""Counts over time in the classroom: why one release per window, at the same total epsilon, is noisier than a
release over time, and the owner's true series beside the private one.

- :func:`range_errors`: the noise standard error of a range of r windows of one cell, for a release over time
  and for T independent per-window releases at epsilon / T each (a user bounded to m events a window, so each
  window's counts have sensitivity m: sequential composition over the windows, as a budget file adds them up).
  Both come from public quantities only (T, epsilon, the bounds, the release's time model): exact, no data.
- :func:`per_window_releases`: the T per-window releases built for real (``pv.build``, UG on the release's own
  grid of cells, user-level at epsilon / T): what a publisher would do today.
- :func:`true_series`: the exact count of a rectangle in every window (NOT private: the data owner's view).
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from ..api import build
from ..core.errors import ParameterError
from ..core.noise import geometric_variance
from ..temporal import TimeRelease


def range_errors(release: TimeRelease, per_window_bound: int = 1, lengths=None) -> pd.DataFrame:
    """For ranges of ``lengths`` windows (default 1, 7, 30 and the span, those that fit): the mean noise standard
    error of one cell's count under ``release`` and under per-window releases at epsilon / T with sensitivity
    ``per_window_bound``, and their ratio."""
    t = release.windows
    lengths = sorted({min(r, t) for r in (lengths or (1, 7, 30, t))})
    per_window_var = float(geometric_variance(release.epsilon / t, per_window_bound))
    rows = []
    for r in lengths:
        starts = np.unique(np.linspace(0, t - r, min(12, t - r + 1)).astype(np.int64))
        idx = np.arange(t)
        q = ((idx >= starts[:, None]) & (idx < starts[:, None] + r)).astype(float)
        mine = float(np.sqrt(release.model.variance(q).mean()))
        theirs = float(np.sqrt(r * per_window_var))
        rows.append({"windows": r, "this release": mine, "per-window releases": theirs, "ratio": theirs / mine})
    return pd.DataFrame(rows)


def per_window_releases(xy: np.ndarray, window: np.ndarray, user, release: TimeRelease,
                        per_window_bound: int = 1, seed=None) -> list:
    """T spatial releases, one per window (``window``: each point's window index), on the uniform grid of the
    release's partition (UG with grid_size 2^level), each at epsilon / T, user-level with ``per_window_bound``
    events a user when ``user`` is given. Refused for a partition that is not one uniform level."""
    levels = np.unique(release.partition.level)
    if levels.size != 1:
        raise ParameterError("per-window releases are built on a uniform grid partition (partition='grid')")
    t = release.windows
    out = []
    rng = np.random.default_rng(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for w in range(t):
            sel = window == w
            kw = {} if user is None else {"user": np.asarray(user)[sel], "max_points_per_user": per_window_bound}
            out.append(build(xy[sel], release.partition.grid.domain, "ug", release.epsilon / t,
                             seed=None if seed is None else int(rng.integers(2 ** 31)), grid_size=1 << int(levels[0]),
                             resolution=release.partition.grid.bits, **kw))
    return out


def per_window_series(releases: list, rect) -> pd.DataFrame:
    """A rectangle's estimate and noise standard error in each of the per-window releases."""
    q = np.asarray(rect, float).reshape(1, 4)
    return pd.DataFrame({"estimate": [float(r.answer(q)[0]) for r in releases],
                         "standard_error": [float(np.sqrt(r.answer_variance(q)[0])) for r in releases]})


def true_series(xy: np.ndarray, window: np.ndarray, windows: int, rect) -> np.ndarray:
    """The exact number of points of ``rect`` [x0, y0, x1, y1] in each window (NOT private)."""
    x0, y0, x1, y1 = (float(v) for v in rect)
    inside = (xy[:, 0] >= x0) & (xy[:, 0] <= x1) & (xy[:, 1] >= y0) & (xy[:, 1] <= y1) & (window >= 0)
    return np.bincount(window[inside], minlength=windows)[:windows]
