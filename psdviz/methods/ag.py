"""Adaptive grid AG (Qardaji, Yang, Li, ICDE 2013; slides "Adaptive Grid").

Rule: a level-1 m1 x m1 grid, m1 = max(10, floor(sqrt(N eps / c) / 4)), c = 10, counted with alpha
eps (alpha = 0.5); each level-1 cell with noisy count N' becomes its own m2 x m2 grid, m2 the
integer minimiser of the error model whose real minimiser is sqrt(N' (1 - alpha) eps / c2), c2 = 5
(:func:`integer_optimum`; m2 = 1 when N' <= 0), counted with (1 - alpha) eps; then the weighted
least-squares estimate of the two-level tree (``tree_gls.py``). Every edge is a position of the
public grid (near-equal cells of whole steps, :func:`whole_step_parts`). "eps" in both formulas is the
budget left for the counts after a possible N estimate, which then also measures the root.

Privacy: the two levels are disjoint cell sets each costing its share once along a path; m2 reads
only a released noisy count (post-processing), and a cell with m2 = 1 still measures its one
sub-cell, so every root-to-leaf path costs epsilon. Passes over the data: two.

The readings of the sizes' rounding and of the cell layout, with their measurements, are in
docs/decisions/ag-sizes.md.
"""
from __future__ import annotations

import math
from functools import partial

import numpy as np

from ..core.domain import Domain, PointSet
from ..core.errors import ParameterError
from ..core.grid import Grid, cap_by_resolution, even_edges, even_part, whole_step_parts
from ..core.ledger import Ledger
from ..core.measure import measure_counts
from ..core.memory import cap_by_memory, largest_fitting, memory_limit, node_cap
from ..core.params import Share
from ..core.population import DEFAULT_N_FRACTION, resolve_n, root_measurement
from ..core.rng import Randomness, make_randomness
from ..core.tree import FlatTree, check_node_count
from ..core.validation import check_fraction, check_int
from ..publish.release import Release
from ..splits.keyers import even_cells
from .gls_finish import finish_gls_tree
from .spec import FRACTION, POSITIVE, MethodSpec, doc

AG_C = 10.0
AG_C2 = 5.0
AG_ALPHA = 0.5
M2_MAX = 2048


def ag_level1_size(n: float, epsilon: float, c: float = AG_C) -> int:
    """m1 = max(10, floor(sqrt(N eps / c) / 4)) (module docstring, "Rounding")."""
    return max(10, math.floor(math.sqrt(max(n, 0.0) * epsilon / c) / 4))


def integer_optimum(square: np.ndarray) -> np.ndarray:
    """The integer m >= 1 minimising a m + b / m (a, b > 0) given square = b / a = m*^2, the square of
    the real minimiser: k = floor(m*), or k + 1 when m*^2 > k (k + 1), since a k + b / k <= a (k + 1) +
    b / (k + 1) exactly when b / a <= k (k + 1). Integer arithmetic on k, so whole squares are exact."""
    square = np.maximum(np.asarray(square, dtype=float), 0.0)
    k = np.floor(np.sqrt(square)).astype(np.int64)
    k += (k + 1) ** 2 <= square          # sqrt rounding: floor(sqrt(k^2)) may come out k - 1
    k -= k ** 2 > square
    return np.maximum(np.where(square > k * (k + 1), k + 1, k), 1)


def ag_level2_sizes(noisy: np.ndarray, epsilon2: float, c2: float = AG_C2) -> np.ndarray:
    """m2 per level-1 cell (eps2 = (1 - alpha) eps): the integer minimiser of the error model whose real
    minimiser is sqrt(N' eps2 / c2) (:func:`integer_optimum`); 1 when N' <= 0."""
    return np.minimum(integer_optimum(np.asarray(noisy, dtype=float) * epsilon2 / c2), M2_MAX)


SCALE_STEPS = 1 << 40   # the second level's common scale is searched on multiples of 2^-40


def _fit_level2(sizes: np.ndarray, widths: np.ndarray, m1: int) -> tuple[np.ndarray, str | None]:
    """The sub-grid sides m2 (whole steps of each cell's ``widths``), scaled down together by the largest
    factor that fits the tree's share of ``memory_limit`` when the sides the rule asks for do not
    (:mod:`psdviz.core.memory`), and the note. The sides are a function of the level-1 noisy counts and the
    limit: post-processing, as the rule itself."""
    def parts(scale: float) -> np.ndarray:
        return whole_step_parts(np.maximum(1, np.floor(scale * sizes)), widths)

    def nodes(m2: np.ndarray) -> int:
        return 1 + m1 * m1 + int((m2 * m2).sum())
    m2, cap = parts(1.0), node_cap()
    if memory_limit() is None or nodes(m2) <= cap:
        return m2, None
    # the scale in steps of 2^-40 (scale 0: every side 1, the smallest)
    lo = largest_fitting(SCALE_STEPS, lambda k: nodes(parts(k / SCALE_STEPS)), 0, cap) / SCALE_STEPS
    fitted = parts(lo)
    return fitted, (f"the second level's sub-grids lowered to {nodes(fitted):,} nodes in all (sides x {lo:.3g}): "
                    f"memory_limit {memory_limit()} holds a tree of at most {cap:,} nodes ({nodes(m2):,} asked for)")


