"""Hilbert curve and the Hilbert R-tree's node boxes (ICDE'12 sections 3.2, 8)."""
import numpy as np
import pytest

import psdviz as pv
from psdviz.splits.hilbert_curve import decode, decode_reference, encode, encode_reference, range_bboxes


@pytest.mark.parametrize("order", [1, 2, 3, 4, 5, 7, 18])
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
