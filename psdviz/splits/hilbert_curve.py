"""Hilbert curve of a given order on a 2^order x 2^order grid, vectorised (one pass per bit).

``encode`` maps cell (x, y) to its position d in [0, 4^order) along the curve and ``decode``
inverts it (the classic iterative rotate-and-flip construction). The curve is self-similar: the
cells d in [b 4^k, (b+1) 4^k) form the aligned square of side 2^k whose corner is
2^k * decode(order - k, b). :func:`range_bboxes` uses this to get the bounding box of any range
of curve positions from O(order) aligned blocks, without touching individual cells.
"""
from __future__ import annotations

import numpy as np

from ..core.grid import Grid

STEP = 6  # bits per table lookup: 3 look-ups for a curve of order up to 18 (tables of 4 x 4^6 entries, 128 KB)


def _step(state, bx, by):
    """One level of the curve as a 4-state machine: state = (flip << 1) | swap, the orientation
    (commuting involutions) applied to the lower bits. Returns (digit, new state); on ints or arrays."""
    flip, swap = state >> 1, state & 1
    rx, ry = bx ^ flip, by ^ flip
    rx, ry = np.where(swap == 1, ry, rx), np.where(swap == 1, rx, ry)
    digit = (3 * rx) ^ ry
    turn = ry == 0
    swap = np.where(turn, swap ^ 1, swap)
    flip = np.where(turn, flip ^ rx, flip)
    return digit, (flip << 1) | swap


def _tables():
    """Encode table [state, xbits, ybits] -> (digits, state) and decode table [state, digits] ->
    (xbits, ybits, state) for STEP levels at once, every entry at once."""
    k = STEP
    st, xb, yb = (a.ravel() for a in np.meshgrid(np.arange(4), np.arange(1 << k), np.arange(1 << k), indexing="ij"))
    cur, d = st.astype(np.int64), np.zeros(st.size, np.int64)
    for lvl in range(k - 1, -1, -1):
        digit, cur = _step(cur, (xb >> lvl) & 1, (yb >> lvl) & 1)
        d = (d << 2) | digit
    shape = (4, 1 << k, 1 << k)
    enc_d, enc_s = d.reshape(shape), cur.reshape(shape)
    dec_x, dec_y, dec_s = (np.zeros((4, 1 << 2 * k), np.int64) for _ in range(3))
    dec_x[st, d], dec_y[st, d], dec_s[st, d] = xb, yb, cur
    return enc_d, enc_s, dec_x, dec_y, dec_s


_ENC_D, _ENC_S, _DEC_X, _DEC_Y, _DEC_S = _tables()
_ENC_D_FLAT = _ENC_D.ravel()
_ENC_S_FLAT = (_ENC_S << (2 * STEP)).ravel()        # the next state, pre-shifted as a flat index


def _start(order: int) -> tuple[int, int]:
    """Padded number of levels and the start state that makes the padding levels neutral
    (each all-zero level toggles the swap flag)."""
    padded = -(-order // STEP) * STEP
    return padded, (padded - order) & 1


def encode(order: int, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Curve position of cells (x, y), STEP levels per table lookup."""
    x = np.asarray(x, dtype=np.int64)
    y = np.asarray(y, dtype=np.int64)
    padded, st = _start(order)
    shape = np.broadcast(x, y).shape
    state = np.full(shape, st * (1 << 2 * STEP), dtype=np.int64)      # state, pre-shifted for the flat tables
    d = np.zeros(shape, dtype=np.int64)
    mask = (1 << STEP) - 1
    for shift in range(padded - STEP, -1, -STEP):
        at = state | (((x >> shift) & mask) << STEP) | ((y >> shift) & mask)    # flat [state, xb, yb]
        d = (d << (2 * STEP)) | _ENC_D_FLAT[at]
        state = _ENC_S_FLAT[at]
    return d


def decode(order: int, d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Inverse of :func:`encode`."""
    d = np.asarray(d, dtype=np.int64)
    padded, st = _start(order)
    state = np.full(d.shape, st, dtype=np.int64)
    x = np.zeros_like(d)
    y = np.zeros_like(d)
    mask = (1 << 2 * STEP) - 1
    for shift in range(padded - STEP, -1, -STEP):
        digits = (d >> (2 * shift)) & mask
        x = (x << STEP) | _DEC_X[state, digits]
        y = (y << STEP) | _DEC_Y[state, digits]
        state = _DEC_S[state, digits]
    return x, y


def _blocks(lo: np.ndarray, hi: np.ndarray, k: int, order: int) -> list[tuple]:
    """Level-k blocks of the canonical decomposition of [lo, hi) (the fringes left and right of
    the level-(k+1) blocks): per fringe, (ranges having blocks, offset of each range's first
    block, block indices grouped by range)."""
    size = 4 ** k
    a = -(-lo // size)
    b = hi // size
    if k < order:
        a2 = -(-lo // (4 * size)) * 4
        b2 = hi // (4 * size) * 4
        inner = a2 < b2      # some level-(k+1) block is inside: keep only the two fringes
    else:
        a2 = b2 = b
        inner = np.zeros(lo.size, bool)
    starts = [a, np.where(inner, b2, b)]
    ends = [np.where(inner, a2, b), b]
    out = []
    for s, e in zip(starts, ends):
        w = np.maximum(e - s, 0)
        total = int(w.sum())
        if not total:
            continue
        first = np.cumsum(w) - w
        blocks = np.repeat(s - first, w) + np.arange(total)
        out.append((np.flatnonzero(w), first[w > 0], blocks))
    return out


def range_bboxes(order: int, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """(k, 4) cell-index boxes [x0, y0, x1, y1) of the cells with curve positions in [lo, hi).
    An empty range gets the zero-size box at the cell of position lo (clamped to the curve)."""
    lo = np.asarray(lo, dtype=np.int64)
    hi = np.asarray(hi, dtype=np.int64)
    n = 1 << order
    box = np.empty((lo.size, 4), dtype=np.int64)
    box[:, :2] = n
    box[:, 2:] = -1
    for k in range(order + 1):
        side = 1 << k
        for own, first, blk in _blocks(lo, hi, k, order):
            bx, by = decode(order - k, blk)   # blocks of one owner are contiguous: reduceat
            box[own, 0] = np.minimum(box[own, 0], np.minimum.reduceat(bx, first) * side)
            box[own, 1] = np.minimum(box[own, 1], np.minimum.reduceat(by, first) * side)
            box[own, 2] = np.maximum(box[own, 2], (np.maximum.reduceat(bx, first) + 1) * side)
            box[own, 3] = np.maximum(box[own, 3], (np.maximum.reduceat(by, first) + 1) * side)
    empty = hi <= lo
    if empty.any():
        ex, ey = decode(order, np.minimum(lo[empty], n * n - 1))
        box[empty] = np.column_stack([ex, ey, ex, ey])
    return box


def range_rects(grid: Grid, order: int, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Domain rectangles of the curve cells in each range [lo, hi): a curve cell of order ``order``
    is a block of 2^(bits - order) grid cells, so every corner is a grid position."""
    box = range_bboxes(order, lo, hi).astype(np.int64)
    return grid.rects(box << (grid.bits - order))
