"""The public entry point ``psdviz.build`` (DESIGN.md "Public surface")."""
from __future__ import annotations

from .core.domain import Domain, prepare_points
from .core.grid import DEFAULT_RESOLUTION
from .core.ledger import TOLERANCE
from .methods.param_info import coerce_params
from .methods.registry import get_builder, methods, references
from .publish.release import Release
from .core.rng import make_randomness
from .core.validation import check_epsilon


METHODS_AND_REFERENCES = methods() + references()


def build(points, domain: Domain, method: str = "quadtree", epsilon: float = 0.5, seed: int | None = None,
          *, outside: str = "drop", nonfinite: str = "error", resolution: int = DEFAULT_RESOLUTION,
          **params) -> Release:
    """Build a private spatial decomposition of ``points`` (n, 2) over the public ``domain``.

    ``seed=None`` uses OS entropy; an integer seed gives a reproducible (labelled) run.
    ``outside``: "drop" or "clip" points outside the domain; ``nonfinite``: "error" or "drop"
    rows with NaN/inf. ``resolution`` k: every released coordinate lies on the public grid of 2^k
    positions per axis over the domain, and points are counted in its cells (the data's declared
    precision; no method makes a cell narrower than one step). Method parameters (``height``, ``budget``, ``postprocess``, ``prune``,
    ``count_fraction``, ...) default to the values from each method's paper.
    """
    epsilon = check_epsilon(epsilon)
    if not isinstance(method, str):
        raise ValueError(f"method must be a method name, one of {sorted(METHODS_AND_REFERENCES)} (got {method!r})")
    builder = get_builder(method)
    params = coerce_params(method, params)
    ps = prepare_points(points, domain, outside=outside, nonfinite=nonfinite, resolution=resolution)
    rnd = make_randomness(seed)
    release = builder(ps, domain, epsilon, rnd, **params)
    spent = release.ledger.total()
    if spent > epsilon * (1 + TOLERANCE) + TOLERANCE:  # defensive: a builder bug must not ship
        raise RuntimeError(f"{method} spent {spent} > epsilon {epsilon}")
    release.grid = ps.grid
    return release
