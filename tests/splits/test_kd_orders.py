"""Keys held in two orders across a kd partition's levels (psdviz.splits.kd_orders) against the obvious way:
the groups of (node, key) and the node counts a pass over the data gives, level after level, on points in
memory and on occupied cells with counts; and kd_partition on a held source against the same source read
pass by pass (the same splits, rectangles and leaf counts, the chooser handed the same arrays)."""
from __future__ import annotations

import numpy as np
import pytest

import psdviz as pv
from psdviz.core.cells import CellTable
from psdviz.core.domain import prepare_points
from psdviz.splits.kd_orders import AxisOrders
from psdviz.splits.kdsplit import _held_partition, descend, kd_partition

BITS = 6
DOM = pv.Domain(0, 0, 1, 1)


def _points(seed: int, n: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.clip(np.vstack([rng.normal(0.4, 0.1, (n // 2, 2)), rng.random((n - n // 2, 2))]), 0, 1)


def _obvious_groups(kx, ky, w, node, axis):
    """Sorted distinct (node, key on axis) with their counts, as one grouped pass gives them."""
    ids = (node << BITS) | (kx if axis == 0 else ky)
    u, inv = np.unique(ids, return_inverse=True)
    return u, np.bincount(inv, weights=w, minlength=u.size).astype(np.int64)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_groups_and_counts_equal_a_pass_over_the_data_at_every_level(weighted, seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 400))
    kx, ky = rng.integers(0, 1 << BITS, n), rng.integers(0, 1 << BITS, n)
    w = rng.integers(1, 50, n) if weighted else None      # mean 25 rows a key: held with their counts
    orders = AxisOrders(kx, ky, w, BITS)
    splits: list[np.ndarray] = []
    for t in range(8):
        a = t % 2
        node = descend(kx, ky, splits)
        ones = np.ones(n) if w is None else w
        ids, cnt = _obvious_groups(kx, ky, ones, node, a)
        vals, offsets, counts = orders.groups(a)
        assert np.array_equal(vals, ids & ((1 << BITS) - 1)) and np.array_equal(counts, cnt)
        assert np.array_equal(offsets, np.searchsorted(ids >> BITS, np.arange(2 ** t + 1)))
        assert np.array_equal(orders.node_counts(), np.bincount(node, weights=ones, minlength=2 ** t))
        split = rng.integers(0, (1 << BITS) + 1, 2 ** t)        # any positions, empty children included
        splits.append(split)
        orders.split(a, split)


def test_counts_too_large_for_their_bits_are_spread_over_copies_of_the_key():
    bits = 30                                   # 3 bits a count in an entry: counts above 7 are spread
    rng = np.random.default_rng(5)
    kx, ky = rng.integers(0, 1 << bits, 50), rng.integers(0, 1 << bits, 50)
    w = rng.integers(1, 40, 50)
    orders = AxisOrders(kx, ky, w, bits)
    assert orders.count_bits == 3 and orders.n > 50
    vals, offsets, counts = orders.groups(0)
    order = np.argsort(kx, kind="stable")
    u, first = np.unique(kx[order], return_index=True)
    assert np.array_equal(vals, u) and np.array_equal(counts, np.add.reduceat(w[order], first))
    orders.split(0, np.array([1 << 29]))
    assert np.array_equal(orders.node_counts(), [w[kx < 1 << 29].sum(), w[kx >= 1 << 29].sum()])


def _recording(chooser, seen: list):
    def choose(t, axis, vals, offsets, rect, weights):
        seen.append((t, vals.copy(), offsets.copy(), weights.copy()))
        return chooser(t, axis, vals, offsets, rect, weights)
    return choose


def _random_chooser(seed: int):
    rng = np.random.default_rng(seed)

    def choose(t, axis, vals, offsets, rect, weights):
        lo, hi = rect[:, axis], rect[:, axis + 2]
        # a weighted key of the node where it has one (reads the groups), else a point of its region
        pick = np.where(np.diff(offsets) > 0, np.minimum(offsets[:-1] + 1, offsets[1:] - 1), -1)
        at = np.where(pick >= 0, vals[np.maximum(pick, 0)] if vals.size else lo, lo + rng.integers(0, 2, lo.size))
        return np.clip(at, lo, hi)
    return choose


@pytest.mark.parametrize("held", ["points", "cells", "heavy cells"])   # heavy: about 10 rows a cell, counts held
@pytest.mark.parametrize("reads", ["all", "first 3", "none", "even"])
@pytest.mark.parametrize("seed", range(3))
def test_kd_partition_on_held_keys_equals_pass_by_pass(held, reads, seed, pass_by_pass):
    ps = prepare_points(_points(seed, 600), DOM, resolution=BITS if held != "heavy cells" else 4)
    src = CellTable(ps, *ps.cells()) if held != "points" else ps
    read = {"all": lambda t: True, "first 3": lambda t: t < 3, "none": lambda t: False,
            "even": lambda t: t % 2 == 0}[reads]
    root = np.array([0, 0, src.grid.size, src.grid.size])
    keys = src.held()
    assert keys is not None and pass_by_pass(src).held() is None
    orders = AxisOrders(*keys, src.grid.bits)
    assert (orders.count_bits > 0) == (held == "heavy cells")
    last = max((t for t in range(9) if read(t)), default=-1)
    seen_pass: list = []
    by_pass = kd_partition(pass_by_pass(src), root, 9, _recording(_random_chooser(seed), seen_pass), read)
    for on_held in (lambda c: _held_partition(orders, root, 9, c, read, last),     # the orders, always
                    lambda c: kd_partition(src, root, 9, c, read)):                # the path kd_partition picks
        seen_held: list = []
        got = on_held(_recording(_random_chooser(seed), seen_held))
        for a, b in zip(got[0] + [got[1]] + got[2], by_pass[0] + [by_pass[1]] + by_pass[2]):
            assert np.array_equal(a, b)
        assert len(seen_held) == len(seen_pass) == 9
        for a, b in zip(seen_held, seen_pass):
            assert a[0] == b[0] and all(np.array_equal(x, y) for x, y in zip(a[1:], b[1:]))


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_divide_keeps_some_nodes_splits_them_on_their_own_axes_and_drops_the_rest(weighted, seed):
    """kd-privtree's step: nodes split on their own axis or stop (their keys leave); the kept nodes'
    children's counts, and the counts left of any position, against the keys' own nodes."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 500))
    kx, ky = rng.integers(0, 1 << BITS, n), rng.integers(0, 1 << BITS, n)
    w = rng.integers(1, 50, n) if weighted else None
    ones = np.ones(n, np.int64) if w is None else w
    orders = AxisOrders(kx, ky, w, BITS)
    node = np.zeros(n, np.int64)                                # -1: in a node that stopped
    for _ in range(7):
        m = orders.sizes.size
        if m == 0:
            break
        live = node >= 0
        assert np.array_equal(orders.node_counts(), np.bincount(node[live], weights=ones[live], minlength=m))
        for axis in (0, 1):
            q_node, q_pos = rng.integers(0, m, 20), rng.integers(0, (1 << BITS) + 1, 20)
            key = kx if axis == 0 else ky
            want = [ones[(node == j) & (key < p)].sum() for j, p in zip(q_node, q_pos)]
            assert np.array_equal(orders.left_counts(axis, q_node, q_pos), want)
        keep = rng.random(m) < 0.7
        axis = rng.integers(0, 2, m)
        pos = rng.integers(0, (1 << BITS) + 1, m)
        orders.divide(keep, axis, pos)
        rank = np.where(keep, np.cumsum(keep) - 1, -1)
        side = np.where(axis[np.maximum(node, 0)] == 0, kx, ky) >= pos[np.maximum(node, 0)]
        node = np.where((node >= 0) & (rank[np.maximum(node, 0)] >= 0), 2 * rank[np.maximum(node, 0)] + side, -1)


def test_divide_with_one_order_releases_the_other():
    rng = np.random.default_rng(9)
    kx, ky = rng.integers(0, 1 << BITS, 300), rng.integers(0, 1 << BITS, 300)
    orders = AxisOrders(kx, ky, None, BITS)
    orders.divide(np.array([True]), np.array([1]), np.array([20]), orders=(0,))
    assert orders.aligned == [True, False] and orders.codes[1].size == 0
    assert orders.node_counts().tolist() == [int((ky < 20).sum()), int((ky >= 20).sum())]
    assert np.array_equal(orders.left_counts(0, np.array([0, 1]), np.array([30, 30])),
                          [int(((ky < 20) & (kx < 30)).sum()), int(((ky >= 20) & (kx < 30)).sum())])


@pytest.mark.parametrize("bits", [16, 17])
def test_keys_in_entry_halves_split_at_the_grid_edge(bits):
    """At 16 bits an axis the keys sit in the two 16-bit halves of an entry and a split of 2^16 (the grid's
    edge: its whole node goes left) does not fit them; at 17 they are packed as before. Both agree with a
    descent of the keys."""
    rng = np.random.default_rng(bits)
    kx = np.r_[rng.integers(0, 1 << bits, 300), (1 << bits) - 1, 0]
    ky = np.r_[rng.integers(0, 1 << bits, 300), 0, (1 << bits) - 1]
    orders = AxisOrders(kx, ky, None, bits)
    assert orders.halves == (bits == 16)
    splits: list[np.ndarray] = []
    for t in range(6):
        a = t % 2
        node = descend(kx, ky, splits)
        keys = kx if a == 0 else ky
        vals, offsets, counts = orders.groups(a)
        u, c = np.unique((node << bits) | keys, return_counts=True)
        assert np.array_equal(vals, u & ((1 << bits) - 1)) and np.array_equal(counts, c)
        assert np.array_equal(offsets, np.searchsorted(u >> bits, np.arange(2 ** t + 1)))
        split = rng.integers(0, (1 << bits) + 1, 2 ** t)
        split[::3] = 1 << bits                      # the edge: every key of the node below it
        split[1::5] = 0                             # none below
        splits.append(split)
        orders.split(a, split)
    assert np.array_equal(orders.node_counts(), np.bincount(descend(kx, ky, splits), minlength=64))
