"""p-Identity strategies for one axis (McKenna, Miklau, Hay, Machanavajjhala, "Optimizing error of
high-dimensional statistical queries under differential privacy", VLDB 2018, section 5.2), and their
Kronecker products for rectangles (section 6).

A p-Identity strategy on m cells is A = [I; Theta] D^-1 with Theta >= 0 (p x m) and D = diag(d),
d_j = 1 + sum_i Theta_ij: every column has L1 norm 1, so one point changes the strategy's answers by at
most 1 in L1 (sensitivity 1), and for a product A_y (x) A_x the same holds (column norms multiply). With
Laplace noise of scale 1/epsilon on every answer and least squares, a linear query q has variance
(2 / epsilon^2) q^T M q, M = (A^T A)^-1 = D X^-1 D, X = I + Theta^T Theta. For a workload with Gram matrix
G the total variance is (2 / epsilon^2) tr(G M), which this module minimises over Theta.

Everything is computed through the Woodbury identity X^-1 = I - Theta^T Y Theta, Y = (I_p + Theta
Theta^T)^-1, so an objective and its gradient cost O(p m^2) (the paper's section 5.2 uses the same).

Privacy: none of this reads data. The strategy is a function of the public workload and public constants
(the optimiser's starting point comes from a fixed seed, so the same workload gives the same strategy).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..core.lattice import dyadic, lattice_variance

START_SEED = 20180801          # the optimiser's starting point: public, fixed (the strategy is public)
BACKGROUND = 0.01              # every interval's weight beside the workload's (optimise_product)
BLOCK_FLOOR = 0.01             # the block start's even weight (block_start)


@dataclass(frozen=True)
class PIdentity:
    """A p-Identity strategy on ``m`` cells: ``theta`` (p x m, non-negative; p = 0 is the identity), its
    column scales ``scale`` (None: the paper's d = 1 + each column's sum of Theta, columns of L1 norm 1) and
    ``bits`` > 0 when every entry of A is a whole multiple of 2^-bits (:meth:`on_lattice`: what is measured)."""

    theta: np.ndarray
    scale: np.ndarray | None = None
    bits: int = 0

    @property
    def m(self) -> int:
        return int(self.theta.shape[1])

    @property
    def d(self) -> np.ndarray:
        """Column scales: 1 + each column's sum of Theta, unless given."""
        return 1.0 + self.theta.sum(axis=0) if self.scale is None else np.asarray(self.scale, float)

    def on_lattice(self, bits: int) -> PIdentity:
        """This strategy with its entries on multiples of 2^-``bits``: Theta D^-1 rounded down
        (:func:`psdviz.core.lattice.dyadic`), and each identity row's entry the rest of its column's unit L1
        norm (at least the rounded 1 / d, so every column keeps norm exactly 1: sensitivity 1). As
        A' = [I; Theta'] D'^-1: D' = 2^bits / top and Theta' = bottom / top, top and bottom the identity rows'
        and Theta's entries in steps. Least squares and variances read A' as measured."""
        unit = 1 << bits
        bottom = dyadic(self.theta / self.d, bits)
        top = unit - bottom.sum(axis=0)
        return PIdentity(bottom / top, unit / top, bits)

    def integer_weights(self) -> tuple[np.ndarray, np.ndarray]:
        """The entries of a strategy on the lattice in steps of 2^-bits: the identity rows' diagonal (m,) and
        Theta's rows (p, m), as int64 (a ValueError when the entries are not on the lattice)."""
        if self.bits <= 0:
            raise ValueError("integer weights need a strategy on the weight lattice (PIdentity.on_lattice)")
        unit = float(1 << self.bits)
        top, bottom = unit / self.d, self.theta * (unit / self.d)
        ints = np.rint(top), np.rint(bottom)
        if not (np.allclose(top, ints[0], rtol=0, atol=1e-6) and np.allclose(bottom, ints[1], rtol=0, atol=1e-6)):
            raise ValueError(f"the strategy's entries are not whole multiples of 2^-{self.bits}")
        return ints[0].astype(np.int64), ints[1].astype(np.int64)

    def column_steps(self) -> np.ndarray:
        """Each column's L1 norm in lattice steps (int64): its sensitivity to one count."""
        top, bottom = self.integer_weights()
        return top + bottom.sum(axis=0)

    def _y(self) -> np.ndarray:
        t = self.theta
        return np.linalg.inv(np.eye(t.shape[0]) + t @ t.T)

    def matrix(self) -> np.ndarray:
        """The (m + p) x m strategy A = [I; Theta] D^-1 (columns of L1 norm 1)."""
        return np.vstack([np.eye(self.m), self.theta]) / self.d

    def inverse_gram(self) -> np.ndarray:
        """M = (A^T A)^-1 = D (I - Theta^T Y Theta) D, m x m."""
        t, d = self.theta, self.d
        x_inv = np.eye(self.m) - t.T @ self._y() @ t
        return d[:, None] * x_inv * d[None, :]

    def pinv_apply(self, answers: np.ndarray) -> np.ndarray:
        """Least squares A^+ z for answers z of shape (m + p, k): D X^-1 (z_top + Theta^T z_bottom)."""
        t = self.theta
        v = answers[:self.m] + t.T @ answers[self.m:]
        v = v - t.T @ (self._y() @ (t @ v))
        return self.d[:, None] * v

    def apply(self, values: np.ndarray) -> np.ndarray:
        """A x for x of shape (m, k): the strategy's answers."""
        scaled = values / self.d[:, None]
        return np.vstack([scaled, self.theta @ scaled])


