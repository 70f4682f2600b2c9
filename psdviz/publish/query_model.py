"""How a release answers queries and their variances, as typed data (:class:`QueryModel`, saved as a small
JSON object).

A builder describes its query machinery instead of wiring closures, and :func:`machinery` builds it
from that description and the released tree alone (when the release is made by
:func:`psdviz.publish.factory.make_release`, which checks the description first). The same function runs when a
release is built and when a saved release is loaded (``release_file.py``), so a loaded release
answers ``answer`` and ``answer_variance`` with exactly the same code and the same numbers.

Fields (and the keys of the saved object):

* ``answer``: ``"tree"`` (canonical decomposition, ICDE'12 section 4.1), ``"pyramid"`` (regular or
  near-equal grid levels: ``levels`` = the depths used, ``regular`` = equal cells), ``"grid_of_grids"``
  (the adaptive grid: ``edges1`` = level-1 edges in grid positions) or ``"split_index"`` (h-tree).
* ``variance``: ``"none"`` (raw noisy counts: the decomposition's own variance), ``"leaf"`` (sums of
  the tree's independent noisy leaves), ``"complete_leaf"`` / ``"ols"`` (a complete tree of
  ``fanout`` and ``full_height`` with per-depth ``eps`` and ``var``, possibly pruned: ``kept`` maps
  each released node to its id in the complete tree; ICDE'12 section 5 for OLS) or ``"gls"`` (tree
  GLS of ``tree_gls.py``, re-derived from the released noise variances) or ``"kron"`` (least squares
  over a product strategy's noisy answers, :mod:`psdviz.inference.pidentity`: ``theta_x`` and
  ``theta_y`` the p-Identity parameters of each axis, row-major, ``eps`` the one epsilon of its noise;
  ``scale_x``, ``scale_y`` the column scales and ``lattice_bits`` the weight lattice of a strategy measured
  with geometric noise on it, :mod:`psdviz.core.lattice`; files without them hold Laplace answers).
* ``data_cuts`` (optional, default 0): the children of nodes shallower than this depth have edges placed
  from the data (private medians, imbalance positions); the cut-cell model of ``query/uniformity.py``
  takes their points as one clump.
* ``inference`` (optional): ``"nnls"`` when the estimates are non-negative least squares over the released
  counts (:mod:`psdviz.publish.nonnegative`).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Literal, get_args

import numpy as np

from ..core.errors import ReleaseFileError
from ..core.noise import laplace_variance
from ..core.tree import FlatTree, complete_skeleton
from ..inference.ols import ols_coefficients
from ..inference.pidentity import KronVariance, PIdentity, product_noise_variance
from ..inference.tree_gls import gls_plan, gls_variance_fn
from ..query.grid_of_grids import GridOfGrids
from ..query.pyramid import Pyramid
from ..query.split_index import SplitIndex

Answer = Literal["tree", "pyramid", "grid_of_grids", "split_index"]
Variance = Literal["none", "leaf", "complete_leaf", "ols", "gls", "kron"]
ANSWERS: tuple[str, ...] = get_args(Answer)
VARIANCES: tuple[str, ...] = get_args(Variance)
INFERENCES = ("", "nnls")


@dataclass(frozen=True)
class QueryModel:
    """How a release answers queries and their variances (module docstring: what each field means).

    ``levels`` and ``regular`` belong to the pyramid, ``edges1`` to the grid of grids, ``fanout``,
    ``full_height``, ``var`` (per depth, None where nothing was measured) and ``eps`` to the complete-tree
    variances; :meth:`to_data` saves only the fields of the model's own paths.
    """

    answer: Answer
    variance: Variance
    data_cuts: int = 0
    levels: tuple[int, ...] = ()
    regular: bool = False
    edges1: tuple[int, ...] = ()
    fanout: int = 0
    full_height: int = 0
    eps: tuple[float, ...] = ()
    var: tuple[float | None, ...] = ()
    inference: str = ""
    theta_x: tuple[float, ...] = ()
    theta_y: tuple[float, ...] = ()
    scale_x: tuple[float, ...] = ()
    scale_y: tuple[float, ...] = ()
    lattice_bits: int = 0

    def __post_init__(self) -> None:
        if self.answer not in ANSWERS or self.variance not in VARIANCES or self.inference not in INFERENCES:
            raise ReleaseFileError(f"unknown query model (answer {self.answer!r}, variance {self.variance!r}, "
                                   f"inference {self.inference!r}): answer must be one of {ANSWERS}, variance one of "
                                   f"{VARIANCES}")
        for name in ("levels", "edges1", "eps", "var", "theta_x", "theta_y", "scale_x", "scale_y"):
            object.__setattr__(self, name, tuple(getattr(self, name)))

    def to_data(self) -> dict:
        """The JSON object a release file holds: the answer, the variance and the fields their paths read."""
        out: dict = {"answer": self.answer, "variance": self.variance}
        if self.answer == "pyramid":
            out.update(levels=list(self.levels), regular=self.regular)
        if self.answer == "grid_of_grids":
            out["edges1"] = list(self.edges1)
        if self.variance in ("complete_leaf", "ols") or self.fanout:
            out.update(full_height=self.full_height, fanout=self.fanout, eps=list(self.eps), var=list(self.var))
        if self.variance == "kron":
            out.update(eps=list(self.eps), theta_x=list(self.theta_x), theta_y=list(self.theta_y))
            if self.lattice_bits:
                out.update(scale_x=list(self.scale_x), scale_y=list(self.scale_y), lattice_bits=self.lattice_bits)
        if self.data_cuts:
            out["data_cuts"] = self.data_cuts
        if self.inference:
            out["inference"] = self.inference
        return out

    @classmethod
    def from_data(cls, data: dict) -> QueryModel:
        """A model from its saved object (checked against its tree by
        :func:`psdviz.publish.release_checks.check_query_model`); unknown keys are refused."""
        if not isinstance(data, dict):
            raise ReleaseFileError(f"a query model is a JSON object (got {type(data).__name__})")
        unknown = sorted(set(data) - {f.name for f in dataclasses.fields(cls)})
        if unknown or data.get("answer") not in ANSWERS or data.get("variance") not in VARIANCES:
            raise ReleaseFileError(f"unknown query model {data!r}: answer must be one of {ANSWERS}, variance one of "
                                   f"{VARIANCES}" + (f", and no keys {unknown}" if unknown else ""))
        return cls(**data)

    def cut_at(self, height: int) -> QueryModel:
        """The model of a tree stopped or pruned above its planned depth: data cuts at most its height."""
        return dataclasses.replace(self, data_cuts=min(self.data_cuts, height))


def as_model(model: QueryModel | dict) -> QueryModel:
    """A builder's or a file's description as a :class:`QueryModel` (a ValueError for an unknown one)."""
    return model if isinstance(model, QueryModel) else QueryModel.from_data(model)


def machinery(rel) -> tuple:
    """(fast query index or None, leaf-variance function or None) of a release, from its tree and
    query model alone (the same on a built and on a loaded release)."""
    model = rel.query_model
    vals = rel.tree.est if rel.consistent else rel.tree.noisy
    index: Pyramid | GridOfGrids | SplitIndex | None = None
    if model.answer == "pyramid":
        index = _pyramid(rel.tree, vals, rel.domain, list(model.levels), model.regular)
    elif model.answer == "grid_of_grids":
        index = _grid_of_grids(rel.tree, vals, rel.grid, np.asarray(model.edges1, np.int64))
    elif model.answer == "split_index":
        index = SplitIndex(rel.tree, vals, rel.grid)
    return index, _variance(rel.tree, model, rel.kept)


def _level_grid(tree: FlatTree, vals: np.ndarray, d: int):
    """Values of depth ``d`` laid out as a (rows, columns) grid from their rectangles, and its edges."""
    lo, hi = tree.level_bounds()[d:d + 2]
    r = tree.rect[lo:hi]
    ux, uy = np.unique(r[:, 0]), np.unique(r[:, 1])
    g = np.full((uy.size, ux.size), np.nan)
    g[np.searchsorted(uy, r[:, 1]), np.searchsorted(ux, r[:, 0])] = vals[lo:hi]
    if np.isnan(g).any():
        raise ReleaseFileError(f"depth {d} of this tree is not a full grid; the pyramid query model does not apply")
    return g, (np.r_[ux, r[:, 2].max()], np.r_[uy, r[:, 3].max()])


def _pyramid(tree, vals, domain, levels, regular: bool) -> Pyramid:
    grids = [_level_grid(tree, vals, d) for d in levels]
    edges = None if regular else grids[-1][1]
    return Pyramid.from_grids(domain, [g for g, _ in grids], edges)


def _grid_of_grids(tree: FlatTree, vals: np.ndarray, grid, edges1: np.ndarray) -> GridOfGrids:
    n1 = (edges1.size - 1) ** 2
    m2 = np.rint(np.sqrt(tree.n_children[1:1 + n1])).astype(np.int64)
    return GridOfGrids.build(grid, edges1, m2, vals[1:1 + n1], vals[1 + n1:])


def _kron(tree: FlatTree, model: QueryModel) -> KronVariance:
    """The product strategy's variances for a grid release (root, then a row-major grid of cells)."""
    _, (ex, ey) = _level_grid(tree, tree.noise_var, 1)           # the cells' edges (refused unless a full grid)
    mx, my = ex.size - 1, ey.size - 1
    tx, ty = np.asarray(model.theta_x, float), np.asarray(model.theta_y, float)
    if tree.height != 1 or tx.size % mx or ty.size % my or len(model.eps) != 1:
        raise ReleaseFileError("the kron query model needs a grid of cells, theta_x and theta_y of whole rows of it, "
                               "and one epsilon")
    x, y = _axes(model, tx.reshape(-1, mx), ty.reshape(-1, my))
    noise = product_noise_variance(x, y, model.eps[0]) if model.lattice_bits else float(laplace_variance(model.eps[0]))
    kron = KronVariance(x, y, ex, ey, noise)       # files without a lattice hold Laplace answers
    derived = kron.cell_variances()
    if not np.allclose(tree.noise_var[1:], derived, rtol=1e-6, atol=0.0):
        raise ReleaseFileError("the cells' noise variances are not the ones the strategy and its epsilon give")
    return kron


