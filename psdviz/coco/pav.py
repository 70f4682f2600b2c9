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
is O(n) numpy work (O(n log n) for L1, which re-sorts to find block medians); the number of passes
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


@dataclass(frozen=True)
class IsotonicFit:
    """A fitted non-decreasing vector and, per entry, the size (entry count) of its pooled block."""

    values: np.ndarray      # float, same shape as the input
    block_size: np.ndarray  # int64, number of entries in the block of each entry
    passes: int             # number of pooling passes (for benchmarks)


def _check(y, segment, weights) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    y = np.asarray(y, dtype=float)
    if y.ndim != 1:
        raise ValueError(f"y must be one-dimensional (got shape {y.shape})")
    if not np.all(np.isfinite(y)):
        raise ValueError("y must be finite")
    seg = np.zeros(y.size, np.int64) if segment is None else np.asarray(segment, dtype=np.int64)
    if seg.shape != y.shape:
        raise ValueError(f"segment must have the shape of y {y.shape} (got {seg.shape})")
    if seg.size > 1 and np.any(np.diff(seg) < 0):
        raise ValueError("segment must be non-decreasing (entries of one node contiguous)")
    w = np.ones(y.size) if weights is None else np.asarray(weights, dtype=float)
    if w.shape != y.shape or not np.all(w > 0):
        raise ValueError(f"weights must be > 0 with the shape of y {y.shape}")
    return y, seg, w


def _lower_weighted_median(values, weights, block, n_blocks) -> np.ndarray:
    """Lower weighted median of ``values`` within each block id 0..n_blocks-1 (every block non-empty)."""
    order = np.lexsort((values, block))
    v, w, b = values[order], weights[order], block[order]
    cw = np.cumsum(w)
    starts = np.flatnonzero(np.r_[True, b[1:] != b[:-1]])
    before = np.r_[0.0, cw[:-1]][starts]          # cumulative weight before each block
    total = np.add.reduceat(w, starts)
    within = cw - np.repeat(before, np.diff(np.r_[starts, b.size]))
    half = np.repeat(total / 2.0, np.diff(np.r_[starts, b.size]))
    reached = within >= half * (1 - 1e-12)
    # first entry of each block with enough weight: positions where reached and previous not (per block)
    first = reached & np.r_[True, (~reached[:-1]) | (b[1:] != b[:-1])]
    out = np.empty(n_blocks)
    out[b[first]] = v[first]
    return out


def isotonic(y, segment=None, *, loss: str = "l2", weights=None,
             lower: float | np.ndarray | None = None, upper: float | np.ndarray | None = None,
             max_passes: int | None = None) -> IsotonicFit:
    """Non-decreasing fit within each segment minimising the weighted L2 or L1 distance to ``y``.

    ``lower``/``upper``: optional bounds (scalars or per-entry arrays), applied by clipping (exact,
    see the module docstring). ``y`` is not modified.
    """
    if loss not in ("l1", "l2"):
        raise ValueError(f"loss must be 'l1' or 'l2' (got {loss!r})")
    y, seg, w = _check(y, segment, weights)
    n = y.size
    if n == 0:
        return IsotonicFit(np.zeros(0), np.zeros(0, np.int64), 0)
    start = np.arange(n)            # first entry of each block
    bseg = seg.copy()
    bsum, bw = y * w, w.copy()      # L2 block statistics
    element_block = np.arange(n)    # L1 needs the elements of each block
    value = y.copy()
    passes = 0
    limit = max_passes if max_passes is not None else n + 1
    while passes < limit:
        viol = (value[:-1] > value[1:]) & (bseg[:-1] == bseg[1:])
        if not viol.any():
            break
        passes += 1
        keep = np.r_[True, ~viol]
        new_id = np.cumsum(keep) - 1
        heads = np.flatnonzero(keep)
        start, bseg = start[heads], bseg[heads]
        if loss == "l2":
            bsum, bw = np.add.reduceat(bsum, heads), np.add.reduceat(bw, heads)
            value = bsum / bw
        else:
            element_block = new_id[element_block]
            value = _lower_weighted_median(y, w, element_block, heads.size)
    length = np.diff(np.r_[start, n])
    fitted = np.repeat(value, length)
    if lower is not None or upper is not None:
        fitted = np.clip(fitted, lower, upper)
    return IsotonicFit(fitted, np.repeat(length, length).astype(np.int64), passes)
