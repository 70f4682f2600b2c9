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


def two_sided_geometric(rng: np.random.Generator, scale, size=None) -> np.ndarray:
    """Integers with P(X = k) proportional to a^|k|, a = exp(-1 / scale), per element of ``scale``.

    The difference of two i.i.d. geometric variables counting trials (numpy's convention; the shift
    cancels). p = 1 - a is computed as -expm1(-1 / scale), exact to the last bit even when 1 / scale
    is tiny (1 - exp(-x) would round a to 1 and overstate epsilon). Scale 0 gives 0."""
    scale = np.asarray(scale, dtype=float)
    shape = scale.shape if size is None else size
    with np.errstate(divide="ignore"):
        p = np.where(scale > 0, -np.expm1(-1.0 / np.where(scale > 0, scale, 1.0)), 1.0)
    p = np.broadcast_to(p, shape)
    if (p <= 0).any():
        raise ValueError("noise scale too large for geometric noise (1 / scale underflows)")
    return rng.geometric(p).astype(np.int64) - rng.geometric(p).astype(np.int64)


def geometric_noise(rng: np.random.Generator, size, epsilon: float, sensitivity: float = 1.0) -> np.ndarray:
    """Two-sided geometric noise with a = exp(-epsilon / sensitivity), for integer queries of L1
    sensitivity ``sensitivity``.

    Tail: numpy's geometric sampler inverts a double-precision uniform, so |X| is bounded (about
    36 at epsilon 1): the law is exact up to a total variation of about 1e-16 per draw, i.e. the
    guarantee is (epsilon, ~1e-16) rather than pure epsilon (stated in the README's privacy section).
    """
    _alpha(epsilon, sensitivity)
    return two_sided_geometric(rng, sensitivity / epsilon, size)


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
