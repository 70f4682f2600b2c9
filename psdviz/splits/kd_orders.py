"""Held keys in two orders kept across the levels of a binary partition: sorted once, never again.

A kd level reads, per node, the distinct keys on the split axis and their counts (the groups of (node,
key) a pass over a source returns: :func:`psdviz.splits.kdsplit.kd_partition`). A source that holds its
keys in memory (:meth:`psdviz.core.source.KeySource.held`: the occupied cells read once, or points in
memory) is put once into two orders, by x and by y. An entry of an order is one integer, ``key on the
order's axis`` and ``the other key`` packed from the high bits down, then its count where the keys hold
more than :data:`UNIT_ENTRIES` rows each on average (else one entry a row, and no count: 4 bytes an entry up
to 16 bits an axis, the two keys then in the entry's two 16-bit halves, which numpy reads as strided views
without a pass of shifts and masks; a count too large for its bits is spread over several entries of the
same key), so the orders sort as plain integers (the y-order of occupied cells comes sorted) and move as
one array. A node is one slice ``[bounds[j], bounds[j + 1])`` of both orders, its entries sorted inside
it. Then, with no further sort:

- a level's groups are the runs of equal keys in the split axis' order (a run never crosses a slice);
- splitting every node at a position on axis a leaves the a-order as it is (each slice's two parts are
  the children; where a slice divides is found by bisection) and splits the other order by a stable
  partition of each slice, the entries going left first: two boolean compressions into two boolean
  masks of the output, each part keeping its order;
- a node's count is a difference of prefix sums at its bounds.

The groups and counts are exactly those of a pass over the data (counts of a multiset), so the splits
and the release for a seed are the same as on any other source. Memory: 4 or 8 bytes an entry and order,
and while an order is split, its new copy, the compressed part and two masks (at most 2 bytes plus twice
the entry's more).
"""
from __future__ import annotations

import sys

import numpy as np

UNIT_ENTRIES = 2    # rows a key on average up to which the keys are held one entry a row (module docstring)
HALF = 16           # bits of an entry's half where one entry is 4 bytes (a key a half)


