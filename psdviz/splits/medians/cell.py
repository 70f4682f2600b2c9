"""Cell-based medians (ICDE'12 section 6.1, heuristic of Xiao et al. [26]), many nodes at once.

A fixed public grid (``origin`` + multiples of ``cell`` grid positions) is laid over the axis; every node gets
noisy counts (two-sided geometric, sensitivity 1) of its points in each grid cell meeting its
region [lo, hi] (the nodes of a level are disjoint, so the cells of all nodes are disjoint:
parallel composition), and its median is read off the noisy counts: negative counts are clipped
to 0 and the point where the cumulative count reaches half the node's noisy total is found by
linear interpolation inside its cell, rounded to the nearest grid position (post-processing of
noisy counts). A node with noisy total 0 gets its middle position. Keys, lo and hi are integer
positions of the public grid. For the 2-D kd-cell tree see :mod:`psdviz.methods.kdcell`.
"""
from __future__ import annotations

import numpy as np

from ...core.errors import ParameterError
from ...core.noise import geometric_noise


def cell_medians(rng: np.random.Generator, values: np.ndarray, offsets: np.ndarray, lo, hi,
                 epsilon: float, *, origin: float, cell: float) -> np.ndarray:
    if not cell > 0:
        raise ParameterError(f"cell must be > 0 (got {cell!r})")
    offsets = np.asarray(offsets, dtype=np.int64)
    n_seg = offsets.size - 1
    lo = np.broadcast_to(np.asarray(lo, np.int64), (n_seg,))
    hi = np.broadcast_to(np.asarray(hi, np.int64), (n_seg,))
    a = np.floor((lo - origin) / cell).astype(np.int64)
    b = np.maximum(np.ceil((hi - origin) / cell).astype(np.int64), a + 1)   # cells a .. b-1
    width = b - a
    start = np.cumsum(width) - width
    seg = np.repeat(np.arange(n_seg), np.diff(offsets))
    c = np.clip(np.floor((values - origin) / cell).astype(np.int64), a[seg], b[seg] - 1)
    counts = np.bincount(start[seg] + c - a[seg], minlength=int(width.sum()))
    noisy = np.maximum(counts + geometric_noise(rng, counts.size, epsilon), 0).astype(float)
    cum = np.cumsum(noisy)
    before = np.r_[0.0, cum][start]
    total = np.r_[0.0, cum][start + width] - before
    target = before + total / 2.0
    k = np.minimum(np.searchsorted(cum, target, side="left"), start + width - 1)
    prev = np.r_[0.0, cum][k]
    frac = np.divide(target - prev, noisy[k], out=np.zeros(n_seg), where=noisy[k] > 0)
    med = np.rint(origin + (a + (k - start) + frac) * cell).astype(np.int64)
    return np.where(total > 0, np.clip(med, lo, hi), (lo + hi) // 2)
