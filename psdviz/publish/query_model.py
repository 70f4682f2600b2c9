"""How a release answers queries and their variances, as data (a small JSON-ready description).

A builder describes its query machinery instead of wiring closures, and :func:`machinery` builds it
from that description and the released tree alone (when the release is made by
:func:`psdviz.publish.factory.make_release`, which checks the description first). The same function runs when a
release is built and when a saved release is loaded (``release_file.py``), so a loaded release
answers ``answer`` and ``answer_variance`` with exactly the same code and the same numbers.

Description keys:

* ``answer``: ``"tree"`` (canonical decomposition, ICDE'12 section 4.1), ``"pyramid"`` (regular or
  near-equal grid levels: ``levels`` = the depths used, ``regular`` = equal cells), ``"grid_of_grids"``
  (the adaptive grid: ``edges1`` = level-1 edges in grid positions) or ``"split_index"`` (h-tree).
* ``variance``: ``"none"`` (raw noisy counts: the decomposition's own variance), ``"leaf"`` (sums of
  the tree's independent noisy leaves), ``"complete_leaf"`` / ``"ols"`` (a complete tree of
  ``fanout`` and ``full_height`` with per-depth ``eps`` and ``var``, possibly pruned: ``kept`` maps
  each released node to its id in the complete tree; ICDE'12 section 5 for OLS) or ``"gls"`` (tree
  GLS of ``tree_gls.py``, re-derived from the released noise variances).
* ``data_cuts`` (optional, default 0): the children of nodes shallower than this depth have edges placed
  from the data (private medians, imbalance positions); the cut-cell model of ``query/uniformity.py``
  takes their points as one clump.
"""
from __future__ import annotations

import numpy as np

from ..core.tree import FlatTree, complete_skeleton
from ..inference.ols import ols_coefficients
from ..inference.tree_gls import gls_plan, gls_variance_fn
from ..query.grid_of_grids import GridOfGrids
from ..query.pyramid import Pyramid
from ..query.split_index import SplitIndex

ANSWERS = ("tree", "pyramid", "grid_of_grids", "split_index")
VARIANCES = ("none", "leaf", "complete_leaf", "ols", "gls")


def check_model(model: dict) -> None:
    """The query model names an answer path and a variance this version knows."""
    if model.get("answer") not in ANSWERS or model.get("variance") not in VARIANCES:
        raise ValueError(f"unknown query model {model!r}: answer must be one of {ANSWERS}, "
                         f"variance one of {VARIANCES}")


def machinery(rel) -> tuple:
    """(fast query index or None, leaf-variance function or None) of a release, from its tree and
    query model alone (the same on a built and on a loaded release)."""
    model = rel.query_model
    vals = rel.tree.est if rel.consistent else rel.tree.noisy
    index = None
    if model["answer"] == "pyramid":
        index = _pyramid(rel.tree, vals, rel.domain, model["levels"], model["regular"])
    elif model["answer"] == "grid_of_grids":
        index = _grid_of_grids(rel.tree, vals, rel.grid, np.asarray(model["edges1"], np.int64))
    elif model["answer"] == "split_index":
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
        raise ValueError(f"depth {d} of this tree is not a full grid; the pyramid query model does not apply")
    return g, (np.r_[ux, r[:, 2].max()], np.r_[uy, r[:, 3].max()])


def _pyramid(tree, vals, domain, levels, regular: bool) -> Pyramid:
    grids = [_level_grid(tree, vals, d) for d in levels]
    edges = None if regular else grids[-1][1]
    return Pyramid.from_grids(domain, [g for g, _ in grids], edges)


def _grid_of_grids(tree: FlatTree, vals: np.ndarray, grid, edges1: np.ndarray) -> GridOfGrids:
    n1 = (edges1.size - 1) ** 2
    m2 = np.rint(np.sqrt(tree.n_children[1:1 + n1])).astype(np.int64)
    return GridOfGrids.build(grid, edges1, m2, vals[1:1 + n1], vals[1 + n1:])


def _full_tree(tree: FlatTree, model: dict) -> FlatTree:
    var = np.array([np.inf if v is None else v for v in model["var"]], dtype=float)
    return complete_skeleton(int(model["full_height"]), int(model["fanout"]), var)


def _full_leaf_weights(full: FlatTree, kept: np.ndarray | None, w: np.ndarray) -> np.ndarray:
    """Weights on the complete tree's leaves for weights given on the released (pruned) tree's leaves:
    a pruned leaf's weight goes to every complete-tree leaf below it."""
    bounds = full.level_bounds()
    if kept is None:
        return w[bounds[full.height]:]
    big = np.zeros((full.n_nodes, w.shape[1]))
    big[kept] = w
    return full.path_sum(big)[bounds[full.height]:]


def _variance(tree: FlatTree, model: dict, kept: np.ndarray | None):
    kind = model["variance"]
    if kind == "none":
        return None
    if kind == "leaf":
        var = np.where(tree.is_leaf, tree.noise_var, 0.0)
        return lambda w: (w ** 2 * var[:, None]).sum(axis=0)
    if kind == "gls":
        return gls_variance_fn(tree, gls_plan(tree, tree.noise_var))
    full = _full_tree(tree, model)
    if kind == "complete_leaf":
        leaf_var = full.noise_var[full.level_bounds()[full.height]:]
        return lambda w: (_full_leaf_weights(full, kept, w) ** 2 * leaf_var[:, None]).sum(axis=0)
    eps = np.asarray(model["eps"], dtype=float)
    finite = np.isfinite(full.noise_var)

    def ols(w: np.ndarray) -> np.ndarray:
        coef = ols_coefficients(full, eps, int(model["fanout"]), _full_leaf_weights(full, kept, w))
        return (coef[finite] ** 2 * full.noise_var[finite, None]).sum(axis=0)
    return ols
