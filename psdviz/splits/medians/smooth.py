"""Smooth-sensitivity medians (ICDE'12 section 6.1, Definition 4; Nissim, Raskhodnikova, Smith 2007).

For sorted values x_1..x_n in the node's region [lo, hi], padded with x_0 = lo and x_{n+1} = hi
(the paper's convention x_i = lo below the range, hi above it), median index m = ceil(n/2), and
xi = epsilon / (4 (1 + ln(2/delta))):

    sigma = max_{0<=k<=n} e^{-k xi} max_{0<=t<=k+1} (x_{m+t} - x_{m+t-k-1})
          = max over pairs i <= m <= j of e^{-(j-i-1) xi} (x_j - x_i),

and SS = x_m + (2 sigma / epsilon) * noise, clipped to [lo, hi] (post-processing).

On the public grid: keys, lo and hi are integer grid positions, sigma is in grid
steps, and the noise is two-sided geometric (discrete Laplace) with scale 2 sigma / epsilon, so the
output is a grid position. Why this keeps Definition 4's guarantee: the smooth-sensitivity argument
needs the noise to "slide" (shift by the median's change, here an integer number of steps) and to
"dilate" (scale by e^{+-beta} when sigma changes between neighbours). The discrete Laplace's density
at integer k is tanh(1/2b) e^{-|k|/b}; a shift by d steps changes it by at most e^{|d|/b}, as the
continuous one, and a change of scale changes the exponent exactly as in the continuous case while
the normaliser ratio tanh(1/2b)/tanh(1/2b') lies between b'/b and 1 (tanh is concave), never worse
than the continuous ratio b'/b. So every pointwise bound of the continuous proof holds, and the
mechanism stays (epsilon, delta)-DP with the same constants. We chose this over the snapping
mechanism because snapping rounds to multiples of the noise scale, coarser than the grid.
Padding entries beyond 0 or n+1 repeat lo / hi with a larger k, so they never win.

Exact computation in O(n log n) per level for all nodes together: for fixed i the best j is
monotone in i (the ratio (x_j' - x)/(x_j - x) grows with x for j' > j), so a divide-and-conquer
over i with shrinking j-ranges evaluates O(n) pairs per round, and all nodes' subproblems of a
round are processed in one numpy pass (log2 n rounds).
"""
from __future__ import annotations

import math

import numpy as np

from ...core.errors import ParameterError
from ...core.noise import two_sided_geometric
from .segments import segment_argmax

EPS_LIMIT = 1.0   # Definition 4 (Claim 3.3 of [20]) is stated for 0 < epsilon, delta < 1


def smooth_xi(epsilon: float, delta: float) -> float:
    """xi = epsilon / (4 (1 + ln(2 / delta))); checks 0 < epsilon, delta < 1 (Definition 4)."""
    if not 0 < delta < 1:
        raise ParameterError(f"delta must lie in (0, 1) (got {delta!r})")
    if not 0 < epsilon < EPS_LIMIT:
        raise ParameterError(f"smooth-sensitivity medians need a per-median epsilon in (0, 1) "
                             f"(Definition 4; got {epsilon:g}): use a smaller epsilon or median='em'")
    return epsilon / (4.0 * (1.0 + math.log(2.0 / delta)))


def _padded(values, offsets, lo, hi):
    n_seg = offsets.size - 1
    counts = np.diff(offsets)
    shift = 2 * np.arange(n_seg)
    pad = np.empty(values.size + 2 * n_seg)
    pad[offsets[:-1] + shift] = lo
    pad[offsets[1:] + shift + 1] = hi
    seg = np.repeat(np.arange(n_seg), counts)
    pad[np.arange(values.size) + 2 * seg + 1] = np.clip(values, lo[seg], hi[seg])
    return pad, offsets[:-1] + shift, counts


def smooth_sensitivity(values: np.ndarray, offsets: np.ndarray, lo, hi, xi: float) -> np.ndarray:
    """sigma_s(median) of Definition 4 for every segment (exact)."""
    offsets = np.asarray(offsets, dtype=np.int64)
    n_seg = offsets.size - 1
    lo = np.broadcast_to(np.asarray(lo, float), (n_seg,))
    hi = np.broadcast_to(np.asarray(hi, float), (n_seg,))
    pad, base, n = _padded(values, offsets, lo, hi)
    m = base + (n + 1) // 2
    log_best = np.full(n_seg, -np.inf)
    # subproblems: segment, i range [ilo, ihi], j range [jlo, jhi] (inclusive, padded indices)
    seg, ilo, ihi, jlo, jhi = np.arange(n_seg), base, m, m, base + n + 1
    while seg.size:
        imid = (ilo + ihi) // 2
        width = jhi - jlo + 1
        owner = np.repeat(np.arange(seg.size), width)
        starts = np.cumsum(width) - width
        j = jlo[owner] + np.arange(owner.size) - starts[owner]
        i = imid[owner]
        with np.errstate(divide="ignore"):
            val = np.log(np.maximum(pad[j] - pad[i], 0.0)) - (j - i - 1) * xi
        pos = segment_argmax(val, starts, last=True)
        jstar = j[pos]
        np.maximum.at(log_best, seg, val[pos])
        left = ilo <= imid - 1
        right = imid + 1 <= ihi
        seg = np.r_[seg[left], seg[right]]
        ilo, ihi = np.r_[ilo[left], imid[right] + 1], np.r_[imid[left] - 1, ihi[right]]
        jlo, jhi = np.r_[jlo[left], jstar[right]], np.r_[jstar[left], jhi[right]]
    return np.exp(log_best)


def smooth_medians(rng: np.random.Generator, values: np.ndarray, offsets: np.ndarray, lo, hi,
                   epsilon: float, delta: float = 1e-4) -> np.ndarray:
    """(epsilon, delta)-DP median positions, one per segment: x_m + discrete Laplace(2 sigma / epsilon)."""
    offsets = np.asarray(offsets, dtype=np.int64)
    n_seg = offsets.size - 1
    lo = np.broadcast_to(np.asarray(lo, np.int64), (n_seg,))
    hi = np.broadcast_to(np.asarray(hi, np.int64), (n_seg,))
    values = np.asarray(values, dtype=float)
    sigma = smooth_sensitivity(values, offsets, lo.astype(float), hi.astype(float), smooth_xi(epsilon, delta))
    pad, base, n = _padded(values, offsets, lo.astype(float), hi.astype(float))
    xm = pad[base + (n + 1) // 2].astype(np.int64)
    return np.clip(xm + two_sided_geometric(rng, 2.0 * sigma / epsilon), lo, hi)
