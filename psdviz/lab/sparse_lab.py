"""Query comparisons for sparse summaries (ICDT'12 section 4, experiments): error against query size.

Two workloads over the m cells of a table (in its row-major cell order):

- range queries: ``q`` random intervals [lo, lo + r) for each length r;
- subset queries: ``q`` random sets of r distinct cells for each size r (drawn uniformly from all
  m cells, as in the paper's subset-sum experiments, so most cells are zero).

Each query is answered from the release (``range_sums`` / ``subset_sum`` with the estimation
weights) and from the true table; errors are absolute (the paper's measure) and relative with the
floor of :mod:`psdviz.lab.metrics` (rho = 0.001 ||M||_1). The truth is evaluation only.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..core.validation import check_int
from .metrics import absolute_error, relative_error

MAX_QUERIES = 2000
MAX_SUBSET = 100_000


def query_sizes(m: int, count: int = 6) -> list[int]:
    """Log-spaced query sizes from 1 to about m / 10 (at least 1, distinct)."""
    top = max(1.0, m / 10)
    return sorted({max(1, int(round(v))) for v in np.geomspace(1, top, count)})


def range_queries(m: int, sizes, q: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(lo, hi, size) of q random ranges per size r (r <= m)."""
    q = check_int(q, "queries", 1, MAX_QUERIES)
    lo, hi, sz = [], [], []
    for r in sizes:
        r = check_int(r, "range size", 1, m)
        start = rng.integers(0, m - r + 1, q)
        lo.append(start)
        hi.append(start + r)
        sz.append(np.full(q, r))
    return np.concatenate(lo), np.concatenate(hi), np.concatenate(sz)


def subset_queries(m: int, sizes, q: int, rng: np.random.Generator) -> list[np.ndarray]:
    """q random subsets of r distinct cells per size r (r <= min(m, MAX_SUBSET))."""
    q = check_int(q, "queries", 1, MAX_QUERIES)
    out = []
    for r in sizes:
        r = check_int(r, "subset size", 1, min(m, MAX_SUBSET))
        for _ in range(q):
            s = rng.integers(0, m, r)             # with replacement, then made distinct below
            s = np.unique(s)
            while s.size < r:                     # rare top-up when m is small
                s = np.unique(np.concatenate([s, rng.integers(0, m, r - s.size)]))
            out.append(s)
    return out


def compare_queries(release, table, sizes, q: int = 50, seed: int | None = 0,
                    subsets: bool = True) -> pd.DataFrame:
    """Tidy table kind, size, estimate, truth, abs_error, rel_error for ranges (and subsets)."""
    rng = np.random.default_rng(seed)
    m = int(table.m)
    lo, hi, sz = range_queries(m, sizes, q, rng)
    est = release.range_sums(lo, hi)
    tru = table.range_sums(lo, hi)
    frames = [_frame("range", sz, est, tru, table.l1)]
    if subsets:
        ss = subset_queries(m, [s for s in sizes if s <= MAX_SUBSET], q, rng)
        est = np.array([release.subset_sum(s) for s in ss], dtype=float)
        tru = np.array([table.subset_sum(s) for s in ss], dtype=float)
        frames.append(_frame("subset", np.array([s.size for s in ss]), est, tru, table.l1))
    return pd.concat(frames, ignore_index=True)


def _frame(kind: str, size, est, tru, l1) -> pd.DataFrame:
    return pd.DataFrame({"kind": kind, "size": size, "estimate": est, "truth": tru,
                         "abs_error": absolute_error(est, tru),
                         "rel_error": relative_error(est, tru, int(l1))})
