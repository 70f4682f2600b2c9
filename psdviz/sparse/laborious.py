"""The laborious approach (ICDT'12 Figure 1, steps 1-3): noise on all m cells, then summarise.

Materialises M' = M + geometric noise for every cell, which is exactly what the shortcut avoids;
allowed only up to :data:`LABORIOUS_MAX` cells (ValueError above). The summaries here are written
the obvious way on dense arrays, independently of :mod:`.shortcut`, so that the tests can compare
the two distributions. ``geometric_table`` alone is the full geometric mechanism, the baseline of
the paper's experiments.
"""
from __future__ import annotations

import numpy as np

from ..core.errors import ParameterError
from ..core.noise import geometric_noise
from .table import SparseTable

LABORIOUS_MAX = 20_000_000


def check_laborious(m: int) -> None:
    if m > LABORIOUS_MAX:
        raise ParameterError(f"the laborious approach materialises all m={m} cells; it is allowed only for "
                             f"m <= {LABORIOUS_MAX}. Use a shortcut summary (filter, threshold, priority, "
                             "filter-priority) instead")


def geometric_table(rng, table: SparseTable, epsilon: float, sensitivity: float = 1.0) -> np.ndarray:
    """M' for all m cells (dense int64 array)."""
    check_laborious(table.m)
    return table.dense() + geometric_noise(rng, table.m, epsilon, sensitivity)
