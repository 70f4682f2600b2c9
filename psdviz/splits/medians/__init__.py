"""Private medians (ICDE'12 section 6.1) for all nodes of a tree level at once.
Part of psdviz.splits: may import psdviz.core only.

Every function takes ``(rng, values, offsets, lo, hi, epsilon)``: ``values`` integer keys on the
public grid, sorted inside each segment ``offsets[s]:offsets[s+1]``, one segment per node, and the
node *regions* lo..hi (integer grid positions: public bounds, never the data's extent); each
returns one split position per node, an integer in [lo, hi] (keys below it go left). :func:`private_medians` dispatches
by name and applies
Theorem 7 sampling when ``sample_rate`` < 1.
"""
from __future__ import annotations

from typing import Literal, get_args

import numpy as np

from ...core.errors import ParameterError
from .cell import cell_medians
from .em import em_medians, em_position_probabilities
from .noisymean import noisy_mean_medians
from .sampling import amplified_epsilon, bernoulli_sample
from .smooth import EPS_LIMIT as SMOOTH_EPS_LIMIT
from .smooth import smooth_medians, smooth_sensitivity

MedianMethod = Literal["em", "smooth", "noisymean"]   # how each private median is chosen
MEDIAN_METHODS: tuple[str, ...] = get_args(MedianMethod)
MECHANISM = {"em": "exponential", "smooth": "smooth sensitivity", "noisymean": "two-sided geometric (sum and count)"}


def check_median_method(name: str) -> str:
    if name not in MEDIAN_METHODS:
        raise ParameterError(f"median must be one of {MEDIAN_METHODS} (got {name!r})")
    return name


def check_sample_rate(p: float) -> float:
    if isinstance(p, bool) or not (isinstance(p, (int, float)) and 0 < p <= 1):
        raise ParameterError(f"sample_rate must lie in (0, 1] (got {p!r})")
    return float(p)


def expand(values: np.ndarray, offsets: np.ndarray, weights: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Distinct keys with multiplicities back to the sorted keys themselves (and their offsets)."""
    if weights is None:
        return values, offsets
    w = np.asarray(weights, np.int64)
    cw = np.zeros(w.size + 1, np.int64)
    np.cumsum(w, out=cw[1:])
    return np.repeat(values, w), cw[np.asarray(offsets, np.int64)]


def private_medians(rng: np.random.Generator, values: np.ndarray, offsets: np.ndarray, lo, hi,
                    epsilon: float, method: str = "em", *, sample_rate: float = 1.0,
                    delta: float = 1e-4, weights: np.ndarray | None = None) -> np.ndarray:
    """Medians that are epsilon-DP (``smooth``: (epsilon, delta)-DP) per segment.

    With ``sample_rate`` p < 1 the mechanism runs on a fresh Bernoulli(p) sample with the
    Theorem 7 budget (see :mod:`psdviz.splits.medians.sampling`); delta is kept as is (conservative).
    ``weights``: the values are distinct per segment with these multiplicities (a source's grouped
    counts); the EM and noisy-mean medians use them as they are (memory: distinct keys), the others on the
    expanded keys."""
    check_median_method(method)
    if method == "em" and sample_rate >= 1.0:
        return em_medians(rng, values, offsets, lo, hi, epsilon, weights)
    if method == "noisymean" and sample_rate >= 1.0:
        return noisy_mean_medians(rng, values, offsets, lo, hi, epsilon, weights)
    values, offsets = expand(values, offsets, weights)
    eps = epsilon
    if sample_rate < 1.0:
        eps = amplified_epsilon(epsilon, sample_rate)
        if method == "smooth" and eps >= SMOOTH_EPS_LIMIT > epsilon:
            eps = 0.99 * SMOOTH_EPS_LIMIT   # Definition 4 needs epsilon < 1; spending less is safe
        values, offsets = bernoulli_sample(rng, values, offsets, sample_rate)
    if method == "em":
        return em_medians(rng, values, offsets, lo, hi, eps)
    if method == "smooth":
        return smooth_medians(rng, values, offsets, lo, hi, eps, delta)
    return noisy_mean_medians(rng, values, offsets, lo, hi, eps)


__all__ = [
    "MEDIAN_METHODS",
    "amplified_epsilon",
    "bernoulli_sample",
    "cell_medians",
    "check_median_method",
    "check_sample_rate",
    "em_medians",
    "em_position_probabilities",
    "expand",
    "noisy_mean_medians",
    "private_medians",
    "smooth_medians",
    "smooth_sensitivity",
]
