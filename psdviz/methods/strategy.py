"""The matrix mechanism with a strategy optimised for the publisher's queries (HDMM: McKenna, Miklau, Hay,
Machanavajjhala, VLDB 2018, sections 5.2 and 6; the p-Identity strategies of
:mod:`psdviz.inference.pidentity`).

Rule. The domain is cut into an m x m grid of near-equal cells on the public grid (m = ``grid_size``, by
default 256 or the resolution's grid if coarser). The workload's rectangles (a region layer's regions by
their bounding boxes; no workload: every rectangle of cells) give each query a share of every column and
of every row; a product strategy A_y (x) A_x of p-Identity strategies is optimised for them one axis at a
time (section 6's Kronecker products, the union of product queries weighted by the other axis), the
identity when that is better; for small queries (median shorter side at most 16 cells, on at most 256 cells
a side) a second plan with one row per 4 cells, started from blocks of 4, is kept when its exact objective
is lower. The plan's entries are then rounded down to whole multiples of 2^-12 (:data:`WEIGHT_BITS`,
:meth:`PIdentity.on_lattice`): that is the strategy measured. Its answers A_y X A_x^T of the cell counts X
are integers in steps of 2^-24, computed exactly (:mod:`psdviz.core.lattice`), and are released with
two-sided geometric noise in those steps, and the cells are estimated by least squares (A^+ per axis).
Every rectangle, not only the workload's, is answered from the cells; its variance is exact:
v (w_y^T M_y w_y)(w_x^T M_x w_x), M = (A^T A)^-1, w a rectangle's shares of the cells, v the noise's
variance (at most the Laplace variance 2 / epsilon^2 of the paper, within 10^-12 of it).

Privacy. One point changes one cell count by 1, so the integer answers by the cell's column of the integer
product strategy, whose L1 norm is the product of the axes' column norms in steps, at most S = 2^24 (the
rounded p-Identity columns have norm at most 1): two-sided geometric noise with a = exp(-epsilon / S) per
step is epsilon-DP (one ledger line, sensitivity S steps = at most 1), and every released answer lies on the
public lattice, so no floating-point bit carries the data (Mironov, CCS 2012). The strategy reads the
workload, the domain and public constants only (the optimiser starts from a fixed seed), never the data;
least squares and every answer are post-processing. So the expected error on any workload is public before
any data is read (:func:`strategy_error`).
Passes over the data (:mod:`psdviz.core.source`): one, the m x m cell counts.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.domain import Domain, PointSet
from ..core.grid import cap_by_resolution, even_edges
from ..core.lattice import exact_product, exact_scale, measure_on_lattice
from ..core.ledger import Ledger
from ..core.memo import PublicMemo
from ..core.memory import cap_by_memory
from ..core.optional import require
from ..core.rng import Randomness
from ..core.tree import check_node_count
from ..core.validation import check_epsilon, check_int
from ..core.workload import RegionLayer, Workload, as_workload
from ..inference.pidentity import (
    KronVariance,
    PIdentity,
    all_ranges_gram,
    optimise,
    optimise_product,
    product_noise_variance,
    product_steps,
)
from ..publish.factory import make_release
from ..publish.release import Release
from ..splits.keyers import even_cells
from .spec import MethodSpec, doc
from .ug import grid_tree

DEFAULT_CELLS = 256          # cells per side (DPBench's and HDMM's 2-D domain); a parameter
ROWS_PER_CELLS = 16          # p = m / 16 extra rows per axis (the paper's p-Identity size for 1-D ranges)
BLOCK_CELLS = 4              # a second plan for a workload: one row per 4 cells, started from blocks of 4
BLOCK_MAX_CELLS = 256        # ... tried up to this many cells per side (its cost grows as m^2 p)
SMALL_CELLS = 16             # ... and for workloads whose queries' shorter sides are at most this (median, cells)
WEIGHT_BITS = 12             # the strategy's entries are whole multiples of 2^-12 (answers: of 2^-24)
PLANS: PublicMemo[Strategy] = PublicMemo(8)    # plans of public inputs, kept for the process


@dataclass(frozen=True)
class Strategy:
    """A product strategy A_y (x) A_x on an m_x x m_y grid, its entries on the weight lattice, and its cell
    edges (public)."""

    x: PIdentity
    y: PIdentity
    ex: np.ndarray     # cell edges in domain coordinates
    ey: np.ndarray

    @property
    def bits(self) -> int:
        """The answers' lattice: steps of 2^-bits (the product of two axes' entries)."""
        return self.x.bits + self.y.bits

    @property
    def sensitivity(self) -> int:
        """The largest column's L1 norm of the product strategy, in answer steps."""
        return product_steps(self.x, self.y)

    def noise_variance(self, epsilon: float) -> float:
        """The variance of one answer's noise at ``epsilon``."""
        return product_noise_variance(self.x, self.y, epsilon)

    def variances(self, epsilon: float) -> KronVariance:
        """The exact noise variances of the cells and of any answer at ``epsilon``."""
        return KronVariance(self.x, self.y, self.ex, self.ey, self.noise_variance(epsilon))


