"""Query workloads (ICDE'12 section 8.1; the h-tree paper's protocol).

- :func:`shape_queries`: w x h rectangles in data units placed uniformly inside the domain.
- :func:`centered_queries`: squares of a given share of the domain area centred on random data
  points (clipped to the domain).
- :func:`nonempty`: keep drawing until ``k`` queries with a non-zero true answer are found
  (ICDE'12: "600 queries that have a non-zero answer").
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..core.domain import Domain
from ..core.errors import InputDataError, ParameterError
from ..query.truth import PointIndex
from .dpbench import protocol_queries


def shape_queries(domain: Domain, w: float, h: float, k: int, rng: np.random.Generator) -> np.ndarray:
    """k rectangles of width w and height h placed uniformly inside the domain."""
    if not (0 < w <= domain.width and 0 < h <= domain.height):
        raise ParameterError(f"query shape {w} x {h} must be positive and fit in the domain "
                         f"({domain.width:g} x {domain.height:g})")
    x0 = rng.uniform(domain.xmin, domain.xmax - w, k)
    y0 = rng.uniform(domain.ymin, domain.ymax - h, k)
    return np.column_stack([x0, y0, x0 + w, y0 + h])


def centered_queries(points: np.ndarray, domain: Domain, area_fraction: float, k: int,
                     rng: np.random.Generator, aspect: float = 1.0) -> np.ndarray:
    """k rectangles of area ``area_fraction`` x domain area (width/height = aspect) centred on
    random data points, clipped to the domain."""
    if not 0 < area_fraction <= 1:
        raise ParameterError(f"area_fraction must lie in (0, 1] (got {area_fraction})")
    area = area_fraction * domain.area
    w, h = np.sqrt(area * aspect), np.sqrt(area / aspect)
    c = points[rng.integers(0, points.shape[0], k)]
    r = np.column_stack([c[:, 0] - w / 2, c[:, 1] - h / 2, c[:, 0] + w / 2, c[:, 1] + h / 2])
    r[:, [0, 2]] = np.clip(r[:, [0, 2]], domain.xmin, domain.xmax)
    r[:, [1, 3]] = np.clip(r[:, [1, 3]], domain.ymin, domain.ymax)
    return r


def nonempty(make: Callable[[int], np.ndarray], index: PointIndex, k: int,
             max_rounds: int = 50) -> tuple[np.ndarray, np.ndarray]:
    """Draw batches from ``make(batch)`` until k queries with a non-zero true count are found.

    Returns (rects, true counts). Raises ValueError if the shape almost never hits data.
    """
    got_r, got_t, have = [], [], 0
    for _ in range(max_rounds):
        r = make(max(2 * (k - have), 64))
        t = index.count(r)
        keep = t > 0
        got_r.append(r[keep])
        got_t.append(t[keep])
        have += int(keep.sum())
        if have >= k:
            return np.concatenate(got_r)[:k], np.concatenate(got_t)[:k]
    raise InputDataError(f"found only {have} non-empty queries of this shape after {max_rounds} rounds")


def grid_queries(domain: Domain, m: int, n: int, k: int) -> np.ndarray:
    """The DPBench protocol's fixed query set (``lab/dpbench.py``) on an m x n grid over the domain."""
    q = protocol_queries(m, n, k)
    sx, sy = domain.width / m, domain.height / n
    return np.column_stack([domain.xmin + q[:, 0] * sx, domain.ymin + q[:, 1] * sy,
                            domain.xmin + q[:, 2] * sx, domain.ymin + q[:, 3] * sy])
