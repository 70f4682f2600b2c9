"""Uniform grid UG (Qardaji, Yang, Li, ICDE 2013; slides "Uniform Grid").

An m x m grid of equal cells with m = sqrt(N * epsilon / c), c = 10, from minimising
noise error sqrt(2) r m / epsilon plus non-uniformity error sqrt(r) N / (c0 m). Our reading:
the epsilon in the formula is the budget that the cell counts actually get (epsilon minus the
slice used to estimate N when N is not public), since that is the noise the analysis balances.
As a tree: an unmeasured root (depth 0) over m*m leaves (depth 1, row-major).
On the public grid: the cell edges are the grid positions floor(i 2^k / m) (cells equal to within
one grid step, :func:`psdviz.core.grid.even_edges`), m is capped at 2^k, and a point's cell is
found from its grid key, so every released edge is a grid coordinate.
Passes over the data (:mod:`psdviz.core.source`): one, the m x m cell counts.
"""
from __future__ import annotations

import math

import numpy as np

from ..core.domain import Domain, PointSet
from ..core.errors import ParameterError
from ..core.grid import cap_by_resolution, even_edges
from ..core.ledger import Ledger
from ..core.measure import measure_counts
from ..core.memory import cap_by_memory
from ..core.params import Share
from ..core.population import DEFAULT_N_FRACTION, resolve_n
from ..core.rng import Randomness
from ..core.tree import FlatTree, check_node_count
from ..core.validation import check_positive
from ..publish.factory import make_release
from ..publish.release import Release
from ..splits.keyers import even_cells
from .spec import MethodSpec, doc

UG_C = 10.0


def ug_size(n: float, epsilon: float, c: float = UG_C) -> int:
    """Qardaji et al.'s suggested grid size m = sqrt(N epsilon / c), at least 1."""
    return max(1, int(round(math.sqrt(max(n, 0.0) * epsilon / c))))


def grid_tree(domain: Domain, ex: np.ndarray, ey: np.ndarray, noisy: np.ndarray, var: np.ndarray,
              eps: float) -> FlatTree:
    """Root plus a row-major grid of leaves with cell edges ``ex``, ``ey`` (coordinates)."""
    nx, ny = ex.size - 1, ey.size - 1
    iy, ix = np.divmod(np.arange(nx * ny), nx)
    rect = np.vstack([domain.as_rect(), np.column_stack([ex[ix], ey[iy], ex[ix + 1], ey[iy + 1]])])
    n = nx * ny + 1
    tree = FlatTree(rect=rect, depth=np.r_[0, np.ones(n - 1)].astype(np.int16),
                    parent=np.r_[-1, np.zeros(n - 1)].astype(np.int64),
                    first_child=np.r_[1, np.full(n - 1, -1)].astype(np.int64),
                    n_children=np.r_[nx * ny, np.zeros(n - 1)].astype(np.int32),
                    noisy=np.r_[np.nan, noisy], count_eps=np.r_[0.0, np.full(n - 1, eps)],
                    split_eps=np.zeros(n), noise_var=np.r_[np.inf, var])
    tree.est = np.r_[np.nansum(noisy), noisy]
    return tree


def build_ug(ps: PointSet, domain: Domain, epsilon: float, rnd: Randomness, *, grid_size: int | None = None,
             n_public: int | None = None, n_fraction: Share = DEFAULT_N_FRACTION, c: float = UG_C) -> Release:
    """Uniform grid; ``grid_size`` overrides the formula (then N is not needed and costs nothing)."""
    c = check_positive(c, "c")
    ledger = Ledger(epsilon)
    if grid_size is None:
        pop = resolve_n(ps.n, epsilon, rnd, ledger, n_public, n_fraction)
        eps_cells = epsilon - pop.epsilon
        m = ug_size(pop.value, eps_cells, c)
        n_note, eps_n = pop.source, pop.epsilon
    else:
        if isinstance(grid_size, bool) or not float(grid_size).is_integer() or grid_size < 1:
            raise ParameterError(f"grid_size must be a positive integer (got {grid_size!r})")
        m, eps_cells, n_note, eps_n = int(grid_size), epsilon, "not needed (grid size given)", 0.0
    m, capped = cap_by_resolution(m, ps.grid.size, "grid_size", ps.grid.bits)
    m, lowered = cap_by_memory(m, lambda k: k * k + 1, "grid_size")
    check_node_count(m * m + 1, f"a {m} x {m} grid")
    size = ps.grid.size
    counts = ps.counts(even_cells(size, m), m * m)
    noisy, var = measure_counts(rnd, ledger, counts, eps_cells, level=1)
    edges = ps.grid.coord(even_edges(0, size, m), 0), ps.grid.coord(even_edges(0, size, m), 1)
    tree = grid_tree(domain, *edges, noisy, var, eps_cells)
    tree.split_eps[0] = eps_n   # the noisy N chose the grid: a structural spend at the root
    params = {"grid_size": m, "grid_size_given": grid_size is not None, "N": n_note, "c": c}
    return make_release("ug", params, domain, tree, ledger, rnd, ps.report(), consistent=True, grid=ps.grid,
                        notes=(capped, lowered), query_model={"answer": "pyramid", "levels": [1], "regular": False,
                                                      "variance": "leaf"})


# what this module declares (psdviz/methods/spec.py): parameters whose meaning is its own, then the method
PARAMS = {
    "grid_size": doc("Cells per side. None: the paper's formula m = sqrt(N epsilon / c) with N estimated "
                     "privately (or the public N).", "ICDE'13 (UG), section 4", 1, None),
}

SPEC = MethodSpec("ug", build_ug, paper="ICDE'13 (Qardaji et al.), UG, section 4", data_dependent=False, params=PARAMS,
                  rank=2)
