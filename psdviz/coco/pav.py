"""Segmented isotonic regression by pool-adjacent-violators (PAV), in L2 and in L1.

Slides of Kuo et al. (VLDB 2018), "Unattributed Histogram" and "Cumulative Sum Histograms": the
post-processing step is ``argmin ||y - x||_p^p`` subject to ``x`` non-decreasing, with p = 1 or 2,
solved exactly by PAV [Barlow et al. 1972; Robertson & Waltman 1968] (no commercial solver).

Many independent problems (one per node of a hierarchy level) are solved at once: ``y`` is the
concatenation of the nodes' vectors and ``segment`` (non-decreasing) says which node each entry
belongs to; blocks never cross a segment edge.

Implementation (vectorised, not the textbook stack): every pass computes the block values and pools
every maximal chain of adjacent violators (value[b] > value[b + 1]) in one ``np.add.reduceat``.
Pooling a chain is a sequence of ordinary PAV pools (after pooling b and b + 1 the pooled value
lies between theirs, so it still exceeds value[b + 2]), and PAV's result does not depend on the order
in which violators are pooled, so the fixed point (no violators left) is the PAV solution. Each pass
is O(n) numpy work for L2; for L1 a pass re-sorts only the entries of the blocks it pooled (their
sorted runs merged) to find the new medians; the number of passes
is data dependent and small for noisy monotone inputs (benchmarks/bench_coco.py prints it).

L1 reading: a block's value is its lower weighted median (the smallest element whose cumulative
weight reaches half the block weight). The L1 optimum is not unique; the solution returned is one
optimal solution, checked against a linear program in the tests.

Bounds: ``lower``/``upper`` clip the fit afterwards. For isotonic regression with a separable convex
loss the box-constrained optimum is the clipped unconstrained optimum, so this is still exact.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.errors import InputDataError, ParameterError
from ..core.ragged import runs


@dataclass(frozen=True)
class IsotonicFit:
    """A fitted non-decreasing vector and, per entry, the size (entry count) of its pooled block."""

    values: np.ndarray      # float, same shape as the input
    block_size: np.ndarray  # int64, number of entries in the block of each entry
    passes: int             # number of pooling passes (for benchmarks)


def _check(y, segment, weights) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    y = np.asarray(y, dtype=float)
    if y.ndim != 1:
        raise InputDataError(f"y must be one-dimensional (got shape {y.shape})")
    if not np.all(np.isfinite(y)):
        raise InputDataError("y must be finite")
    seg = np.zeros(y.size, np.int64) if segment is None else np.asarray(segment, dtype=np.int64)
    if seg.shape != y.shape:
        raise InputDataError(f"segment must have the shape of y {y.shape} (got {seg.shape})")
    if seg.size > 1 and np.any(np.diff(seg) < 0):
        raise InputDataError("segment must be non-decreasing (entries of one node contiguous)")
    w = np.ones(y.size) if weights is None else np.asarray(weights, dtype=float)
    if w.shape != y.shape or not np.all(w > 0):
        raise InputDataError(f"weights must be > 0 with the shape of y {y.shape}")
    return y, seg, w


def _weighted_medians(sv, sw, starts, lengths) -> np.ndarray:
    """Lower weighted median of each run ``sv[s:s+l]`` (values or ranks sorted inside the run,
    weights ``sw``): the entry itself, of ``sv``'s dtype."""
    pos = runs(starts, lengths)
    v, w = sv[pos], sw[pos]
    run = np.repeat(np.arange(starts.size), lengths)
    cw = np.cumsum(w)
    first_of_run = np.cumsum(lengths) - lengths
    before = np.r_[0.0, cw[:-1]][first_of_run]
    total = np.add.reduceat(w, first_of_run)
    within = cw - before[run]
    reached = within >= (total / 2.0)[run] * (1 - 1e-12)
    first = reached & np.r_[True, (~reached[:-1]) | (run[1:] != run[:-1])]
    out = np.empty(starts.size, dtype=sv.dtype)
    out[run[first]] = v[first]
    return out


def isotonic(y, segment=None, *, loss: str = "l2", weights=None,
             lower: float | np.ndarray | None = None, upper: float | np.ndarray | None = None,
             max_passes: int | None = None) -> IsotonicFit:
    """Non-decreasing fit within each segment minimising the weighted L2 or L1 distance to ``y``.

    ``lower``/``upper``: optional bounds (scalars or per-entry arrays), applied by clipping (exact,
    see the module docstring). ``y`` is not modified.
    """
    if loss not in ("l1", "l2"):
        raise ParameterError(f"loss must be 'l1' or 'l2' (got {loss!r})")
    y, seg, w = _check(y, segment, weights)
    n = y.size
    if n == 0:
        return IsotonicFit(np.zeros(0), np.zeros(0, np.int64), 0)
    start = np.arange(n)            # first entry of each block
    bseg = seg.copy()
    bsum, bw = y * w, w.copy()      # L2 block statistics
    if loss == "l1":   # each block's entries as global value ranks, sorted inside the block
        by_value = np.argsort(y, kind="stable")
        sv = np.empty(n, np.int64)
        sv[by_value] = np.arange(n)
        sw, y_sorted = w.copy(), y[by_value]
    value = y.copy()
    passes = 0
    limit = max_passes if max_passes is not None else n + 1
    while passes < limit:
        viol = (value[:-1] > value[1:]) & (bseg[:-1] == bseg[1:])
        if not viol.any():
            break
        passes += 1
        keep = np.r_[True, ~viol]
        heads = np.flatnonzero(keep)
        start, bseg = start[heads], bseg[heads]
        if loss == "l2":
            bsum, bw = np.add.reduceat(bsum, heads), np.add.reduceat(bw, heads)
            value = bsum / bw
        else:
            value = _pool_l1(sv, sw, y_sorted, value, heads, start, n)
    length = np.diff(np.r_[start, n])
    fitted = np.repeat(value, length)
    if lower is not None or upper is not None:
        fitted = np.clip(fitted, lower, upper)
    return IsotonicFit(fitted, np.repeat(length, length).astype(np.int64), passes)


def _pool_l1(sv: np.ndarray, sw: np.ndarray, y_sorted: np.ndarray, value: np.ndarray, heads: np.ndarray,
             start: np.ndarray, n: int) -> np.ndarray:
    """One L1 pass: only the blocks made of several old blocks are re-sorted (their runs merged, in
    place in ``sv``/``sw``; ``sv`` holds global value ranks) and get a new median; every other block
    keeps its value. The sort key (block, rank) is one integer whose input is a concatenation of
    already sorted runs, which the stable sort (timsort) merges in near-linear time: a pass costs
    about O(k log r) for the k entries of pooled blocks made of r runs, not a sort of all n entries."""
    n_old = value.size
    merged = np.diff(np.r_[heads, n_old]) > 1          # new blocks formed from several old ones
    out = value[heads]
    if not merged.any():
        return out
    length = np.diff(np.r_[start, n])
    s, ln = start[merged], length[merged]
    pos = runs(s, ln)
    run = np.repeat(np.arange(s.size, dtype=np.int64), ln)
    order = np.argsort(run * n + sv[pos], kind="stable")
    sv[pos], sw[pos] = sv[pos][order], sw[pos][order]
    out[merged] = y_sorted[_weighted_medians(sv, sw, s, ln)]
    return out
