"""Hilbert curve of a given order on a 2^order x 2^order grid, vectorised (one pass per bit).

``encode`` maps cell (x, y) to its position d in [0, 4^order) along the curve and ``decode``
inverts it (the classic iterative rotate-and-flip construction). Encoding looks up ENCODE_STEP levels at
once in one table whose entry packs the levels' digits with the next state (two look-ups for a curve of
order up to 16, on 32-bit words), since a curve over 10^7 occupied cells is encoded per build. The curve
is self-similar: the cells d in [b 4^k, (b+1) 4^k) form the aligned square of side 2^k whose corner is
2^k * decode(order - k, b). :func:`range_bboxes` uses this to get the bounding box of any range
of curve positions from O(order) aligned blocks, without touching individual cells.
"""
from __future__ import annotations

import numpy as np

from ..core.grid import Grid

STEP = 6  # bits per table lookup in decode: 3 look-ups for a curve of order up to 18 (tables of 4 x 4^6 entries)
ENCODE_STEP = 8  # bits per table lookup in encode: 4 x 4^8 entries of 4 bytes (1 MB), composed from STEP 4


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


def _tables(k: int = STEP):
    """Encode table [state, xbits, ybits] -> (digits, state) and decode table [state, digits] ->
    (xbits, ybits, state) for k levels at once, every entry at once."""
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


def _composed_table(k: int) -> np.ndarray:
    """The encode table of 2k levels at once from the one of k levels (its upper k levels, then the lower k
    from the state they leave), flat [state, xbits, ybits] (state in bits 4k and up): each entry is the 4k
    bits of digits with the next state above them, pre-shifted as the next look-up's flat index."""
    enc_d, enc_s = _tables(k)[:2]
    st, xb, yb = (a.ravel() for a in np.meshgrid(np.arange(4), np.arange(1 << 2 * k), np.arange(1 << 2 * k),
                                                 indexing="ij"))
    hi_d, mid = enc_d[st, xb >> k, yb >> k], enc_s[st, xb >> k, yb >> k]
    lo_x, lo_y = xb & ((1 << k) - 1), yb & ((1 << k) - 1)
    digits = (hi_d << 2 * k) | enc_d[mid, lo_x, lo_y]
    return (digits | (enc_s[mid, lo_x, lo_y] << 4 * k)).astype(np.uint32)


_ENC_PACKED = _composed_table(ENCODE_STEP // 2)
_DIGITS = np.uint32((1 << 2 * ENCODE_STEP) - 1)


def _start(order: int, step: int = STEP) -> tuple[int, int]:
    """Padded number of levels and the start state that makes the padding levels neutral
    (each all-zero level toggles the swap flag)."""
    padded = -(-order // step) * step
    return padded, (padded - order) & 1


def encode(order: int, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Curve position of cells (x, y) (int64), ENCODE_STEP levels per table look-up: the look-up's flat
    index [state, xbits, ybits] and the entry (digits, next state) in 32-bit words."""
    x = np.asarray(x, dtype=np.int64)
    y = np.asarray(y, dtype=np.int64)
    x, y = np.broadcast_arrays(x, y)
    padded, st = _start(order, ENCODE_STEP)
    k, mask = ENCODE_STEP, np.uint32((1 << ENCODE_STEP) - 1)
    d = np.zeros(x.shape, np.int64)
    state: np.ndarray | np.uint32 = np.uint32(st << 2 * k)   # the state, pre-shifted as the flat index's high bits
    for shift in range(padded - k, -1, -k):
        at = (x >> shift).astype(np.uint32)
        at &= mask
        at <<= np.uint32(k)
        yb = (y >> shift).astype(np.uint32)
        yb &= mask
        at |= yb
        at |= state
        del yb
        entry = _ENC_PACKED.take(at)
        d <<= 2 * k
        d |= entry & _DIGITS
        state = entry & ~_DIGITS
    return d if d.ndim else d[()]


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
