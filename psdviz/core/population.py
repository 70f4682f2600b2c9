"""The number of points N: private unless declared public (docs/design.md privacy rules).

Grid sizes (Qardaji et al.) and tree sizes need N. Either the user declares a public value
(``n_public``), or a stated slice ``n_fraction`` of epsilon buys a noisy count of all points
(sensitivity 1), recorded in the ledger. The release says which was used.

A bought N is a noisy count of the root like any other: builders whose tree goes through least
squares (AG, the h-tree) enter it as the root's measurement (:func:`root_measurement`, post-processing
of a released value), so the slice also sharpens the total instead of only sizing the structure.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

from .errors import ParameterError
from .ledger import Ledger
from .noise import geometric_noise, geometric_variance
from .rng import Randomness
from .validation import check_fraction

DEFAULT_N_FRACTION = 0.05


@dataclass(frozen=True)
class PopulationSize:
    value: float          # the N used in formulas (>= 1)
    source: str           # "declared public" or "estimated with epsilon ..."
    epsilon: float        # budget spent on it (0 if public)
    noisy: float = float("nan")      # the noisy count itself, before the floor at 1 (nan if public)
    variance: float = float("inf")   # its noise variance (inf if public: not a measurement)
    measures_root: bool = False      # the builder also enters it as its root's count in least squares


def resolve_n(n_true: int, epsilon: float, rnd: Randomness, ledger: Ledger,
              n_public: int | PopulationSize | None = None,
              n_fraction: float = DEFAULT_N_FRACTION, measures_root: bool = False) -> PopulationSize:
    """N for formulas: the declared public value, or a noisy count bought with n_fraction * epsilon.

    ``n_public`` may also be a :class:`PopulationSize` already bought by the caller (``method="auto"``
    hands the chosen method the noisy N it paid for on its own ledger line): it is reused as it is
    (post-processing of a released value) and costs this build nothing. ``measures_root``: the builder
    also enters the count in its least squares (:func:`root_measurement`); the ledger line says so."""
    if isinstance(n_public, PopulationSize):
        return PopulationSize(n_public.value, n_public.source, 0.0, n_public.noisy, n_public.variance,
                              measures_root)
    if n_public is not None:
        if isinstance(n_public, bool) or not float(n_public).is_integer() or n_public < 1:
            raise ParameterError(f"n_public must be a positive integer (got {n_public!r})")
        return PopulationSize(float(n_public), "declared public by the user", 0.0)
    frac = check_fraction(n_fraction, "n_fraction")
    eps_n = frac * epsilon
    pop = noisy_population(n_true, eps_n, rnd, ledger, "N estimate",
                           "noisy total count: sizes the structure" + (" and is the root's count in the least "
                                                                         "squares" if measures_root else ""),
                           f"estimated with epsilon {eps_n:g} ({frac:.0%} of the budget)")
    return replace(pop, measures_root=measures_root)


def root_measurement(pop: PopulationSize | None) -> tuple[float, float, float]:
    """The noisy N as the root's count for least squares, when :func:`resolve_n` was told the builder
    uses it so (``measures_root``): (noisy count, noise variance, the epsilon this build paid for it,
    which is then a count spend); else (nan, inf, 0), i.e. unmeasured (N public, not needed, no least
    squares)."""
    if pop is None or not pop.measures_root or not math.isfinite(pop.variance):
        return float("nan"), float("inf"), 0.0
    return pop.noisy, pop.variance, pop.epsilon


def noisy_population(n_true: int, epsilon: float, rnd: Randomness, ledger: Ledger, what: str, note: str,
                     source: str) -> PopulationSize:
    """A noisy count of all points (sensitivity 1, geometric noise, at least 1), recorded as ``what``."""
    ledger.spend(what, epsilon, "geometric", nodes=1, note=note)
    noisy = n_true + int(geometric_noise(rnd.rng, 1, epsilon)[0])
    return PopulationSize(float(max(noisy, 1)), source, epsilon, float(noisy), float(geometric_variance(epsilon)))
