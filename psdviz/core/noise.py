"""Noise mechanisms: two-sided geometric (discrete Laplace) for counts, Laplace for reals.

ICDE'12 section 3.1 uses the Laplace mechanism; for integer counts docs/design.md asks for its discrete
analogue, the two-sided geometric mechanism (Ghosh, Roughgarden, Sundararajan 2009):
P(X = k) = (1 - a) / (1 + a) * a^|k| with a = exp(-epsilon / sensitivity). It is epsilon-DP for
integer queries of L1 sensitivity ``sensitivity`` and has variance 2a / (1 - a)^2, which tends to
the Laplace variance 2 (sensitivity / epsilon)^2 for small epsilon.
"""
from __future__ import annotations

import numpy as np

from .errors import ParameterError
from .validation import check_epsilon

# The largest noise scale (sensitivity / epsilon) drawn exactly. numpy's geometric sampler inverts a
# standard exponential (at most about 45: 53-bit uniforms) in double precision, so a scale s gives
# draws up to about 45 s; with s <= 2^47 that is below 2^53, where every integer is represented and
# the two halves of a two-sided draw never saturate or round together. A larger scale (epsilon below
# about 7e-15 per unit of sensitivity) once gave noise exactly 0: the exact counts under a stated epsilon.
MAX_EXACT_SCALE = float(2 ** 47)
MIN_EPSILON_PER_SENSITIVITY = 1.0 / MAX_EXACT_SCALE


def check_noise_scale(scale) -> None:
    """Refuse a noise scale above :data:`MAX_EXACT_SCALE` (or not finite): every sampler calls this
    before drawing, so no mechanism can release a draw that lost its randomness to rounding."""
    worst = float(np.max(scale, initial=0.0))
    if not worst <= MAX_EXACT_SCALE:
        raise ParameterError(
            f"a measurement's epsilon is too small for exact noise: noise scale sensitivity / epsilon = "
            f"{worst:g} exceeds {MAX_EXACT_SCALE:g}; the smallest per-measurement epsilon supported is "
            f"{MIN_EPSILON_PER_SENSITIVITY:.2g} times its sensitivity: raise epsilon")


def _alpha(epsilon: float, sensitivity: float) -> float:
    check_epsilon(epsilon)
    if not sensitivity > 0:
        raise ValueError(f"sensitivity must be > 0 (got {sensitivity!r})")
    return float(np.exp(-epsilon / sensitivity))


def two_sided_geometric(rng: np.random.Generator, scale, size=None) -> np.ndarray:
    """Integers with P(X = k) proportional to a^|k|, a = exp(-1 / scale), per element of ``scale``.

    The difference of two i.i.d. geometric variables counting trials (numpy's convention; the shift
    cancels). p = 1 - a is computed as -expm1(-1 / scale), exact to the last bit even when 1 / scale
    is tiny (1 - exp(-x) would round a to 1 and overstate epsilon). Scale 0 gives 0; a scale above
    :data:`MAX_EXACT_SCALE` is refused (:func:`check_noise_scale`)."""
    scale = np.asarray(scale, dtype=float)
    check_noise_scale(scale)
    shape = scale.shape if size is None else size
    with np.errstate(divide="ignore"):
        p = np.where(scale > 0, -np.expm1(-1.0 / np.where(scale > 0, scale, 1.0)), 1.0)
    p = np.broadcast_to(p, shape)
    if (p <= 0).any():
        raise ParameterError("noise scale too large for geometric noise (1 / scale underflows)")
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


def geometric_variance(epsilon, sensitivity: float | np.ndarray = 1.0):
    """Variance 2a / (1 - a)^2 of two-sided geometric noise, a = exp(-epsilon / sensitivity).

    Accepts arrays (either argument); an epsilon of 0 (nothing measured) gives an infinite variance.
    """
    eps = np.asarray(epsilon, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.exp(-eps / sensitivity)
        var = 2.0 * a / (1.0 - a) ** 2
    return np.where(eps > 0, var, np.inf)


def laplace_noise(rng: np.random.Generator, size, epsilon: float, sensitivity: float = 1.0) -> np.ndarray:
    """Laplace noise with scale sensitivity / epsilon (for real-valued quantities); a scale above
    :data:`MAX_EXACT_SCALE` is refused as for geometric noise."""
    check_epsilon(epsilon)
    return laplace_draw(rng, sensitivity / epsilon, size)


def laplace_draw(rng: np.random.Generator, scale: float, size=None) -> np.ndarray:
    """Laplace(0, ``scale``) draws, refused above :data:`MAX_EXACT_SCALE`."""
    check_noise_scale(scale)
    return rng.laplace(0.0, scale, size=size)


def laplace_variance(epsilon, sensitivity: float = 1.0):
    """Variance 2 (sensitivity / epsilon)^2 of Laplace noise."""
    eps = np.asarray(epsilon, dtype=float)
    with np.errstate(divide="ignore"):
        return np.where(eps > 0, 2.0 * (sensitivity / np.where(eps > 0, eps, 1.0)) ** 2, np.inf)
