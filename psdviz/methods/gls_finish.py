"""Shared tail of builders whose tree is post-processed by the general GLS (``inference/tree_gls.py``):
the adaptive grid, the private h-tree and the kd-tree pruned during its build.

Complete trees of uniform fanout use the ICDE'12 OLS instead (``complete_tree.py``).
"""
from __future__ import annotations

from ..core.domain import Domain, PointSet
from ..core.ledger import Ledger
from ..core.parallel import Disjointness
from ..core.rng import Randomness
from ..core.tree import FlatTree
from ..inference.tree_gls import gls_estimate, gls_plan
from ..publish.factory import make_release
from ..publish.release import Release


def finish_gls_tree(tree: FlatTree, ps: PointSet, domain: Domain, ledger: Ledger, rnd: Randomness,
                    method: str, params: dict, *, postprocess: bool, answer: str,
                    notes: tuple[str | None, ...] = (), parallel: Disjointness | None = None,
                    **model) -> Release:
    """GLS (if ``postprocess``; else leaf sums, the published estimate of coarser cells), the Release
    and its query model: ``answer`` plus the method's ``model`` fields, variance "gls" or "none";
    ``parallel``: the disjointness proof when the levels were measured on a larger tree (a stopped kd-tree)."""
    if postprocess:
        tree.est = gls_estimate(tree, tree.noisy, gls_plan(tree, tree.noise_var))
    else:
        tree.est = tree.subtree_sum(tree.noisy)
    return make_release(method, params, domain, tree, ledger, rnd, ps.report(), consistent=bool(postprocess),
                        grid=ps.grid, notes=notes, parallel=parallel,
                        query_model={"answer": answer, **model, "variance": "gls" if postprocess else "none"})