def _segment_sums(mask: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """The number of True entries of ``mask`` in each slice [bounds[j], bounds[j + 1])."""
    running = np.zeros(mask.size + 1, np.int32 if mask.size < 2 ** 31 else np.int64)
    np.cumsum(mask, out=running[1:])
    return np.diff(running[bounds]).astype(np.int64)


def _entries(kx: np.ndarray, ky: np.ndarray, counts: np.ndarray | None, count_bits: int
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """The keys with counts of at most 2^count_bits - 1 each: a key with more is repeated, its count spread
    over the copies (their sum is the count, so every group and node count is unchanged)."""
    if counts is None:
        return kx, ky, None
    counts = np.asarray(counts, np.int64)
    most = (1 << count_bits) - 1
    if counts.size == 0 or int(counts.max()) <= most:
        return kx, ky, counts
    copies = -(-counts // most)
    at = np.repeat(np.arange(counts.size), copies)
    last = np.cumsum(copies) - 1
    spread = np.full(at.size, most, np.int64)
    spread[last] = counts - most * (copies - 1)
    return kx[at], ky[at], spread


class AxisOrders:
    """The keys ``(kx, ky)`` with ``counts`` (None: one each) on a grid of ``bits`` bits per axis, in
    an x-order (``order`` 0) and a y-order (1); all keys start in one node (``bounds`` [0, n])."""

    def __init__(self, kx: np.ndarray, ky: np.ndarray, counts: np.ndarray | None, bits: int):
        self.bits = int(bits)
        self.mask = (1 << self.bits) - 1
        kx, ky = np.asarray(kx, np.int64), np.asarray(ky, np.int64)
        rows = None         # one entry a row: each key's entry repeated its count times
        if counts is not None and int(np.sum(counts)) <= UNIT_ENTRIES * kx.size:
            rows, counts = np.asarray(counts, np.int64), None
        self.count_bits = 0 if counts is None else 63 - 2 * self.bits
        kx, ky, counts = _entries(kx, ky, counts, self.count_bits)
        # where the major key sits above the minor one: an entry's upper half when entries are 4 bytes
        self.slot = HALF if not self.count_bits and self.bits <= HALF else self.bits
        small = 2 * self.slot + self.count_bits <= 32
        self.halves = small and self.slot == HALF and sys.byteorder == "little"   # keys read as uint16 views
        self.codes: list[np.ndarray] = []
        for major, minor in ((kx, ky), (ky, kx)):
            if small:           # keys of at most 16 bits and no count: packed in 32 bits
                codes = major.astype(np.uint32)
                codes <<= np.uint32(self.slot)
                codes |= minor.astype(np.uint32)
            else:
                codes = (major << self.slot) | minor
                if self.count_bits:
                    codes <<= self.count_bits
                    codes |= counts
            if rows is not None:
                codes = np.repeat(codes, rows)
            if codes.size > 1 and not bool((codes[1:] >= codes[:-1]).all()):
                codes.sort()                     # a value sort: numpy's SIMD sort where it has one
            self.codes.append(codes)
        self.n = int(self.codes[0].size)
        self.bounds = np.array([0, self.n], np.int64)
        self.aligned = [True, True]     # which orders' slices are the present nodes

    @property
    def sizes(self) -> np.ndarray:
        return np.diff(self.bounds)

    def _shift(self, order: int, axis: int) -> int:
        """Where the key on ``axis`` sits in an entry of ``order``."""
        return self.count_bits + (self.slot if order == axis else 0)

    def _keys(self, order: int, axis: int) -> np.ndarray:
        """Every entry's key on ``axis`` in ``order``: a strided uint16 view of the entries' halves where
        they are 4 bytes (no pass), else the shifted and masked entries."""
        codes = self.codes[order]
        if self.halves:
            return codes.view(np.uint16)[1 if order == axis else 0::2]
        key = codes >> codes.dtype.type(self._shift(order, axis))
        return key if order == axis else key & codes.dtype.type(self.mask)

    def _weights(self, codes: np.ndarray) -> np.ndarray:
        return codes & ((1 << self.count_bits) - 1)

    def groups(self, axis: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per node, its distinct keys on ``axis`` (sorted), their offsets (one segment a node) and counts."""
        codes = self.codes[axis]
        key = self._keys(axis, axis)
        if self.n == 0:
            return key.astype(np.int64), np.zeros(self.bounds.size, np.int64), np.zeros(0, np.int64)
        new = np.empty(self.n, bool)
        new[0] = True
        np.not_equal(key[1:], key[:-1], out=new[1:])
        new[self.bounds[:-1][self.sizes > 0]] = True          # a run never crosses a node's bounds
        starts = np.flatnonzero(new)
        del new
        if self.count_bits:
            total = np.zeros(self.n + 1, np.int64)
            np.cumsum(self._weights(codes), out=total[1:])
            counts = np.diff(total[np.r_[starts, self.n]])
        else:
            counts = np.empty(starts.size, np.int64)
            np.subtract(starts[1:], starts[:-1], out=counts[:-1])
            counts[-1] = self.n - starts[-1]
        return key[starts].astype(np.int64), np.searchsorted(starts, self.bounds), counts

    def split(self, axis: int, split: np.ndarray, partition: bool = True) -> None:
        """Every node j to children 2j (keys on ``axis`` below ``split[j]``) and 2j + 1 (the others).
        ``partition`` False leaves the other order as it was (no later level reads it)."""
        split = np.asarray(split, np.int64)
        n_left = self._first_at_or_above(axis, split, self.bounds[:-1], self.bounds[1:]) - self.bounds[:-1]
        if partition:      # the key on ``axis`` is the other order's minor key
            self._partition(1 - axis, self._below(1 - axis, axis, split), n_left, None)
        else:
            self.aligned[1 - axis] = False
        self._children(n_left, self.sizes)

    def divide(self, keep: np.ndarray, axis: np.ndarray, pos: np.ndarray, orders: tuple[int, ...] = (0, 1)) -> None:
        """Each node j with ``keep[j]`` to two children, its keys on ``axis[j]`` below ``pos[j]`` first (the
        r-th kept node's children are 2r and 2r + 1); the entries of the other nodes are dropped. The
        ``orders`` stay aligned with the new nodes; any other is released."""
        kept = np.flatnonzero(keep)
        sizes = self.sizes
        n_left = None
        for order in orders:
            left = self._below(order, np.asarray(axis), np.asarray(pos))
            if n_left is None:
                n_left = _segment_sums(left, self.bounds)[kept]
            self._partition(order, left, n_left, None if kept.size == sizes.size else np.asarray(keep, bool))
        for order in {0, 1} - set(orders):
            self.codes[order] = np.zeros(0, self.codes[order].dtype)
            self.aligned[order] = False
        assert n_left is not None, "divide needs an order to keep"
        self._children(n_left, sizes[kept])

    def _below(self, order: int, axis: int | np.ndarray, split: np.ndarray) -> np.ndarray:
        """Whether each entry of ``order`` has its key on ``axis`` (one axis, or one a node) below its node's
        ``split`` (a mask)."""
        sizes = self.sizes
        if self.halves:     # compared in 16 bits; a split outside them (2^16, the grid's edge) takes its whole node
            if np.ndim(axis) == 0:
                key = self._keys(order, int(axis))
            else:
                key = np.where(np.repeat(axis == order, sizes), self._keys(order, order), self._keys(order, 1 - order))
            over = (split > np.iinfo(np.uint16).max) | (split < 0)
            below = key < np.repeat(np.where(over, 0, split).astype(np.uint16), sizes)
            if over.any():
                below |= np.repeat(over, sizes)
            return below
        codes = self.codes[order]
        if np.ndim(axis) == 0:
            shift = self._shift(order, int(axis))
            return np.bitwise_and(codes, codes.dtype.type(self.mask << shift)) < np.repeat(
                (split << shift).astype(codes.dtype), sizes)
        at = np.where(axis == order, self._shift(order, order), self._shift(order, 1 - order))
        return ((codes >> np.repeat(at.astype(codes.dtype), sizes)) & self.mask) < np.repeat(split.astype(codes.dtype),
                                                                                              sizes)

    def _children(self, n_left: np.ndarray, sizes: np.ndarray) -> None:
        """The bounds of the children of nodes of ``sizes`` entries (in order), ``n_left`` of them on the left."""
        bounds = np.zeros(2 * n_left.size + 1, np.int64)
        np.cumsum(sizes, out=bounds[2::2])
        bounds[1::2] = bounds[0:-1:2] + n_left
        self.bounds = bounds
        self.n = int(bounds[-1])

    def left_counts(self, axis: int, nodes: np.ndarray, pos: np.ndarray) -> np.ndarray:
        """Per (node, position) query, the count of the node's keys below the position on ``axis``."""
        nodes = np.asarray(nodes, np.int64)
        start, stop = self.bounds[nodes], self.bounds[nodes + 1]
        at = self._first_at_or_above(axis, np.asarray(pos, np.int64), start, stop)
        if not self.count_bits:
            return at - start
        total = np.zeros(self.n + 1, np.int64)
        np.cumsum(self._weights(self.codes[axis]), out=total[1:])
        return total[at] - total[start]

    def _first_at_or_above(self, axis: int, value: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """Per query, the first index in [lo, hi) of the ``axis`` order whose key on ``axis`` is at least
        ``value`` (hi if none), within one node's slice: a bisection of all queries at once."""
        codes, shift = self.codes[axis], self._shift(axis, axis)
        lo, hi = np.array(lo, np.int64), np.array(hi, np.int64)
        while True:
            open_ = lo < hi
            if not open_.any():
                return lo
            mid = (lo + hi) >> 1
            below = (codes[np.minimum(mid, self.n - 1)] >> shift) < value
            lo = np.where(open_ & below, mid + 1, lo)
            hi = np.where(open_ & ~below, mid, hi)

    def _partition(self, order: int, left: np.ndarray, n_left: np.ndarray, keep: np.ndarray | None) -> None:
        """Stable partition of the slices of ``order`` (of the nodes ``keep``, a mask; None: all), the
        entries ``left`` first; the entries of the other nodes are dropped. The entries going left,
        compressed in order, fill the output positions of the left parts (a boolean mask of the output,
        from the parts' sizes), the others the rest."""
        codes = self.codes[order]
        sizes = self.sizes if keep is None else self.sizes[keep]
        parts = np.empty(2 * n_left.size, np.int64)
        parts[0::2], parts[1::2] = n_left, sizes - n_left
        goes_left = np.repeat(np.tile(np.array([True, False]), n_left.size), parts)
        right = ~left
        if keep is not None:
            inside = np.repeat(keep, self.sizes)
            left &= inside
            right &= inside
        moved = np.empty(goes_left.size, codes.dtype)
        moved[goes_left] = codes[left]
        np.logical_not(goes_left, out=goes_left)
        moved[goes_left] = codes[right]
        self.codes[order] = moved

    def node_counts(self) -> np.ndarray:
        """The count of every node (int64)."""
        if not self.count_bits:
            return self.sizes
        total = np.zeros(self.n + 1, np.int64)
        np.cumsum(self._weights(self.codes[self.aligned.index(True)]), out=total[1:])
        return total[self.bounds[1:]] - total[self.bounds[:-1]]

    def nodes_and_keys(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
        """Every entry's node, x key, y key and count (None: one each), in an order whose slices are the nodes."""
        order = self.aligned.index(True)
        codes = self.codes[order]
        node = np.repeat(np.arange(self.sizes.size, dtype=np.int64), self.sizes)
        kx = ((codes >> self._shift(order, 0)) & self.mask).astype(np.int64)
        ky = ((codes >> self._shift(order, 1)) & self.mask).astype(np.int64)
        return node, kx, ky, self._weights(codes) if self.count_bits else None
