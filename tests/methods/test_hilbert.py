"""Hilbert curve and the Hilbert R-tree's node boxes (ICDE'12 sections 3.2, 8)."""
import numpy as np
import pytest

import psdviz as pv
from psdviz.splits.hilbert_curve import decode, encode, range_bboxes


@pytest.mark.parametrize("order", [1, 2, 3, 4, 5, 6, 7, 13, 16, 18, 20, 26])
def test_table_curve_equals_reference(order):
    rng = np.random.default_rng(order)
    x, y = rng.integers(0, 2 ** order, 3000), rng.integers(0, 2 ** order, 3000)
    np.testing.assert_array_equal(encode(order, x, y), encode_reference(order, x, y))
    d = rng.integers(0, 4 ** order, 3000)
    for a, b in zip(decode(order, d), decode_reference(order, d)):
        np.testing.assert_array_equal(a, b)


def test_curve_is_a_hilbert_curve():
    o = 5
    x, y = decode(o, np.arange(4 ** o))
    assert len(set(zip(x.tolist(), y.tolist()))) == 4 ** o            # a bijection
    assert (np.abs(np.diff(x)) + np.abs(np.diff(y)) == 1).all()       # unit steps
    np.testing.assert_array_equal(encode(o, x, y), np.arange(4 ** o))


def test_range_boxes_against_brute_force():
    o = 6
    rng = np.random.default_rng(0)
    lo = rng.integers(0, 4 ** o, 400)
    hi = np.minimum(lo + rng.integers(0, 900, 400), 4 ** o)
    box = range_bboxes(o, lo, hi)
    for a, b, bb in zip(lo, hi, box):
        if b > a:
            cx, cy = decode(o, np.arange(a, b))
            assert list(bb) == [cx.min(), cy.min(), cx.max() + 1, cy.max() + 1]
        else:
            assert bb[0] == bb[2] and bb[1] == bb[3]


def test_overlapping_boxes_answer_consistently():
    """Consistent estimates: the answer for the whole domain equals the root estimate, and a
    query's answer equals the sum of answers over a partition of it (linearity, boxes overlap)."""
    rng = np.random.default_rng(1)
    xy = rng.uniform(0, 1, (5000, 2)) ** 2
    dom = pv.Domain(0, 0, 1, 1)
    rel = pv.build(xy, dom, "hilbert", 1.0, seed=2, height=4, prune=None)
    assert rel.answer([[0, 0, 1, 1]])[0] == pytest.approx(rel.tree.est[0])
    q = rng.uniform(0, 1, (50, 4))
    q = np.column_stack([np.minimum(q[:, 0], q[:, 2]), np.minimum(q[:, 1], q[:, 3]),
                         np.maximum(q[:, 0], q[:, 2]), np.maximum(q[:, 1], q[:, 3])])
    mid = (q[:, 0] + q[:, 2]) / 2
    left = q.copy()
    left[:, 2] = mid
    right = q.copy()
    right[:, 0] = mid
    np.testing.assert_allclose(rel.answer(q), rel.answer(left) + rel.answer(right), rtol=1e-9, atol=1e-6)

def _rotate(s: int | np.ndarray, x: np.ndarray, y: np.ndarray, rx: np.ndarray, ry: np.ndarray):
    flip = (ry == 0) & (rx == 1)
    x = np.where(flip, s - 1 - x, x)
    y = np.where(flip, s - 1 - y, y)
    swap = ry == 0
    return np.where(swap, y, x), np.where(swap, x, y)

# test oracle (was psdviz/splits/hilbert_curve.py): a slow, obvious version the fast code is checked against
def encode_reference(order: int, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    n = 1 << order
    x = np.asarray(x, dtype=np.int64)
    y = np.asarray(y, dtype=np.int64)
    d = np.zeros(np.broadcast(x, y).shape, dtype=np.int64)
    s = n >> 1
    while s > 0:
        rx = ((x & s) > 0).astype(np.int64)
        ry = ((y & s) > 0).astype(np.int64)
        d += s * s * ((3 * rx) ^ ry)
        x, y = _rotate(n, x, y, rx, ry)
        s >>= 1
    return d


def decode_reference(order: int, d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    t = np.asarray(d, dtype=np.int64).copy()
    x = np.zeros_like(t)
    y = np.zeros_like(t)
    s = 1
    while s < (1 << order):
        rx = 1 & (t >> 1)
        ry = 1 & (t ^ rx)
        x, y = _rotate(s, x, y, rx, ry)
        x += s * rx
        y += s * ry
        t >>= 2
        s <<= 1
    return x, y
