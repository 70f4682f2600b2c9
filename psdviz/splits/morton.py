"""Morton (Z-order) codes: the quadtree's level-by-level node order.

With leaves numbered by interleaving the bits of their column (x) and row (y) indices, the four
children of node k on one level are nodes 4k .. 4k+3 on the next, so level counts are obtained
from leaf counts by ``reshape(-1, 4).sum(1)``.
"""
from __future__ import annotations

import numpy as np

from ..core.source import sort_pairs

_MASKS = ((16, 0x0000FFFF0000FFFF), (8, 0x00FF00FF00FF00FF), (4, 0x0F0F0F0F0F0F0F0F),
          (2, 0x3333333333333333), (1, 0x5555555555555555))


def _spread_bits(v: np.ndarray) -> np.ndarray:
    """Bit i of v (< 2^32) to bit 2 i, by shifts and masks."""
    v = v.astype(np.uint64) & np.uint64(0xFFFFFFFF)
    for shift, mask in _MASKS:
        v = (v | (v << np.uint64(shift))) & np.uint64(mask)
    return v


_SPREAD16 = _spread_bits(np.arange(1 << 16, dtype=np.uint64))    # every 16-bit value spread (512 KB)


def _spread(v: np.ndarray) -> np.ndarray:
    """Bit i of v (its low 32 bits) to bit 2 i: two look-ups of 16 bits (a third of the shifts' time)."""
    v = np.asarray(v).astype(np.int64, copy=False)
    out = _SPREAD16[v & 0xFFFF]
    high = (v >> 16) & 0xFFFF
    if high.any():
        out |= _SPREAD16[high] << np.uint64(32)
    return out


def _compact(v: np.ndarray) -> np.ndarray:
    v = v.astype(np.uint64) & np.uint64(0x5555555555555555)
    # inverse of _spread: the same masks in reverse order
    v = (v | (v >> np.uint64(1))) & np.uint64(0x3333333333333333)
    v = (v | (v >> np.uint64(2))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    v = (v | (v >> np.uint64(4))) & np.uint64(0x00FF00FF00FF00FF)
    v = (v | (v >> np.uint64(8))) & np.uint64(0x0000FFFF0000FFFF)
    v = (v | (v >> np.uint64(16))) & np.uint64(0x00000000FFFFFFFF)
    return v


def encode(ix: np.ndarray, iy: np.ndarray) -> np.ndarray:
    """Morton code with x in the even bits and y in the odd bits."""
    return (_spread(ix) | (_spread(iy) << np.uint64(1))).astype(np.int64)


class MortonBlocks:
    """Keys held in memory (``kx``, ``ky`` on a grid of ``bits`` bits an axis, ``counts``: None for one row
    each), sorted once by their Morton code, with running counts. A cell of the 2^d x 2^d grid is the block
    of codes [c 4^(bits - d), (c + 1) 4^(bits - d)), c its Morton code there, so its count is a difference of
    running counts at two bisections: every quadtree level is counted without reading the keys again."""

    def __init__(self, kx: np.ndarray, ky: np.ndarray, counts: np.ndarray | None, bits: int):
        self.bits = int(bits)
        code = encode(kx, ky)
        if counts is None:
            code.sort()
            self.running = None
        else:
            code, counts = sort_pairs(code, counts)
            self.running = np.zeros(code.size + 1, np.int64)
            np.cumsum(counts, out=self.running[1:])
        self.code = code

    def counts(self, codes: np.ndarray, depth: int) -> np.ndarray:
        """The count of each cell of the 2^depth x 2^depth grid whose Morton code is in ``codes``."""
        shift = 2 * (self.bits - int(depth))
        codes = np.asarray(codes, np.int64)
        lo = np.searchsorted(self.code, codes << shift)
        hi = np.searchsorted(self.code, (codes + 1) << shift)
        if self.running is None:
            return (hi - lo).astype(np.int64)
        return self.running[hi] - self.running[lo]


def decode(code: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Inverse of :func:`encode`."""
    c = np.asarray(code).astype(np.uint64)
    return _compact(c).astype(np.int64), _compact(c >> np.uint64(1)).astype(np.int64)