def product_steps(x: PIdentity, y: PIdentity) -> int:
    """The L1 sensitivity of a product strategy on the lattice, in answer steps of 2^-(x.bits + y.bits): the
    product of the axes' largest column norms in steps (a column of A_y (x) A_x is a product of columns)."""
    return int(x.column_steps().max()) * int(y.column_steps().max())


def product_noise_variance(x: PIdentity, y: PIdentity, epsilon: float) -> float:
    """One answer's noise variance for a product strategy on the lattice measured at ``epsilon``
    (:func:`psdviz.core.lattice.lattice_variance`)."""
    return float(lattice_variance(epsilon, x.bits + y.bits, product_steps(x, y)))


def objective(theta: np.ndarray, gram: np.ndarray) -> tuple[float, np.ndarray]:
    """tr(G M(Theta)) and its gradient in Theta (module docstring), in O(p m^2).

    With B = Theta D, P = Y B G: f = sum_i G_ii d_i^2 - sum(P * B), and
    df/dTheta = -2 [(P D) - (P D) Theta^T Y Theta] + 1 g^T, g = 2 (diag(G) d - sum_rows(P * Theta)).
    """
    d = 1.0 + theta.sum(axis=0)
    y = np.linalg.inv(np.eye(theta.shape[0]) + theta @ theta.T)
    b = theta * d
    p = y @ (b @ gram)
    f = float(np.diag(gram) @ d ** 2 - (p * b).sum())
    pd = p * d
    grad = -2.0 * (pd - (pd @ theta.T) @ y @ theta)
    grad += 2.0 * (np.diag(gram) * d - (p * theta).sum(axis=0))
    return f, grad


def optimise(gram: np.ndarray, p: int, start: np.ndarray | None = None, iterations: int = 100) -> PIdentity:
    """The p-Identity strategy minimising tr(G M) from ``start`` (else a fixed-seed uniform start), by
    L-BFGS-B with Theta >= 0 (the paper's section 5.2); the identity (Theta = 0) when that is lower."""
    m = gram.shape[0]
    identity = PIdentity(np.zeros((0, m)))
    if p < 1 or m < 2:
        return identity
    import threadpoolctl as threads  # core dependencies, imported when a strategy is optimised
    from scipy import optimize
    x0 = start if start is not None else np.random.default_rng(START_SEED).uniform(0, 1, (p, m))
    scale = float(np.trace(gram)) or 1.0               # keep the optimiser's numbers near 1

    def fun(flat: np.ndarray) -> tuple[float, np.ndarray]:
        f, g = objective(flat.reshape(p, m), gram)
        return f / scale, g.ravel() / scale

    with threads.threadpool_limits(1, user_api="blas"):   # small products: numpy's and scipy's pools contend
        res = optimize.minimize(fun, x0.ravel(), jac=True, method="L-BFGS-B", bounds=optimize.Bounds(0.0, np.inf),
                                options={"maxiter": iterations})
    found = PIdentity(np.maximum(res.x.reshape(p, m), 0.0))
    return found if objective(found.theta, gram)[0] < float(np.trace(gram)) else identity