def _axes(model: QueryModel, tx: np.ndarray, ty: np.ndarray) -> tuple[PIdentity, PIdentity]:
    """Both axes' strategies: on the weight lattice when the model says so, else the paper's scales."""
    if not model.lattice_bits:
        return PIdentity(tx), PIdentity(ty)
    bits = int(model.lattice_bits)
    sx, sy = np.asarray(model.scale_x, float), np.asarray(model.scale_y, float)
    if sx.size != tx.shape[1] or sy.size != ty.shape[1] or not 0 < bits <= 30:
        raise ReleaseFileError("the kron query model's column scales must match its cells, and its lattice bits lie in "
                               "1..30")
    x, y = PIdentity(tx, sx, bits), PIdentity(ty, sy, bits)
    x.integer_weights(), y.integer_weights()          # refused unless every entry is on the lattice
    return x, y


def _full_tree(model: QueryModel) -> FlatTree:
    var = np.array([np.inf if v is None else v for v in model.var], dtype=float)
    return complete_skeleton(int(model.full_height), int(model.fanout), var)


def _full_leaf_weights(full: FlatTree, kept: np.ndarray | None, w: np.ndarray) -> np.ndarray:
    """Weights on the complete tree's leaves for weights given on the released (pruned) tree's leaves:
    a pruned leaf's weight goes to every complete-tree leaf below it."""
    bounds = full.level_bounds()
    if kept is None:
        return w[bounds[full.height]:]
    big = np.zeros((full.n_nodes, w.shape[1]))
    big[kept] = w
    return full.path_sum(big)[bounds[full.height]:]


def _variance(tree: FlatTree, model: QueryModel, kept: np.ndarray | None):
    kind = model.variance
    if kind == "none":
        return None
    if kind == "leaf":
        var = np.where(tree.is_leaf, tree.noise_var, 0.0)
        return lambda w: (w ** 2 * var[:, None]).sum(axis=0)
    if kind == "gls":
        return gls_variance_fn(tree, gls_plan(tree, tree.noise_var))
    if kind == "kron":
        return _kron(tree, model)
    full = _full_tree(model)
    if kind == "complete_leaf":
        leaf_var = full.noise_var[full.level_bounds()[full.height]:]
        return lambda w: (_full_leaf_weights(full, kept, w) ** 2 * leaf_var[:, None]).sum(axis=0)
    eps = np.asarray(model.eps, dtype=float)
    finite = np.isfinite(full.noise_var)

    def ols(w: np.ndarray) -> np.ndarray:
        coef = ols_coefficients(full, eps, int(model.fanout), _full_leaf_weights(full, kept, w))
        return (coef[finite] ** 2 * full.noise_var[finite, None]).sum(axis=0)
    return ols
