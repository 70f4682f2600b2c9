"""Linear measurements with real weights and exact discrete noise: the weights on a public dyadic lattice.

Rule. A measurement whose answers are weighted sums of integer counts (a matrix-mechanism strategy, a
weighted hierarchy) takes its weights on the public lattice of multiples of 2^-bits (:func:`dyadic`: rounded
down, so no column's L1 norm grows). Every answer is then an integer number of lattice steps, computed
exactly in integers (:func:`exact_product`), and gets two-sided geometric noise in lattice steps
(:func:`measure_on_lattice`): the released answers are ``(integer + integer noise) * 2^-bits``, points of a
public lattice whatever the data.

Privacy. One point changes one count by 1, so the integer answers move by the L1 norm of that count's
column of integer weights, at most ``sensitivity`` (the largest column's, exact integer arithmetic): two-sided
geometric noise with a = exp(-epsilon / sensitivity) per lattice step is epsilon-DP for integer-valued
queries of that L1 sensitivity (Ghosh, Roughgarden, Sundararajan 2009), with numpy's geometric tail as for
every count (:mod:`psdviz.core.noise`). Continuous Laplace noise added to real answers in floating point is
not: its low-order bits tell which true answer produced a value (Mironov, CCS 2012). Least squares and every
answer computed from the noisy lattice values are post-processing.
"""
from __future__ import annotations

import math

import numpy as np

from .noise import geometric_noise

INT64_SAFE = 1 << 62      # integer products whose partial sums stay below this are exact in int64


def dyadic(weights: np.ndarray, bits: int) -> np.ndarray:
    """Non-negative ``weights`` rounded down to whole multiples of 2^-``bits``, as those multiples (int64).

    Rounding down keeps every column's L1 norm at most its real one, so a strategy scaled to sensitivity 1
    keeps sensitivity at most 1."""
    w = np.asarray(weights, dtype=float)
    if (w < 0).any() or not np.isfinite(w).all():
        raise ValueError("lattice weights must be finite and non-negative")
    return np.floor(w * float(1 << bits)).astype(np.int64)


def exact_product(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """``left @ right`` of two integer matrices, exactly.

    int64 when no partial sum can reach 2^62 (the bound: the largest |entry| of ``left`` times the largest
    column sum of |``right``|), else Python integers (the same numbers, slower). The bound only picks the
    arithmetic, never what is returned."""
    a, b = _integers(left), _integers(right)
    if a.size == 0 or b.size == 0:
        return np.zeros((a.shape[0], b.shape[1]), dtype=np.int64)
    bound = int(np.abs(a).max()) * int(np.abs(b).sum(axis=0).max())
    if bound < INT64_SAFE and a.dtype != object and b.dtype != object:
        return a @ b
    return a.astype(object) @ b.astype(object)


def exact_scale(scale: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``scale[:, None] * values`` of integers, exactly (int64 when the largest product fits, else Python
    integers; the bound picks the arithmetic only)."""
    s, v = _integers(scale), _integers(values)
    small = s.size == 0 or v.size == 0 or int(np.abs(s).max()) * int(np.abs(v).max()) < INT64_SAFE
    if small and s.dtype != object and v.dtype != object:
        return s[:, None] * v
    return s.astype(object)[:, None] * v.astype(object)


def _integers(values: np.ndarray) -> np.ndarray:
    """int64, or the Python integers of an exact product that left int64 (object arrays stay)."""
    arr = np.asarray(values)
    if arr.dtype == object:
        return arr
    if not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"exact lattice arithmetic takes integers (got {arr.dtype})")
    return arr.astype(np.int64, copy=False)


def measure_on_lattice(answers: np.ndarray, bits: int, sensitivity: int, epsilon: float,
                       rng: np.random.Generator) -> np.ndarray:
    """Exact integer ``answers`` (in lattice steps of 2^-``bits``) with two-sided geometric noise for L1
    sensitivity ``sensitivity`` (in lattice steps), returned as reals on the lattice."""
    z = np.asarray(answers)
    noisy = z + geometric_noise(rng, z.shape, epsilon, float(sensitivity))
    return np.asarray(noisy, dtype=float) * 2.0 ** -bits


def lattice_variance(epsilon, bits: int, sensitivity: int):
    """The variance of one answer's noise, in the answers' units: 4^-bits times the two-sided geometric
    variance 2a / (1 - a)^2, a = exp(-epsilon / sensitivity) (below the Laplace variance 2 (sensitivity
    2^-bits / epsilon)^2, and within 10^-12 of it for the lattices used here)."""
    x = np.asarray(epsilon, dtype=float) / float(sensitivity)
    with np.errstate(divide="ignore", invalid="ignore"):
        one_minus_a = -np.expm1(-x)                  # 1 - a without cancellation for tiny epsilon / sensitivity
        var = 2.0 * (1.0 - one_minus_a) / one_minus_a ** 2
    return np.where(x > 0, var, np.inf) * 4.0 ** -bits


REAL_BITS = 6             # a real-valued statistic is measured in steps of 2^-6 (noisy_statistic)


def statistic_steps(sensitivity: float, bits: int = REAL_BITS) -> int:
    """The L1 sensitivity, in steps of 2^-``bits``, of a real statistic of sensitivity ``sensitivity`` rounded
    to the nearest step: |rint(u) - rint(v)| <= |u - v| + 1, and one step more covers the floating-point error
    of computing the statistic (far below a step for the sums measured here)."""
    return math.ceil(sensitivity * (1 << bits)) + 2


def noisy_statistic(value: float, sensitivity: float, epsilon: float, rng: np.random.Generator,
                    bits: int = REAL_BITS) -> float:
    """A real statistic of L1 sensitivity ``sensitivity``, rounded to the nearest step of 2^-``bits`` and given
    two-sided geometric noise in steps (:func:`statistic_steps`): epsilon-DP, its value on the public lattice.
    The noise's scale in the statistic's units is ``statistic_steps(sensitivity, bits) / 2^bits / epsilon``."""
    steps = np.array([round(float(value) * (1 << bits))], dtype=np.int64)
    return float(measure_on_lattice(steps, bits, statistic_steps(sensitivity, bits), epsilon, rng)[0])
