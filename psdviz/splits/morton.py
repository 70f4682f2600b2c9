"""Morton (Z-order) codes: the quadtree's level-by-level node order.

With leaves numbered by interleaving the bits of their column (x) and row (y) indices, the four
children of node k on one level are nodes 4k .. 4k+3 on the next, so level counts are obtained
from leaf counts by ``reshape(-1, 4).sum(1)``.
"""
from __future__ import annotations

import numpy as np

_MASKS = ((16, 0x0000FFFF0000FFFF), (8, 0x00FF00FF00FF00FF), (4, 0x0F0F0F0F0F0F0F0F),
          (2, 0x3333333333333333), (1, 0x5555555555555555))


def _spread(v: np.ndarray) -> np.ndarray:
    v = v.astype(np.uint64) & np.uint64(0xFFFFFFFF)
    for shift, mask in _MASKS:
        v = (v | (v << np.uint64(shift))) & np.uint64(mask)
    return v


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


def decode(code: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Inverse of :func:`encode`."""
    c = np.asarray(code).astype(np.uint64)
    return _compact(c).astype(np.int64), _compact(c >> np.uint64(1)).astype(np.int64)
