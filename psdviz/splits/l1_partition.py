"""DAWA's data-aware partition of cells in Hilbert order, calibrated so that its privacy argument holds for
this code (Li, Hay, Miklau, Wang, "A data- and workload-aware algorithm for range queries under differential
privacy", PVLDB 2014, section 3: the least-cost partition and its intervals of power-of-two lengths).

Rule. The n = 2^L cells are in curve order. A candidate bucket is an aligned dyadic window: the cells
[t 2^k, (t + 1) 2^k) of a level k in a public set K of levels (:func:`candidate_levels`), and every single
cell. A window's cost is its median deviation, min over m of sum |x_i - m| (the L1 error of spreading the
window's count evenly, up to the choice of centre). Each candidate window's cost gets Laplace noise of scale
|K| / eps1; its score is the noisy cost plus the bucket penalty 1/eps2, clamped below at the penalty (the
authors' code clamps the same way). A single cell scores the penalty (its deviation is 0 for every input), a
window of a level outside K never becomes a bucket. The partition is the cheapest cover by scores, found
bottom-up over the binary tree of windows (:func:`dyadic_cover`: keep a window when its score is at most the
best covers of its two halves; ties keep the window).

Privacy (eps1-DP). One point more or less changes one cell count by 1. At each level exactly one window holds
that cell, and its median deviation moves by at most 1 (for every centre m each term moves by at most 1, so
the minimum over m does too); every other window's cost is unchanged, and a single cell's cost is 0 on both
sides. So the vector of all candidate costs has L1 sensitivity at most |K|, and Laplace noise of scale |K| /
eps1 on each coordinate is eps1-DP (the Laplace mechanism: Dwork, McSherry, Nissim, Smith 2006). Everything
after the noise (the penalty, the clamp, the cover) reads only the noisy costs and public values:
post-processing. The noisy costs stay inside; only the partition, a set of yes/no decisions, is released.

Why not the published calibration: the authors' code gives a candidate noise of scale about 2 / eps1, none to
single cells, and clamps; its argument shifts the noise of the bucket holding the changed cell, which fails when
that score sits on the clamp (docs/decisions/dawa.md). Composition needs no shift, so the clamp is free here; the
price is noise |K| times larger. Functions take a leading axis of runs, so the privacy audit draws this code.
"""
from __future__ import annotations

import numpy as np

from ..core.errors import ParameterError
from ..core.noise import laplace_draw

MIN_BUCKET = 8           # the smallest candidate window above one cell, in cells (level 3)
MAX_BUCKET_SHARE = 16    # the largest is 1/16 of the cells: the top four levels always split (docs/decisions/dawa.md)


def candidate_levels(cells: int, min_bucket: int = MIN_BUCKET, max_bucket: int | None = None) -> tuple[int, ...]:
    """The levels K whose windows may become buckets: 2^k cells from ``min_bucket`` to ``max_bucket`` (default
    cells / 16), both powers of two, clipped to the cells there are (at least the level of ``min_bucket``, or the
    whole when the grid is smaller than that; none for a single cell). Public: a function of the grid and the
    parameters only."""
    total = _log2(cells, "the number of cells")
    low = _log2(min_bucket, "min_bucket")
    if low < 1:
        raise ParameterError(f"min_bucket must be at least 2 cells (got {min_bucket!r}): single cells are always "
                             "candidates")
    if max_bucket is not None and _log2(max_bucket, "max_bucket") < low:
        raise ParameterError(f"max_bucket ({max_bucket}) must be at least min_bucket ({min_bucket})")
    if total == 0:
        return ()
    high = total - _log2(MAX_BUCKET_SHARE, "") if max_bucket is None else _log2(max_bucket, "max_bucket")
    low = min(low, total)
    return tuple(range(low, max(min(high, total), low) + 1))


def _log2(value: int, name: str) -> int:
    """The exponent of a power of two, or a ValueError naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1 or value & (value - 1):
        raise ParameterError(f"{name} must be a power of two (got {value!r})")
    return int(value).bit_length() - 1


def window_deviations(x: np.ndarray, levels) -> dict[int, np.ndarray]:
    """Per level k in ``levels``: the median deviation of every aligned window of 2^k cells of the curve-ordered
    integer counts ``x`` (length 2^L), exactly in integers (the lower median is a minimising centre)."""
    x = np.asarray(x, dtype=np.int64)
    out = {}
    for k in levels:
        size = 1 << k
        blocks = x.reshape(-1, size)
        med = np.partition(blocks, (size - 1) // 2, axis=1)[:, (size - 1) // 2]
        out[k] = np.abs(blocks - med[:, None]).sum(axis=1)
    return out


def noisy_scores(devs: dict[int, np.ndarray], n_levels: int, eps1: float, penalty: float,
                 rng: np.random.Generator, runs: int = 1) -> list[np.ndarray]:
    """Scores per level 0..L, each (runs, windows): the penalty for single cells, max(cost + Laplace(|K| / eps1)
    + penalty, penalty) for the candidate levels in ``devs``, +inf for the others (module docstring)."""
    scale = len(devs) / eps1 if devs else 0.0
    out = [np.full((runs, 1 << n_levels), float(penalty))]
    for k in range(1, n_levels + 1):
        width = 1 << (n_levels - k)
        if k not in devs:
            out.append(np.full((runs, width), np.inf))
            continue
        noisy = devs[k] + laplace_draw(rng, scale, (runs, width)) + penalty
        out.append(np.maximum(noisy, penalty))
    return out


def dyadic_cover(scores: list[np.ndarray]) -> list[np.ndarray]:
    """The cheapest cover by ``scores`` (per level 0..L, each (runs, windows)): per level, whether each window is
    a bucket. Bottom-up, a window is kept when its score is at most the best covers of its halves; top-down, a
    kept window with no kept ancestor is a bucket."""
    best, keep = scores[0], [np.ones_like(scores[0], dtype=bool)]
    for score in scores[1:]:
        split = best[:, 0::2] + best[:, 1::2]
        kept = score <= split
        keep.append(kept)
        best = np.where(kept, score, split)
    bucket: list[np.ndarray] = [np.empty(0, bool)] * len(scores)
    covered = np.zeros_like(keep[-1])
    for k in range(len(scores) - 1, -1, -1):
        bucket[k] = keep[k] & ~covered
        covered = np.repeat(covered | bucket[k], 2, axis=1)
    return bucket


def choose_buckets(x: np.ndarray, levels, eps1: float, penalty: float, rng: np.random.Generator,
                   runs: int = 1) -> list[np.ndarray]:
    """The private partition of the curve-ordered counts ``x`` (length 2^L): bucket flags per level 0..L, each
    (runs, windows). ``levels`` empty: no noise is drawn and every cell is its own bucket (nothing read)."""
    n_levels = _log2(int(np.asarray(x).size), "the number of cells")
    devs = window_deviations(x, levels) if levels else {}
    return dyadic_cover(noisy_scores(devs, n_levels, eps1, penalty, rng, runs))