def ag_structure(grid: Grid, edges1: np.ndarray, m2: np.ndarray) -> dict:
    """Rectangles and links of root -> m1 x m1 cells -> per-cell m2 x m2 sub-cells, all edges grid
    positions (near-equal cells of :func:`psdviz.core.grid.even_edges`)."""
    m1 = edges1.size - 1
    n1 = m1 * m1
    k = m2 * m2
    n_leaf = int(k.sum())
    cj, ci = np.divmod(np.arange(n1), m1)
    lvl1 = np.column_stack([edges1[ci], edges1[cj], edges1[ci + 1], edges1[cj + 1]])
    owner = np.repeat(np.arange(n1), k)
    local = np.arange(n_leaf) - np.repeat(np.cumsum(k) - k, k)
    m = m2[owner]
    sj, si = np.divmod(local, m)
    (ax, ay, bx, by) = lvl1[owner].T
    leaves = np.column_stack([ax + (si * (bx - ax)) // m, ay + (sj * (by - ay)) // m,
                              ax + ((si + 1) * (bx - ax)) // m, ay + ((sj + 1) * (by - ay)) // m])
    n = 1 + n1 + n_leaf
    first = np.r_[1, 1 + n1 + np.cumsum(k) - k, np.full(n_leaf, -1)]
    root = np.array([[0, 0, grid.size, grid.size]])
    return {"rect": grid.rects(np.vstack([root, lvl1, leaves])),
            "depth": np.r_[0, np.ones(n1), np.full(n_leaf, 2)].astype(np.int16),
            "parent": np.r_[-1, np.zeros(n1), 1 + owner].astype(np.int64),
            "first_child": first.astype(np.int64),
            "n_children": np.r_[n1, k, np.zeros(n_leaf)].astype(np.int32), "n": n}


def ag_leaf_ids(kx: np.ndarray, ky: np.ndarray, memo: dict, size: int, edges1: np.ndarray,
                m2: np.ndarray) -> np.ndarray:
    """Keyer of AG's second pass: the position among all leaves of every point, from its grid key
    (its level-1 cell, then its cell of that cell's m2 x m2 sub-grid)."""
    m1 = edges1.size - 1
    ix, iy = even_part(kx, 0, size, m1), even_part(ky, 0, size, m1)
    cell = iy * m1 + ix
    m = m2[cell]
    sx = even_part(kx, edges1[ix], edges1[ix + 1], m)
    sy = even_part(ky, edges1[iy], edges1[iy + 1], m)
    start = np.cumsum(m2 * m2) - m2 * m2
    return start[cell] + sy * m + sx


def build_ag(ps: PointSet, domain: Domain, epsilon: float, rnd: Randomness, *, alpha: Share = AG_ALPHA,
             c: float = AG_C, c2: float = AG_C2, m1: int | None = None, n_public: int | None = None,
             n_fraction: Share = DEFAULT_N_FRACTION, postprocess: bool = True) -> Release:
    """Adaptive grid; ``m1`` overrides the level-1 formula (then N is not needed)."""
    return _build_ag(ps, domain, epsilon, rnd, alpha=alpha, c=c, c2=c2, m1=m1, n_public=n_public,
                     n_fraction=n_fraction, postprocess=postprocess)


def plan_release(ps: PointSet, domain: Domain, epsilon: float, n: int, **params) -> Release:
    """The adaptive grid a uniform density of ``n`` public points would get, for ``pv.plan_epsilon``:
    m1 from n, and each sub-grid size m2 from the cell's *expected* count n * area share instead of its
    noisy count (``ps`` holds no points; only the noise law and the structure matter for variances)."""
    return _build_ag(ps, domain, epsilon, make_randomness(0), n_public=n, expected_n=n, **params)


def _build_ag(ps: PointSet, domain: Domain, epsilon: float, rnd: Randomness, *, alpha: Share = AG_ALPHA,
              c: float = AG_C, c2: float = AG_C2, m1: int | None = None, n_public: int | None = None,
              n_fraction: Share = DEFAULT_N_FRACTION, postprocess: bool = True,
              expected_n: int | None = None) -> Release:
    alpha = check_fraction(alpha, "alpha")
    for name, val in (("c", c), ("c2", c2)):
        if not (isinstance(val, (int, float)) and math.isfinite(val) and val > 0):
            raise ParameterError(f"{name} must be a finite number > 0 (got {val!r})")
    ledger = Ledger(epsilon)
    if m1 is None:
        pop = resolve_n(ps.n, epsilon, rnd, ledger, n_public, n_fraction, measures_root=postprocess)
        eps_rest, n_note = epsilon - pop.epsilon, pop.source
        m1 = ag_level1_size(pop.value, eps_rest, c)
        eps_n = pop.epsilon
    else:
        m1 = check_int(m1, "m1", 1, 2000)
        eps_rest, n_note, eps_n = epsilon, "not needed (m1 given)", 0.0
        pop = None
    eps1, eps2 = alpha * eps_rest, (1 - alpha) * eps_rest
    grid = ps.grid
    m1, capped = cap_by_resolution(m1, grid.size, "m1", grid.bits)
    m1 = int(whole_step_parts(m1, grid.size))
    m1, lowered = cap_by_memory(m1, lambda k: 1 + k * k, "m1")
    m1 = int(whole_step_parts(m1, grid.size))   # lowering keeps cells of whole steps
    check_node_count(1 + m1 * m1, f"an adaptive grid with m1 = {m1} (level 1 alone)")
    edges1 = even_edges(0, grid.size, m1)
    counts1 = ps.counts(even_cells(grid.size, m1), m1 * m1)
    noisy1, var1 = measure_counts(rnd, ledger, counts1, eps1, level=1)
    # cells of whole steps (module docstring): each cell's m2 is capped by its own narrower side and
    # rounded like m1, so no sub-grid splits a cell's steps unevenly (public: edges and noisy counts)
    w = np.diff(edges1)   # level-1 cell widths in grid steps (same edges on both axes)
    basis = noisy1 if expected_n is None else expected_n * np.outer(w, w).ravel() / grid.size ** 2
    m2, lowered2 = _fit_level2(ag_level2_sizes(basis, eps2, c2), np.minimum.outer(w, w).ravel(), m1)
    check_node_count(1 + m1 * m1 + int((m2 * m2).sum()), f"an adaptive grid with m1 = {m1}")
    s = ag_structure(grid, edges1, m2)
    s.pop("n")
    counts2 = ps.counts(partial(ag_leaf_ids, size=grid.size, edges1=edges1, m2=m2), int((m2 * m2).sum()))
    noisy2, var2 = measure_counts(rnd, ledger, counts2, eps2, level=2,
                                  note="sub-grid sizes m2 chosen from the level-1 noisy counts")
    n1 = m1 * m1
    # with least squares the noisy N is the root's count; without, the leaves' sums are the release
    root, root_var, eps_root = root_measurement(pop)
    tree = FlatTree(noisy=np.r_[root, noisy1, noisy2], noise_var=np.r_[root_var, var1, var2],
                    count_eps=np.r_[eps_root, np.full(n1, eps1), np.full(noisy2.size, eps2)],
                    split_eps=np.r_[eps_n - eps_root, np.zeros(n1 + noisy2.size)], **s)
    return _finish(tree, ps, domain, ledger, rnd, edges1, postprocess, (capped, lowered, lowered2),
                   {"m1": m1, "m1_given": n_note.startswith("not"), "alpha": alpha, "c": c, "c2": c2,
                    "N": n_note, "postprocess": bool(postprocess), "leaves": int(noisy2.size),
                    "m2_max": int(m2.max())})


def _finish(tree: FlatTree, ps: PointSet, domain: Domain, ledger: Ledger, rnd: Randomness, edges1: np.ndarray,
            postprocess: bool, notes: tuple[str | None, ...], params: dict) -> Release:
    """GLS (section "constrained inference") or leaf sums, then the grid-of-grids query path; the
    sub-grid sizes are read back from the tree's fanouts by the query model."""
    return finish_gls_tree(tree, ps, domain, ledger, rnd, "ag", params, postprocess=postprocess,
                           answer="grid_of_grids", notes=notes, edges1=[int(e) for e in edges1])


# what this module declares (psdviz/methods/spec.py): parameters whose meaning is its own, then the method
PARAMS = {
    "alpha": doc("Adaptive grid: share of epsilon spent on the coarse first-level grid; the rest goes to the "
                 "finer grids inside each cell.", "ICDE'13 (AG), section 5", **FRACTION),
    "c": doc("Adaptive grid: constant of the first-level size m1 = sqrt(N epsilon / c) / 4 (the paper's 10).",
             "ICDE'13 (AG)", **POSITIVE),
    "c2": doc("Adaptive grid: constant of the second-level size m2 = sqrt(N' (1 - alpha) epsilon / c2), N' the "
              "cell's noisy count, rounded to the integer with the least modelled error.", "ICDE'13 (AG)",
              **POSITIVE),
    "m1": doc("Adaptive grid: cells per side of the first-level grid. None: max(10, floor(sqrt(N epsilon / c) / 4)).",
              "ICDE'13 (AG)", 1, 2000),
}

SPEC = MethodSpec("ag", build_ag, paper="ICDE'13 (Qardaji et al.), AG, section 5", params=PARAMS, rank=8,
                  interval_caveat="its fine grids follow its noisy counts, and on check-ins at epsilon 1 this interval "
                                  "was too narrow more often than 1 time in 20")
