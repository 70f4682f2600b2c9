"""Shared tail of builders that produce a complete tree of uniform fanout (ICDE'12 sections 5, 7).

Quadtrees and kd-trees flattened to fanout 4 (section 6.2) have the same shape, so they share:
OLS post-processing (level-uniform epsilons), pruning after post-processing, the fast pyramid
query path when the leaves form a regular grid, and exact answer variances via the OLS adjoint.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from ..core.domain import Domain, PointSet
from ..core.ledger import Ledger
from ..core.parallel import Disjointness, TreeTiling
from ..core.rng import Randomness
from ..core.tree import FlatTree
from ..inference.ols import ols_estimate
from ..inference.prune import prune_tree
from ..publish.factory import make_release
from ..publish.query_model import QueryModel
from ..publish.release import Release


def finish_complete_tree(tree: FlatTree, eps: np.ndarray, fanout: int, ps: PointSet, domain: Domain,
                     ledger: Ledger, rnd: Randomness, method: str, params: dict, *,
                     regular: bool, postprocess: bool, prune: float | None,
                     private: bool = True, notes: tuple[str | None, ...] = (),
                     parallel: Disjointness | None = None, data_cuts: int = 0) -> Release:
    """OLS (if ``postprocess``), pruning (if ``prune``), fast query index and the Release.

``eps`` is the count epsilon per depth; ``notes`` (None entries skipped) go into the release;
``regular``: every level is a regular grid (the quadtree), enabling the pyramid path when nothing is
pruned; ``parallel``: the proof that a level's regions are disjoint when children do not tile their
parent (the Hilbert R-tree's curve ranges). The query machinery is described as data
(``publish/query_model.py``) and the release made by ``publish/factory.py``.
"""
    full_height = tree.height
    consistent = bool(postprocess or (eps[:-1] == 0).all())
    if postprocess:
        tree.est = ols_estimate(tree, eps, fanout)
    elif consistent:  # leaf-only budget: internal estimates are sums of noisy leaves
        tree.est = tree.subtree_sum(tree.noisy)
    var_by_depth = tree.noise_var[tree.level_bounds()[:-1]]
    kept = None
    parallel = parallel or TreeTiling.of(tree, ps.grid)   # the levels were measured on the complete tree
    if prune is not None:
        tree, kept = prune_tree(tree, prune, use_estimate=consistent)
    model = QueryModel("tree", "ols" if postprocess else "complete_leaf" if consistent else "none",
                       data_cuts=int(data_cuts or 0), full_height=full_height, fanout=fanout,
                       eps=tuple(float(e) for e in eps),
                       var=tuple(None if not np.isfinite(v) else float(v) for v in var_by_depth))
    if regular and kept is None:
        model = dataclasses.replace(model, answer="pyramid", regular=True, levels=tuple(
            [full_height] if consistent else [d for d in range(full_height + 1) if eps[d] > 0]))
    return make_release(method, params, domain, tree, ledger, rnd, ps.report(), consistent=consistent,
                        private=private, grid=ps.grid, notes=notes, query_model=model, kept=kept, parallel=parallel)
