"""Noise mechanisms: two-sided geometric (discrete Laplace) for counts, Laplace for reals.

ICDE'12 section 3.1 uses the Laplace mechanism; for integer counts DESIGN.md asks for its discrete
analogue, the two-sided geometric mechanism (Ghosh, Roughgarden, Sundararajan 2009):
P(X = k) = (1 - a) / (1 + a) * a^|k| with a = exp(-epsilon / sensitivity). It is epsilon-DP for
integer queries of L1 sensitivity ``sensitivity`` and has variance 2a / (1 - a)^2, which tends to
the Laplace variance 2 (sensitivity / epsilon)^2 for small epsilon.
"""
from __future__ import annotations

import numpy as np

from .validation import check_epsilon


def _alpha(epsilon: float, sensitivity: float) -> float:
    check_epsilon(epsilon)
    if not sensitivity > 0:
        raise ValueError(f"sensitivity must be > 0 (got {sensitivity!r})")
    return float(np.exp(-epsilon / sensitivity))


def geometric_noise(rng: np.random.Generator, size, epsilon: float, sensitivity: float = 1.0) -> np.ndarray:
    """Two-sided geometric noise: the difference of two i.i.d. geometric variables.

    If G1, G2 ~ Geometric(p = 1 - a) counting failures, G1 - G2 has exactly the two-sided geometric
    law with parameter a. numpy's geometric counts trials (support 1, 2, ...), and the shift
    cancels in the difference.
    """
    a = _alpha(epsilon, sensitivity)
    p = 1.0 - a
    if p <= 0:  # epsilon so small that a rounds to 1: no useful noise can be drawn
        raise ValueError(f"epsilon={epsilon:g} is too small for geometric noise (needs epsilon/sensitivity > 1e-15)")
    return rng.geometric(p, size=size).astype(np.int64) - rng.geometric(p, size=size).astype(np.int64)


def geometric_variance(epsilon, sensitivity: float = 1.0):
    """Variance 2a / (1 - a)^2 of two-sided geometric noise, a = exp(-epsilon / sensitivity).

    Accepts arrays; an epsilon of 0 (nothing measured) gives an infinite variance.
    """
    eps = np.asarray(epsilon, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.exp(-eps / sensitivity)
        var = 2.0 * a / (1.0 - a) ** 2
    return np.where(eps > 0, var, np.inf)


def laplace_noise(rng: np.random.Generator, size, epsilon: float, sensitivity: float = 1.0) -> np.ndarray:
    """Laplace noise with scale sensitivity / epsilon (for real-valued quantities)."""
    check_epsilon(epsilon)
    return rng.laplace(0.0, sensitivity / epsilon, size=size)


def laplace_variance(epsilon, sensitivity: float = 1.0):
    """Variance 2 (sensitivity / epsilon)^2 of Laplace noise."""
    eps = np.asarray(epsilon, dtype=float)
    with np.errstate(divide="ignore"):
        return np.where(eps > 0, 2.0 * (sensitivity / np.where(eps > 0, eps, 1.0)) ** 2, np.inf)
