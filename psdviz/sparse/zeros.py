"""Uniform positions among the zero cells, without touching them one by one (ICDT'12 section 2.2).

Step 3 of Algorithm Filter picks k distinct cells uniformly among the m - n cells with M(i) = 0.
The paper suggests rejection sampling; we use an exact rank mapping instead, which needs no
rejection: draw k distinct ranks uniformly from [0, m - n) (numpy's ``choice(..., replace=False)``,
which for k << m - n uses a hash-set method and never builds the population), then send rank r to
the (r+1)-th zero cell. With the non-zero indices sorted, the number of zero cells before the j-th
non-zero cell is ``nz[j] - j``, so the zero cell of rank r is ``r + #{j : nz[j] - j <= r}``: one
``searchsorted`` for all k ranks. Time O(k log n), independent of m.
"""
from __future__ import annotations

import numpy as np

from ..core.errors import ParameterError

MAX_ZERO_SAMPLE = 20_000_000


def zero_ranks_to_cells(nonzero: np.ndarray, ranks: np.ndarray) -> np.ndarray:
    """Map ranks among the zero cells (0-based) to cell indices; ``nonzero`` sorted ascending."""
    gaps = nonzero - np.arange(nonzero.size, dtype=np.int64)   # zeros before each non-zero cell
    return ranks + np.searchsorted(gaps, ranks, side="right")


def sample_zero_cells(rng: np.random.Generator, nonzero: np.ndarray, m: int, k: int) -> np.ndarray:
    """k distinct cells drawn uniformly among the m - len(nonzero) zero cells (in random order)."""
    n_zero = m - nonzero.size
    if not 0 <= k <= n_zero:
        raise ParameterError(f"cannot draw k={k} zero cells out of m - n = {n_zero}")
    if k > MAX_ZERO_SAMPLE:
        raise ParameterError(f"the summary would keep {k} zero cells (limit {MAX_ZERO_SAMPLE}); "
                             "raise the threshold (theta / tau) or lower the target size")
    if k == 0:
        return np.empty(0, dtype=np.int64)
    ranks = rng.choice(n_zero, size=k, replace=False).astype(np.int64)
    return zero_ranks_to_cells(nonzero, ranks)
