"""The public entry point ``psdviz.build`` (DESIGN.md "Public surface")."""
from __future__ import annotations

from .core.domain import Domain, prepare_points
from .core.ledger import TOLERANCE
from .methods.registry import check_params, get_builder
from .publish.release import Release
from .core.rng import make_randomness
from .core.validation import check_epsilon


def build(points, domain: Domain, method: str = "quadtree", epsilon: float = 0.5, seed: int | None = None,
          *, outside: str = "drop", nonfinite: str = "error", **params) -> Release:
    """Build a private spatial decomposition of ``points`` (n, 2) over the public ``domain``.

    ``seed=None`` uses OS entropy; an integer seed gives a reproducible (labelled) run.
    ``outside``: "drop" or "clip" points outside the domain; ``nonfinite``: "error" or "drop"
    rows with NaN/inf. Method parameters (``height``, ``budget``, ``postprocess``, ``prune``,
    ``count_fraction``, ...) default to the values from each method's paper.
    """
    epsilon = check_epsilon(epsilon)
    builder = get_builder(method)
    check_params(method, params)
    ps = prepare_points(points, domain, outside=outside, nonfinite=nonfinite)
    rnd = make_randomness(seed)
    release = builder(ps, domain, epsilon, rnd, **params)
    spent = release.ledger.total()
    if spent > epsilon * (1 + TOLERANCE) + TOLERANCE:  # defensive: a builder bug must not ship
        raise RuntimeError(f"{method} spent {spent} > epsilon {epsilon}")
    return release