def axis_weights(lo: np.ndarray, hi: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """(k, m) share of each of the m cells between ``edges`` that each interval [lo, hi) covers (the
    uniformity assumption inside a cell, as every answer of a release makes)."""
    left, right = edges[:-1], edges[1:]
    cover = np.minimum(hi[:, None], right[None, :]) - np.maximum(lo[:, None], left[None, :])
    return np.clip(cover, 0.0, None) / (right - left)[None, :]


def all_ranges_gram(m: int) -> np.ndarray:
    """Gram matrix of every interval of m cells: G_ij = (min(i, j) + 1)(m - max(i, j))."""
    i = np.arange(m)
    return (np.minimum.outer(i, i) + 1.0) * (m - np.maximum.outer(i, i))


def quadratic_forms(weights: np.ndarray, m_inv: np.ndarray, chunk: int = 4096) -> np.ndarray:
    """w_k^T M w_k for each row of ``weights`` (k, m), in chunks."""
    out = np.empty(weights.shape[0])
    for s in range(0, weights.shape[0], chunk):
        w = weights[s:s + chunk]
        out[s:s + chunk] = np.einsum("km,km->k", w @ m_inv, w)
    return out


def optimise_product(x_spans: np.ndarray, y_spans: np.ndarray, ex: np.ndarray, ey: np.ndarray, px: int, py: int,
                     rounds: int = 3, blocks: int | None = None) -> tuple[PIdentity, PIdentity, float]:
    """A Kronecker product A_y (x) A_x of p-Identity strategies for rectangles given by their spans
    ``x_spans`` and ``y_spans`` ((k, 2): low, high per axis) over the cells between ``ex`` and ``ey``,
    minimising the total variance factor sum_k (wx_k^T M_x wx_k)(wy_k^T M_y wy_k) one axis at a time
    (section 6: a rectangle is a product query; with one axis fixed, the other's objective is tr(G M) for
    the Gram matrix of its shares weighted by the fixed axis's forms). Each axis works on its distinct spans
    only (all row prefix sums have 256 of them). ``blocks``: the first round starts from rows that each sum
    ``blocks`` neighbouring cells (:func:`block_start`) instead of the fixed-seed uniform start. Returns both
    axes and the factor; the identity when that is lower."""
    (ux, ix), (uy, iy) = (np.unique(s, axis=0, return_inverse=True) for s in (x_spans, y_spans))
    ix, iy = ix.ravel(), iy.ravel()
    wx, wy = axis_weights(ux[:, 0], ux[:, 1], ex), axis_weights(uy[:, 0], uy[:, 1], ey)
    ax, ay = PIdentity(np.zeros((0, wx.shape[1]))), PIdentity(np.zeros((0, wy.shape[1])))
    fy = quadratic_forms(wy, ay.inverse_gram())[iy]
    for _ in range(rounds):
        cx = np.bincount(ix, weights=fy, minlength=ux.shape[0])
        ax = optimise(_with_background(wx.T @ (wx * cx[:, None])), px, _start(ax, px, blocks))
        fx = quadratic_forms(wx, ax.inverse_gram())[ix]
        cy = np.bincount(iy, weights=fx, minlength=uy.shape[0])
        ay = optimise(_with_background(wy.T @ (wy * cy[:, None])), py, _start(ay, py, blocks))
        fy = quadratic_forms(wy, ay.inverse_gram())[iy]
    total = float(fx @ fy)
    identity = float(((wx ** 2).sum(axis=1)[ix]) @ ((wy ** 2).sum(axis=1)[iy]))
    if identity <= total:
        return PIdentity(np.zeros((0, wx.shape[1]))), PIdentity(np.zeros((0, wy.shape[1]))), identity
    return ax, ay, total


def _with_background(gram: np.ndarray) -> np.ndarray:
    """The workload's Gram matrix plus every interval's, scaled to :data:`BACKGROUND` of its trace.

    Cells no query of the workload touches do not enter its objective, so an optimiser may leave them with
    any variance at all; a rectangle outside the workload would then be answered with an error of 10^13.
    Every interval at 1 % of the weight keeps each cell's variance bounded for any rectangle while the
    workload decides the strategy (docs/decisions/workload-strategy.md)."""
    everything = all_ranges_gram(gram.shape[0])
    return gram + BACKGROUND * float(np.trace(gram)) / float(np.trace(everything)) * everything


def _start(current: PIdentity, p: int, blocks: int | None = None) -> np.ndarray | None:
    """Warm start from the axis's last strategy when it has p rows, else the block start when ``blocks`` is
    given, else the fixed-seed start."""
    if current.theta.shape[0] == p:
        return current.theta
    return None if blocks is None else block_start(p, current.m, blocks)


def block_start(p: int, m: int, cells: int) -> np.ndarray:
    """A starting point for small queries: row i sums cells [i * cells, (i + 1) * cells) (the rows past the
    cells sum nothing), with a small even weight everywhere so that no entry starts on its bound. The
    uniform start spreads every row over all m cells, from which the optimiser rarely finds strategies
    for queries a few cells wide (it stays at the identity)."""
    theta = np.full((p, m), BLOCK_FLOOR)
    j = np.arange(min(m, p * cells))
    theta[j // cells, j] += 1.0
    return theta


@dataclass(frozen=True, eq=False)
class KronVariance:
    """Exact noise variances of linear answers from a product strategy's least-squares cells.

    The cells (a row-major ``my`` x ``mx`` grid between ``ex`` and ``ey``) have covariance
    ``factor`` (M_y (x) M_x), ``factor`` = 2 / epsilon^2 of the Laplace noise; a rectangle's answer has
    shares of the cells that are a product w_y w_x^T, so its variance is factor (w_y^T M_y w_y)(w_x^T M_x w_x)
    (:meth:`rectangles`), and any other linear answer with cell weights W (regions) factor sum W (M_y W M_x)
    (:meth:`__call__`, on the release's node weights: the root first, then the cells)."""

    x: PIdentity
    y: PIdentity
    ex: np.ndarray
    ey: np.ndarray
    factor: float
    _mx: np.ndarray = field(init=False, repr=False)
    _my: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_mx", self.x.inverse_gram())
        object.__setattr__(self, "_my", self.y.inverse_gram())

    def cell_variances(self) -> np.ndarray:
        """Each cell's variance, row-major: factor M_y[i, i] M_x[j, j]."""
        return self.factor * np.outer(np.diag(self._my), np.diag(self._mx)).ravel()

    def rectangles(self, rects: np.ndarray) -> np.ndarray:
        """Variances of the answers to (k, 4) rectangles (module docstring), O(k m^2)."""
        wx = axis_weights(rects[:, 0], rects[:, 2], self.ex)
        wy = axis_weights(rects[:, 1], rects[:, 3], self.ey)
        return self.factor * quadratic_forms(wx, self._mx) * quadratic_forms(wy, self._my)

    def __call__(self, node_weights: np.ndarray) -> np.ndarray:
        """Variances of answers with weights (n_nodes, k) on the release's nodes (root, then the cells)."""
        mx, my = self.ex.size - 1, self.ey.size - 1
        w = node_weights[1:]
        rows = np.flatnonzero(np.any(w != 0, axis=1))
        if rows.size ** 2 <= 2 * my * mx * (my + mx):      # few cells touched: the covariance of those cells
            iy, ix = np.divmod(rows, mx)
            cov = self._my[np.ix_(iy, iy)] * self._mx[np.ix_(ix, ix)]
            sub = w[rows]
            return self.factor * ((cov @ sub) * sub).sum(axis=0)
        grid = w.reshape(my, mx, -1)
        left = np.einsum("ab,bck->ack", self._my, grid)
        return self.factor * np.einsum("ack,cd,adk->k", left, self._mx, grid)
