"""Summing grouped counts (psdviz.core.source.merge_counts, sort_pairs) against the obvious np.unique way, on
sparse ids (the sorted path) with counts that fit beside the ids in 63 bits (one value sort) and counts that
do not (an argsort), distinct or repeated ids."""
from __future__ import annotations

import numpy as np
import pytest

from psdviz.core.source import merge_counts, sort_pairs


def _obvious(ids, cnt):
    u, inv = np.unique(ids, return_inverse=True)
    return u, np.bincount(inv, weights=cnt, minlength=u.size).astype(np.int64)


@pytest.mark.parametrize("top", [2 ** 40, 2 ** 62])            # 2^62: no bits left for a count beside the id
@pytest.mark.parametrize("most", [5, 2 ** 30, 2 ** 40])
@pytest.mark.parametrize("seed", range(3))
def test_merged_counts_equal_the_obvious_sums(top, most, seed):
    rng = np.random.default_rng(seed)
    ids = rng.integers(0, top, 2000)
    ids[rng.random(ids.size) < 0.3] = ids[0]                    # repeated ids, summed
    cnt = rng.integers(1, most, ids.size)
    half = ids.size // 2
    got = merge_counts([(ids[:half], cnt[:half]), (ids[half:], cnt[half:])])
    want = _obvious(ids, cnt)
    assert all(np.array_equal(a, b) and a.dtype == np.int64 for a, b in zip(got, want))
    u = np.unique(ids)
    c = rng.integers(1, most, u.size)
    perm = rng.permutation(u.size)
    for distinct in (True, False):                              # distinct ids, known so or not
        got = merge_counts([(u[perm], c[perm])], distinct=distinct)
        assert np.array_equal(got[0], u) and np.array_equal(got[1], c)


def test_sort_pairs_keeps_each_value_with_its_id():
    rng = np.random.default_rng(4)
    ids = rng.permutation(10 ** 5) * 7919
    values = ids % 1000 + 1
    s_ids, s_values = sort_pairs(ids, values)
    assert np.array_equal(s_ids, np.sort(ids)) and np.array_equal(s_values, s_ids % 1000 + 1)
    assert [a.size for a in sort_pairs(np.zeros(0, np.int64), np.zeros(0, np.int64))] == [0, 0]
