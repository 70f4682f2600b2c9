"""The positions of many consecutive runs at once."""
from __future__ import annotations

import numpy as np

from psdviz.core.ragged import runs


def test_runs_equal_a_loop_over_the_runs_and_skip_empty_ones():
    rng = np.random.default_rng(3)
    start, size = rng.integers(0, 100, 50), rng.integers(0, 6, 50)
    want = np.concatenate([np.arange(s, s + n) for s, n in zip(start, size)])
    got = runs(start, size)
    assert got.dtype == np.int64 and np.array_equal(got, want)
    assert runs(np.array([], int), np.array([], int)).size == 0