def workload_rectangles(workload: Workload) -> np.ndarray:
    """The rectangles a strategy plans for: the workload's own, or a region layer's bounding boxes."""
    if isinstance(workload, RegionLayer):
        shapely = require("shapely", "region layers")
        return np.asarray(shapely.bounds(workload.geometry), float)
    return np.asarray(workload.rects, float)


def plan_strategy(domain: Domain, ex: np.ndarray, ey: np.ndarray, workload=None, rows: int | None = None
                  ) -> Strategy:
    """The strategy for ``workload`` on the cells between ``ex`` and ``ey`` (module docstring). Reads
    public input only, so a plan is kept for the process and a rebuild with the same workload reuses it."""
    rects = None if workload is None else workload_rectangles(as_workload(workload))
    key = (ex.tobytes(), ey.tobytes(), None if rects is None else rects.tobytes(), rows)
    return PLANS.get(key, lambda: _plan(ex, ey, rects, rows))


def _plan(ex: np.ndarray, ey: np.ndarray, rects: np.ndarray | None, rows: int | None) -> Strategy:
    return _measured(*plan_axes(ex, ey, rects, rows), ex, ey)


def plan_axes(ex: np.ndarray, ey: np.ndarray, rects: np.ndarray | None, rows: int | None = None
              ) -> tuple[PIdentity, PIdentity]:
    """Both axes' p-Identity strategies as optimised (real weights, before the lattice; module docstring)."""
    mx, my = ex.size - 1, ey.size - 1
    px, py = (max(1, mx // ROWS_PER_CELLS), max(1, my // ROWS_PER_CELLS)) if rows is None else (rows, rows)
    if rects is None:               # every rectangle of cells: a single product, one axis at a time
        return optimise(all_ranges_gram(mx), px), optimise(all_ranges_gram(my), py)
    spans = rects[:, [0, 2]], rects[:, [1, 3]]
    ax, ay, total = optimise_product(*spans, ex, ey, px, py)
    if rows is None and max(mx, my) <= BLOCK_MAX_CELLS and min(mx, my) >= 2 * BLOCK_CELLS and _small(rects, ex, ey):
        bx, by, blocked = optimise_product(*spans, ex, ey, mx // BLOCK_CELLS, my // BLOCK_CELLS, blocks=BLOCK_CELLS)
        if blocked < total:          # the exact objective of both, public: the lower wins
            ax, ay = bx, by
    return ax, ay


def _measured(ax: PIdentity, ay: PIdentity, ex: np.ndarray, ey: np.ndarray) -> Strategy:
    """The plan as measured: its entries on the weight lattice (module docstring)."""
    return Strategy(ax.on_lattice(WEIGHT_BITS), ay.on_lattice(WEIGHT_BITS), ex, ey)


def _small(rects: np.ndarray, ex: np.ndarray, ey: np.ndarray) -> bool:
    """Whether the workload's queries are small enough for the plan from blocks: the median of each query's
    shorter side, in cells, at most :data:`SMALL_CELLS` (the plan from blocks loses on larger queries and
    costs seconds to find)."""
    wx = (rects[:, 2] - rects[:, 0]) / ((ex[-1] - ex[0]) / (ex.size - 1))
    wy = (rects[:, 3] - rects[:, 1]) / ((ey[-1] - ey[0]) / (ey.size - 1))
    return bool(np.median(np.minimum(wx, wy)) <= SMALL_CELLS)


def strategy_error(strategy: Strategy, rects: np.ndarray, epsilon: float) -> np.ndarray:
    """The exact noise variance of each rectangle's answer under ``strategy`` at ``epsilon``: public, known
    before any data is read."""
    return strategy.variances(check_epsilon(epsilon)).rectangles(np.asarray(rects, float))


def build_strategy(ps: PointSet, domain: Domain, epsilon: float, rnd: Randomness, *, grid_size: int | None = None,
                   rows: int | None = None, workload: Workload | None = None) -> Release:
    """The matrix mechanism with a strategy optimised for the workload: a Kronecker product of p-Identity
    strategies (HDMM, sections 5.2 and 6), Laplace noise on its answers, least squares for the cells. Data
    independent: its error on any rectangle is known before the data is read. Without a workload it plans
    for every rectangle of cells."""
    size = ps.grid.size
    m = DEFAULT_CELLS if grid_size is None else check_int(grid_size, "grid_size", 1)
    m, capped = cap_by_resolution(m, size, "grid_size", ps.grid.bits)
    m, lowered = cap_by_memory(m, lambda k: k * k + 1, "grid_size")
    check_node_count(m * m + 1, f"a {m} x {m} grid")
    if rows is not None:
        rows = check_int(rows, "rows", 0, m)             # at most one extra row per cell
    cuts = even_edges(0, size, m)
    ex, ey = ps.grid.coord(cuts, 0), ps.grid.coord(cuts, 1)
    workload = None if workload is None else as_workload(workload)
    strategy = plan_strategy(domain, ex, ey, workload, rows)
    counts = ps.counts(even_cells(size, m), m * m).reshape(m, m).astype(np.int64)   # rows y, columns x
    ledger = Ledger(epsilon)
    est = measure(strategy, counts, epsilon, rnd, ledger)
    tree = grid_tree(domain, ex, ey, est.ravel(), strategy.variances(epsilon).cell_variances(), epsilon)
    params = {"grid_size": m, "rows_x": int(strategy.x.theta.shape[0]), "rows_y": int(strategy.y.theta.shape[0])}
    if workload is not None:
        params.update(workload.record())   # public input: the queries planned for
    model = {"answer": "pyramid", "levels": [1], "regular": False, "variance": "kron", "eps": [epsilon],
             "theta_x": strategy.x.theta.ravel().tolist(), "theta_y": strategy.y.theta.ravel().tolist(),
             "scale_x": strategy.x.d.tolist(), "scale_y": strategy.y.d.tolist(), "lattice_bits": WEIGHT_BITS}
    return make_release("strategy", params, domain, tree, ledger, rnd, ps.report(), consistent=True, grid=ps.grid,
                        notes=(capped, lowered), query_model=model)


def measure(strategy: Strategy, counts: np.ndarray, epsilon: float, rnd: Randomness, ledger: Ledger) -> np.ndarray:
    """The strategy's answers A_y X A_x^T of the integer cell counts X (rows y), exact in steps of 2^-bits,
    with two-sided geometric noise for the strategy's sensitivity in those steps (one ledger line), and the
    cells' least-squares estimates from them."""
    answers = integer_answers(strategy, counts)
    steps = strategy.sensitivity
    ledger.spend("strategy answers", epsilon, "geometric", nodes=int(answers.size),
                 sensitivity=steps / 2 ** strategy.bits,
                 note=f"matrix mechanism on the weight lattice: answers in steps of 2^-{strategy.bits}, every cell's "
                      f"column of the product strategy at most {steps} steps in L1")
    noisy = measure_on_lattice(answers, strategy.bits, steps, epsilon, rnd.rng)
    return strategy.y.pinv_apply(strategy.x.pinv_apply(noisy.T).T)


def integer_answers(strategy: Strategy, counts: np.ndarray) -> np.ndarray:
    """A_y X A_x^T in steps of 2^-bits, exactly: (m_y + p_y) x (m_x + p_x) integers."""
    top_y, bottom_y = strategy.y.integer_weights()
    top_x, bottom_x = strategy.x.integer_weights()
    rows = np.vstack([exact_scale(top_y, counts), exact_product(bottom_y, counts)])      # A_y X, in steps
    return np.hstack([exact_scale(top_x, rows.T).T, exact_product(rows, bottom_x.T)])


PARAMS = {
    "grid_size": doc("Cells per side of the grid the strategy measures (default 256, or the resolution's grid if "
                     "coarser). The optimisation costs about (cells per side)^2 x rows per step.",
                     "HDMM (VLDB'18), section 6", 1, None),
    "rows": doc("Extra strategy rows per axis (p of p-Identity), at most the cells per side. None: cells per side "
                "/ 16, or for small queries on at most 256 cells per side the better of that and one row per 4 "
                "cells started from blocks; 0: the identity.", "HDMM (VLDB'18), section 5.2", 0, None),
}

SPEC = MethodSpec("strategy", build_strategy, paper="HDMM (McKenna et al., VLDB'18), sections 5.2 and 6",
                  data_dependent=False, workloads=("rectangles", "regions"), params=PARAMS, rank=12, nonnegative=False)
