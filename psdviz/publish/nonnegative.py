"""A release's estimates replaced by non-negative least squares over its released counts.

Post-processing (docs/design.md privacy rules): it reads only the released noisy counts, their public
noise variances and the released structure, so it costs no epsilon and the ledger is unchanged.
The solver and its exactness are in :mod:`psdviz.inference.tree_nnls`.

When it pays (benchmarks/bench_dpbench.py, variant ``+nnls``; figures in research/accuracy-notes.md):
on sparse data whose tree measures internal nodes (the hybrid kd-tree on ADULT-2D at epsilon 1,
STROKE at 0.1) it removes the noise that least squares spreads over empty space; on dense data the
bound biases small queries upward (the hybrid tree on BJ-CABS-E at 0.1 is worse), and on trees that
measure leaves only (PrivTree) it is the clipping of each leaf at 0, which only adds bias. So it is
an option, off by default.

The estimator is no longer linear in the counts, so no exact answer variance exists; the release
keeps the variance of the least-squares estimate the projection starts from and says so in a note.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from ..core.errors import ParameterError
from ..inference.tree_nnls import nnls_estimate
from .release import Release

NOTE = ("estimates: non-negative least squares over the released counts (post-processing, epsilon 0); "
        "answer_variance is that of the least-squares estimate before the non-negativity bound")
JOINT = ("estimates: the least-squares estimates are kept (non-negative least squares was asked for, but this "
         "release's cells are estimated jointly from correlated measurements, which a bound on each cell would "
         "distort)")


def nonnegative(rel: Release) -> Release:
    """A copy of ``rel`` whose node estimates are the NNLS of its released noisy counts.

    A release whose cells are estimated jointly from correlated measurements (the strategy's ``kron`` model:
    each cell's count is not an independent measurement) keeps its least-squares estimates, with a note saying
    so. Raises ValueError if a leaf has no noisy count (the bound is on leaves)."""
    tree = rel.tree
    if rel.query_model.variance == "kron":        # e.g. auto that picked the strategy: said, never distorted
        return rel.evolve(notes=(*rel.notes, JOINT))
    leaves = tree.leaf_index()
    if not np.isfinite(tree.noise_var[leaves]).all() or not np.isfinite(tree.noisy[leaves]).all():
        raise ParameterError(f"nonnegative needs a noisy count on every leaf; this {rel.method} release has "
                             "unmeasured leaves")
    est = nnls_estimate(tree, tree.noisy, tree.noise_var)
    model = dataclasses.replace(rel.query_model, inference="nnls")
    return rel.evolve(tree=dataclasses.replace(tree, est=est), consistent=True, notes=(*rel.notes, NOTE),
                      query_model=model)
