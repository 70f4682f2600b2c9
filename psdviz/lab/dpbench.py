"""The DPBench 2-D protocol (Hay et al. SIGMOD'16; ../shared/dpbench/README.md), shared by the
accuracy lab's "DPBench protocol" preset and ``benchmarks/bench_dpbench.py``.

A dataset is an m x n count histogram over the domain [0, m) x [0, n) (entry [i, j]: points whose
first coordinate is in bin i and second in bin j). Points are placed uniformly at random inside their
cells; queries are rectangles whose corners lie on the integer grid: two integers in 0..m for the
first axis and two in 0..n for the second (sorted), redrawn when either pair is equal, from
``RandomState(8)`` (the protocol's fixed query set); error |est - true| / max(true, 0.001 N).
"""
from __future__ import annotations

import numpy as np

from ..core.domain import Domain
from ..core.errors import InputDataError

QUERY_SEED = 8
MAX_HIST_POINTS = 20_000_000


def check_histogram(hist) -> np.ndarray:
    """A 2-D array of non-negative (integer-valued) counts, as a float copy."""
    h = np.array(hist, dtype=float)
    if h.ndim != 2 or min(h.shape) < 2:
        raise InputDataError(f"a DPBench histogram is a 2-D array of counts, at least 2 x 2 (got shape {h.shape})")
    if not np.isfinite(h).all() or (h < 0).any():
        raise InputDataError("histogram counts must be finite and non-negative")
    if h.sum() > MAX_HIST_POINTS:
        raise InputDataError(f"the histogram holds {h.sum():,.0f} points, above the lab's limit of {MAX_HIST_POINTS:,}")
    return h


def histogram_domain(hist: np.ndarray) -> Domain:
    return Domain(0.0, 0.0, float(hist.shape[0]), float(hist.shape[1]))


def histogram_points(hist: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Each count placed uniformly at random inside its cell: (N, 2) points."""
    counts = np.rint(hist).astype(np.int64).ravel()
    cell = np.repeat(np.arange(counts.size), counts)
    i, j = np.divmod(cell, hist.shape[1])
    return np.column_stack([i + rng.random(cell.size), j + rng.random(cell.size)])


def protocol_queries(m: int = 256, n: int = 256, k: int = 200, seed: int = QUERY_SEED) -> np.ndarray:
    """The protocol's k grid-aligned rectangles [i0, j0, i1, j1]."""
    rs = np.random.RandomState(seed)
    out: list[list[int]] = []
    while len(out) < k:
        r, c = np.sort(rs.randint(0, m + 1, 2)), np.sort(rs.randint(0, n + 1, 2))
        if r[0] != r[1] and c[0] != c[1]:
            out.append([r[0], c[0], r[1], c[1]])
    return np.array(out, dtype=float)


def histogram_truth(hist: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Exact answers of cell-aligned queries from the histogram's 2-D prefix sums."""
    s = np.zeros((hist.shape[0] + 1, hist.shape[1] + 1))
    s[1:, 1:] = hist.cumsum(0).cumsum(1)
    i0, j0, i1, j1 = q.T.astype(int)
    return s[i1, j1] - s[i0, j1] - s[i1, j0] + s[i0, j0]
