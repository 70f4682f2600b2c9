"""Structure finer than two cells across a query: the count auto reads before sending long thin or small queries
to the workload strategy over data that are not smooth at the cell scale (roads, towns, an attribute in whole units).

Rule: pair each cell of a public side x side grid with its neighbour across ``axis`` (cells 2k and 2k + 1); the
*excess variation* is the sum over the pairs of |a - b| - E|a - b|, the expectation taken as if the pair's
a + b = m points had fallen in either cell with probability 1/2 (E|S_m| of the simple random walk). Points spread
smoothly at the cell scale give about 0 (the Poisson spread is subtracted); points on every other row, or in
atoms and lines one cell wide, give nearly N. Over N it is the share of points whose row within a pair the cells
disagree on beyond chance.

Privacy: adding or removing one point moves one pair's m by 1: |a - b| by exactly 1 and E|S_m| by
P(S_m = 0) in [0, 1] (E|S_{m+1}| = E|S_m| + P(S_m = 0)), so the sum moves by at most 2 (L1 sensitivity 2 under
add/remove); summed over both axes (a point lies in one pair on each) it moves by at most 4. auto releases it
rounded to the public lattice of 2^-6 with two-sided geometric noise in those steps (:mod:`psdviz.core.lattice`;
docs/decisions/workload-strategy.md, "Fine structure across thin queries", "Structure finer than the leaves").
"""
from __future__ import annotations

import functools
import math

import numpy as np

SENSITIVITY = 2.0
EXACT_UP_TO = 1 << 16    # E|S_m| from its exact sum up to this m, sqrt(2 m / pi) (within 1 / sqrt(m)) beyond


@functools.cache
def _exact_sums() -> np.ndarray:
    """[0, sum to j = 0, sum to j = 1, ...] of C(2j, j) / 4^j, up to m = ``EXACT_UP_TO``."""
    j = np.arange(EXACT_UP_TO // 2 + 1)
    terms = np.cumprod(np.where(j > 0, (2 * j - 1) / np.maximum(2 * j, 1), 1.0))
    return np.concatenate([[0.0], np.cumsum(terms)])


def mean_abs_walk(m: np.ndarray) -> np.ndarray:
    """E|S_m| for the simple random walk: sum_{j <= (m - 1) / 2} C(2j, j) / 4^j (0 at m = 0); its steps
    P(S_m = 0) lie in [0, 1], the fact the sensitivity rests on."""
    m = np.asarray(m, dtype=np.int64)
    exact = _exact_sums()
    small = exact[np.clip((m - 1) // 2 + 1, 0, exact.size - 1)]
    return np.where(m > EXACT_UP_TO, np.sqrt(2.0 * m / math.pi), np.where(m > 0, small, 0.0))


def excess_variation(grid: np.ndarray, axis: int) -> float:
    """Sum over the pairs of cells (2k, 2k + 1) along ``axis`` of |a - b| - E|a - b| (module docstring); a
    grid of odd length leaves its last row or column unpaired."""
    g = np.asarray(grid, dtype=np.int64)
    return _paired_excess(np.moveaxis(g, axis, 0))


def edge_excess(grid: np.ndarray) -> float:
    """The largest over the four corners of ``grid`` of the excess variation along the two edges through the
    corner, each edge without its first two and last two cells (a corner cell and its neighbour, where an atom
    sits): how far the points on the edges from an atom sit on a few values rather than spread over every cell.

    Each border line's cells read are in no other line, so a point lies in at most one of them and moves one
    line's sum by at most 2; a corner's sum (two lines) and the largest of the four move by at most as much
    (|max f - max g| <= max |f - g|): sensitivity 2 under add/remove."""
    g = np.asarray(grid, dtype=np.int64)
    rows = [_paired_excess(g[i, 2:-2]) for i in (0, -1)]
    columns = [_paired_excess(g[2:-2, j]) for j in (0, -1)]
    return max(r + c for r in rows for c in columns)


def _paired_excess(g: np.ndarray) -> float:
    """Sum over the pairs (2k, 2k + 1) along the first axis of |a - b| - E|a - b|; an odd last one unpaired."""
    g = g[: g.shape[0] // 2 * 2]
    a, b = g[0::2], g[1::2]
    return float(np.abs(a - b).sum() - mean_abs_walk(a + b).sum())
