"""Splits on a coarser public grid first: the cells of a 2^k x 2^k grid before anything inside them.

Rule (wrapping any kd chooser, :data:`psdviz.splits.kdsplit.Chooser`): a node that spans at least two
cells of the coarse grid along the split axis is split at a coarse-grid position (the inner rule, a
private median or a midpoint, run on the keys rounded down to coarse cells); a node one coarse cell wide
on the split axis while still wider than one cell on the other axis is not cut along this axis (its
split sits at its lower edge, one empty child), so its depth goes to the other axis; a node inside one
coarse cell (one cell or less on both axes) is split on the release grid as before. At resolution k this
is the tree the rule builds anyway; at a finer resolution it keeps the coarse cells' edges as node
edges, which matters when values were recorded at the coarse precision and spread inside their cells
(DPBench's histograms placed uniformly in their cells; values rounded before they were collected), and
costs little on continuous data, whose private medians are not finer than a coarse cell anyway while a
node spans many of them.

Privacy: the coarse grid is public (a parameter); rounding the keys down maps each point to one key, so
a private median of the rounded keys has the same rank sensitivity and the same epsilon as before; the
choice between coarse, held and fine splits reads only the node's public rectangle; overriding a held
node's split with its lower edge is post-processing of the released split.
"""
from __future__ import annotations

import numpy as np

from .kdsplit import Chooser
from .quantile import merge_keys


def coarse_first(choose: Chooser, bits: int, coarse_bits: int | None) -> Chooser:
    """``choose`` applied on the 2^coarse_bits grid while a node spans more than one of its cells (module
    docstring); unchanged when ``coarse_bits`` is None or not coarser than the release grid."""
    if coarse_bits is None or coarse_bits >= bits:
        return choose
    shift = bits - coarse_bits
    cell = 1 << shift

    def wrapped(t: int, axis: int, vals: np.ndarray, offsets: np.ndarray, rect: np.ndarray,
                weights: np.ndarray) -> np.ndarray:
        lo, hi = rect[:, axis], rect[:, axis + 2]
        olo, ohi = rect[:, 1 - axis], rect[:, 3 - axis]
        aligned = (lo % cell == 0) & (hi % cell == 0)
        wide = aligned & (hi - lo >= 2 * cell)
        hold = aligned & (hi - lo == cell) & (olo % cell == 0) & (ohi % cell == 0) & (ohi - olo >= 2 * cell)
        sh = np.where(wide, shift, 0).astype(np.int64)
        keys = np.asarray(vals, np.int64) >> np.repeat(sh, np.diff(offsets))
        keys, offs, w = merge_keys(keys, np.asarray(offsets, np.int64), weights)
        r = rect.copy()
        r[:, axis], r[:, axis + 2] = lo >> sh, hi >> sh
        pos = np.asarray(choose(t, axis, keys, offs, r, w), np.int64) << sh
        return np.where(hold, lo, pos)
    return wrapped
