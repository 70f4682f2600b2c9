"""The one place a spatial :class:`~psdviz.publish.release.Release` is made (docs/design.md data flow).

Every builder and the release-file loader call :func:`make_release`; a changed release is derived
from a made one with :meth:`Release.evolve`. Before the release exists the factory checks what the
privacy argument rests on:

* the costliest root-to-leaf path of the tree (count, split and pruned epsilons of its nodes) spends
  no more than the ledger: sequential composition along a path is the whole cost of a point;
* every ledger step that charges many regions of one level once (parallel composition) measured
  disjoint regions (:meth:`psdviz.core.ledger.Ledger.check_parallel`, proven by
  :mod:`psdviz.core.parallel`: children tile their parent, or the Hilbert curve's ranges);
* the query model is one this version answers and fits the tree: the query machinery is built here,
  so a model that does not fit fails now, not at the first query.
"""
from __future__ import annotations

import numpy as np

from ..core.domain import Domain
from ..core.grid import Grid
from ..core.ledger import TOLERANCE, Ledger
from ..core.parallel import Disjointness, TreeTiling
from ..core.privacy_unit import ONE_POINT, PrivacyUnit
from ..core.rng import Randomness
from ..core.tree import FlatTree
from .query_model import QueryModel, as_model
from .release import Release


def make_release(method: str, params: dict, domain: Domain, tree: FlatTree, ledger: Ledger,
                 randomness: Randomness, input_report: dict, *, consistent: bool, query_model: QueryModel | dict,
                 grid: Grid, kept: np.ndarray | None = None, private: bool = True, notes=(),
                 privacy_unit: PrivacyUnit | str = ONE_POINT, parallel: Disjointness | None = None) -> Release:
    """A checked, immutable release with its query machinery built.

    Parameters
    ----------
    method, params : str, dict
        The method's name and the parameters it ran with (public).
    domain, tree, ledger, randomness, input_report
        The public domain, the released tree, the budget spent, how the noise was drawn, and the
        input account (rows outside the domain, rows without coordinates).
    consistent : bool
        The tree's estimates are consistent (each parent equals the sum of its children).
    query_model : QueryModel or dict
        How answers and variances are computed (:mod:`psdviz.publish.query_model`; a dict is its saved form).
    grid : Grid
        The public resolution grid every coordinate lies on.
    kept : array, optional
        After pruning a complete tree: each released node's id in the complete tree.
    parallel : Disjointness, optional
        The proof that a level's regions are disjoint; by default that children tile their parent.

    Raises
    ------
    ValueError
        A path spends more than the ledger, a parallel step measured regions that may overlap, or the
        query model is unknown or does not fit the tree.
    """
    model = as_model(query_model).cut_at(tree.height)   # a tree stopped above its planned depth: every depth it kept
    check_paths(tree, ledger)
    ledger.check_parallel(parallel if parallel is not None else TreeTiling.of(tree, grid))
    rel = Release(method, params, domain, tree, ledger, randomness, input_report, consistent, private=private,
                  notes=tuple(n for n in notes if n), grid=grid, query_model=model, kept=kept,
                  privacy_unit=PrivacyUnit.parse(privacy_unit) if isinstance(privacy_unit, str) else privacy_unit)
    _ = rel.index   # the machinery is built now: a model that does not fit the tree fails here
    return rel


def check_paths(tree: FlatTree, ledger: Ledger) -> None:
    """No root-to-leaf path of ``tree`` spends more epsilon than ``ledger`` recorded."""
    worst = float(tree.path_epsilons().max()) if tree.n_nodes else 0.0
    spent = ledger.total()
    if worst > spent * (1 + TOLERANCE):
        raise ValueError(f"a root-to-leaf path of the tree spends epsilon {worst:g}, more than the {spent:g} "
                         "its ledger recorded: a measurement is missing from the ledger")
