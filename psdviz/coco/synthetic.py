"""Synthetic grouped tables over a regular hierarchy (for benchmarks and the reproduction).

Not a paper's data set; the slides' experiments (Census blocks, taxis) are not bundled. Two shapes
stand in for the slides' "dense" and "sparse" regimes:

* ``"dense"``: many groups per leaf and small sizes (geometric, mean ~ ``mean_size``), so most bins
  0..K of every H hold many groups;
* ``"sparse"``: few groups per leaf and heavy-tailed sizes (Zipf, exponent 1.6) capped at K, so most
  bins are empty and a node's groups are spread thinly over the sizes.

Leaves receive groups with Zipf-skewed popularity (some leaves crowded, many small).
"""
from __future__ import annotations

import numpy as np

from ..core.errors import ParameterError
from ..core.validation import check_int
from .hierarchy import Hierarchy
from .table import GroupedTable, from_sizes

KINDS = ("dense", "sparse")


def regular_hierarchy(fanouts: tuple[int, ...]) -> Hierarchy:
    """root > fanouts[0] children > ... ; names like "n3", "n3.7"."""
    n = 1
    names, parent, level = ["root"], [-1], [0]
    prev = np.array([0])
    prev_names = [""]
    for depth, f in enumerate(fanouts, start=1):
        check_int(f, "fanout", 1, 100_000)
        base = len(names)
        parent += np.repeat(prev, f).tolist()
        new_names = [f"{p}.{j}" if p else f"n{j}" for p in prev_names for j in range(f)]
        names += new_names
        level += [depth] * len(new_names)
        prev = np.arange(base, base + len(new_names))
        prev_names = new_names
        n *= f
    return Hierarchy(tuple(names), np.asarray(parent, np.int64), np.asarray(level, np.int64))


def synthetic_table(n_groups: int, fanouts: tuple[int, ...] = (100, 100), kind: str = "dense",
                    max_size: int = 100, mean_size: float = 5.0, skew: float = 1.1,
                    seed: int = 0) -> GroupedTable:
    """A table of ``n_groups`` groups over a regular hierarchy with the given fanouts."""
    if kind not in KINDS:
        raise ParameterError(f"kind must be one of {KINDS} (got {kind!r})")
    check_int(n_groups, "n_groups", 1, 100_000_000)
    rng = np.random.default_rng(seed)
    h = regular_hierarchy(tuple(fanouts))
    leaves = h.leaves
    weight = 1.0 / np.arange(1, leaves.size + 1) ** skew
    leaf = leaves[rng.permutation(leaves.size)][rng.choice(leaves.size, n_groups, p=weight / weight.sum())]
    if kind == "dense":
        size = rng.geometric(1.0 / mean_size, n_groups)
    else:
        size = rng.zipf(1.6, n_groups)
    return from_sizes(h, leaf, np.minimum(size, max_size), max_size)
