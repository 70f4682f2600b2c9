"""User-level accounting of a release built on contribution-bounded points (group privacy).

After bounding (``core/contribution.py``) one user changes at most k points of the input. Every
mechanism in psdviz is epsilon-DP per point with a sensitivity argument that scales linearly in the
number of changed points: geometric/Laplace counts (a user moves the L1 norm of a level's disjoint
counts by at most k, so sensitivity k), the exponential mechanism (rank scores change by at most k),
the noisy mean (sum sensitivity k widths) and PrivTree's biased counts (Zhang et al. SIGMOD'16
Theorem 3.2 holds per point; k points compose by group privacy). For these pure mechanisms group
privacy is exactly the linear sensitivity argument, so no tighter bound holds: a build at
epsilon / k per point is epsilon-DP per user. (epsilon, delta) mechanisms (smooth-sensitivity
medians) would need delta k e^{epsilon} per user; they are refused at user level rather than
reported with a delta the user did not choose.

:func:`to_user_level` rewrites the ledger and the tree's per-node epsilons in user units (each step
costs k times its per-point epsilon, sensitivity k), so every per-path ledger check applies
unchanged at user level.
"""
from __future__ import annotations

from dataclasses import replace

from ..core.errors import ParameterError
from ..core.privacy_unit import ONE_POINT, PrivacyUnit
from .release import Release


def user_unit(k: int) -> PrivacyUnit:
    return PrivacyUnit("user", k)


def unit_for(max_points_per_user: int | None) -> PrivacyUnit:
    """The privacy unit of a build: one point, or one user of at most ``max_points_per_user`` points."""
    return ONE_POINT if max_points_per_user is None else user_unit(int(max_points_per_user))


def to_user_level(rel: Release, k: int, epsilon: float) -> Release:
    """The release of a per-point ``epsilon / k`` build, accounted per user at ``epsilon``."""
    if rel.ledger.delta() > 0:
        raise ParameterError(f"{rel.method} with these parameters uses an (epsilon, delta) mechanism "
                             "(smooth-sensitivity "
                             "medians); user-level releases support pure-epsilon mechanisms only: choose median='em' "
                             "or 'noisymean'")
    t = rel.tree
    tree = replace(t, count_eps=t.count_eps * k, split_eps=t.split_eps * k,
                   pruned_eps=None if t.pruned_eps is None else t.pruned_eps * k)
    note = (f"privacy unit: {user_unit(k)} (each user's points beyond {k} were dropped at random); "
            f"built at epsilon {epsilon / k:.4g} per point = {epsilon:g} per user (group privacy)")
    return rel.evolve(tree=tree, ledger=rel.ledger.per_user(k, epsilon), privacy_unit=user_unit(k),
                      notes=(*rel.notes, note))
