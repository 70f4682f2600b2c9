"""Morton codes (psdviz.splits.morton): the 16-bit table encode against the shifts-and-masks spread and decode,
and the count of every quadtree cell from keys sorted once by code (MortonBlocks) against a bincount of the
keys' cells, with and without counts."""
from __future__ import annotations

import numpy as np
import pytest

from psdviz.splits import morton


@pytest.mark.parametrize("bits", [1, 5, 16, 17, 30])
def test_encode_equals_the_bit_spread_and_decodes_back(bits):
    rng = np.random.default_rng(bits)
    x, y = rng.integers(0, 1 << bits, 5000), rng.integers(0, 1 << bits, 5000)
    code = morton.encode(x, y)
    spread = (morton._spread_bits(x) | (morton._spread_bits(y) << np.uint64(1))).astype(np.int64)
    assert np.array_equal(code, spread)
    assert all(np.array_equal(a, b) for a, b in zip(morton.decode(code), (x, y)))


@pytest.mark.parametrize("weighted", [False, True])
def test_block_counts_equal_the_cells_counts_at_every_depth(weighted):
    bits = 7
    rng = np.random.default_rng(2)
    kx, ky = rng.integers(0, 1 << bits, 3000), rng.integers(0, 1 << bits, 3000)
    w = rng.integers(1, 9, 3000) if weighted else None
    blocks = morton.MortonBlocks(kx, ky, w, bits)
    for depth in range(bits + 1):
        shift = bits - depth
        cell = morton.encode(kx >> shift, ky >> shift)
        want = np.bincount(cell, weights=w, minlength=4 ** depth).astype(np.int64)
        codes = np.sort(rng.choice(4 ** depth, min(4 ** depth, 50), replace=False))
        assert np.array_equal(blocks.counts(codes, depth), want[codes])
