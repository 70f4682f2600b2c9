"""The validation of input points against the public domain (:class:`.bounds.Domain`; docs/design.md: the
domain is public input).

Bounds are never derived from the data silently: the user declares them (or picks a sample's
declared domain, or the world). Points outside are clipped onto the boundary or dropped, and the
count is reported; rows with NaN/inf are refused with a count unless the caller asks to drop them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from .bounds import Domain
from .errors import InputDataError
from .grid import DEFAULT_RESOLUTION, Grid, check_resolution
from .source import Keyer, KeySource, RowIds, group_counts

OUTSIDE_MODES = ("drop", "clip")
NONFINITE_MODES = ("error", "drop")


@dataclass(frozen=True)
class PointSet(KeySource):
    """Points in memory inside the domain plus what validation did to the input (reported in
    releases): the in-memory :class:`~psdviz.core.source.KeySource`, a keyer runs once on all keys."""

    xy: np.ndarray          # (n, 2) float64, a new array: the caller's input is never modified
    n_input: int
    n_nonfinite: int        # rows with NaN/inf that were dropped (only with nonfinite="drop")
    n_outside: int          # rows outside the domain
    outside: str            # "drop" or "clip": what happened to them
    nonfinite: str            # the rule for rows with NaN/inf: "error" (refused) or "drop"
    grid: Grid = field(compare=False)   # the public resolution grid
    memo: dict = field(default_factory=dict, compare=False, repr=False)   # keyers' state between passes

    @property
    def n(self) -> int:
        return int(self.xy.shape[0])

    @cached_property
    def keys(self) -> np.ndarray:
        """(n, 2) int64 grid cells of the points (teaching views and tests; methods use :meth:`grouped`)."""
        return self.grid.keys(self.xy)

    def held(self) -> tuple[np.ndarray, np.ndarray, None]:
        return self.keys[:, 0], self.keys[:, 1], None

    def grouped(self, keyer: Keyer) -> tuple[np.ndarray, np.ndarray]:
        k = self.keys
        got = keyer(k[:, 0], k[:, 1], self.memo)
        return group_counts(got.ids if isinstance(got, RowIds) else got)


def as_points(points) -> np.ndarray:
    """Coerce input to a float (n, 2) array without touching the caller's object. Complex numbers
    and booleans are refused (numpy would silently drop the imaginary part or read True as 1)."""
    kind = np.asarray(points).dtype.kind if not hasattr(points, "dtypes") else None
    if kind is None:   # a DataFrame: look at every column
        kinds = {np.dtype(d).kind if not hasattr(d, "kind") else d.kind for d in points.dtypes}
        kind = "c" if "c" in kinds else ("b" if "b" in kinds else "f")
    if kind == "c":
        raise InputDataError("points must be real numbers: complex values were given")
    if kind == "b":
        raise ValueError("points must be numbers: booleans were given as coordinates")
    try:
        arr = np.array(points, dtype=float, copy=True)
        if arr.size == 0:
            arr = arr.reshape(0, 2)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"points must be numeric with shape (n, 2): {exc}") from None
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(f"points must have shape (n, 2) as [x, y] rows (got shape {arr.shape})")
    return arr


def prepare_points(points, domain: Domain, outside: str = "drop", nonfinite: str = "error",
                   resolution: int = DEFAULT_RESOLUTION) -> PointSet:
    """Validate points against a public domain and quantise them to its resolution grid
    (2^resolution positions per axis, :mod:`psdviz.core.grid`).

    ``outside``: "drop" (default) removes points outside the domain, "clip" moves them onto
    its boundary; either way the count is reported. ``nonfinite``: "error" (default) refuses rows
    with NaN/inf with their count, "drop" removes them and reports the count.

    No points at all, or none inside the domain, is not an error: raising there while one inside
    point releases would itself reveal the data (an infinite privacy loss for that pair). The build
    goes on and releases pure noise; :attr:`PointSet.n` lets a caller warn the data owner.
    """
    check_modes(domain, outside, nonfinite)
    bits = check_resolution(resolution)
    xy = as_points(points)
    n_input = xy.shape[0]
    finite = np.isfinite(xy).all(axis=1)
    n_bad = int(n_input - finite.sum())
    if n_bad and nonfinite == "error":
        raise nonfinite_error(n_bad, n_input)
    xy = xy[finite]
    inside = domain.contains(xy)
    n_out = int(xy.shape[0] - inside.sum())
    if outside == "drop":
        xy = xy[inside]
    else:
        clip_onto(xy, domain)
    return PointSet(np.ascontiguousarray(xy), n_input, n_bad, n_out, outside, nonfinite, Grid(domain, bits))


def reuse_points(ps: PointSet, domain: Domain, outside: str, nonfinite: str, resolution: int) -> PointSet:
    """A point set :func:`prepare_points` made, for one more build with the same domain, resolution and rules:
    the same points and grid keys (made read-only, shared: nothing is copied or quantised again) and a new
    memo for the build's keyers. The build reads exactly what it would read from the array, so the release
    is the same for the same seed. A set prepared otherwise is refused, naming what differs."""
    want = (Grid(domain, check_resolution(resolution)), outside, nonfinite)
    have = (ps.grid, ps.outside, ps.nonfinite)
    if have != want:
        names = ("domain and resolution", "outside", "nonfinite")
        differ = ", ".join(n for n, a, b in zip(names, have, want) if a != b)
        raise ValueError(f"these prepared points differ from the build's {differ}: prepare them with the build's "
                         "domain, resolution, outside and nonfinite, or pass the array")
    keys = ps.keys
    for a in (ps.xy, keys):
        a.setflags(write=False)
    fresh = PointSet(ps.xy, ps.n_input, ps.n_nonfinite, ps.n_outside, ps.outside, ps.nonfinite, ps.grid)
    fresh.__dict__["keys"] = keys        # the cached grid keys, shared
    return fresh


def clip_onto(xy: np.ndarray, domain: Domain) -> None:
    """Move points (in place) onto the closed domain: the "clip" rule of every source."""
    np.clip(xy[:, 0], domain.xmin, domain.xmax, out=xy[:, 0])
    np.clip(xy[:, 1], domain.ymin, domain.ymax, out=xy[:, 1])


def chunk_keys(x: np.ndarray, y: np.ndarray, grid: Grid, outside: str) -> tuple[np.ndarray, np.ndarray]:
    """Grid keys of one chunk of raw coordinates, as :func:`prepare_points` would make them: rows with
    NaN/inf, and rows outside the domain when ``outside="drop"``, get key -1 (not counted); with
    "clip" the coordinates are clipped onto the domain first. The same float operations as the
    in-memory path (Grid.keys), so every source puts a point in the same cell."""
    xy = np.column_stack([np.asarray(x, dtype=float), np.asarray(y, dtype=float)])
    ok = np.isfinite(xy).all(axis=1)
    d = grid.domain
    if outside == "drop":
        ok &= d.contains(xy)
    else:
        clip_onto(xy, d)
    keys = grid.keys(np.where(ok[:, None], xy, d.xmin))
    keys[~ok] = -1
    return keys[:, 0], keys[:, 1]


def check_modes(domain, outside: str, nonfinite: str) -> None:
    """The shared argument checks of every source."""
    if not isinstance(domain, Domain):
        raise ValueError("domain must be a psdviz Domain(xmin, ymin, xmax, ymax) declared by the user")
    if outside not in OUTSIDE_MODES:
        raise ValueError(f"outside must be one of {OUTSIDE_MODES} (got {outside!r})")
    if nonfinite not in NONFINITE_MODES:
        raise ValueError(f"nonfinite must be one of {NONFINITE_MODES} (got {nonfinite!r})")


def nonfinite_error(n_bad: int, n_input: int) -> ValueError:
    return ValueError(f"{n_bad} of {n_input} rows contain NaN or inf; remove them or pass nonfinite='drop'")


MAX_WORKLOAD_RECTS = 100_000   # a workload's rectangles (pv.build(..., workload=...), and as a file records it)


def validate_rects(rects) -> np.ndarray:
    """Query rectangles as a (k, 4) float array [xmin, ymin, xmax, ymax] with xmin <= xmax, ymin <= ymax."""
    arr = np.array(rects, dtype=float, copy=True)
    if arr.ndim == 1 and arr.size == 4:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[1] != 4:
        raise ValueError(f"rects must have shape (k, 4) as [xmin, ymin, xmax, ymax] (got {arr.shape})")
    if not np.isfinite(arr).all():
        raise ValueError("rects contain NaN or inf")
    if (arr[:, 2] < arr[:, 0]).any() or (arr[:, 3] < arr[:, 1]).any():
        raise ValueError("each rect needs xmin <= xmax and ymin <= ymax")
    return arr
