"""The interval beside every private number: the estimate plus or minus z standard deviations of its whole
error (the noise and, for spatial releases, the modelled error of the cells a query's edges cut), held to what
is certain: the cut cells' part never beyond what those cells could hold, and never below 0 (a count).

Rule (docs/decisions/whole-interval.md):

- z is the larger of the normal quantile of (1 + level) / 2 and the Laplace one, -ln(1 - level) / sqrt(2)
  standard deviations (2.12 at 0.95, 1.96 for a normal error): a count's two-sided geometric noise, and a
  clump of points wholly inside or outside a cut cell, have tails heavier than the normal's; a sum of many
  is nearer normal, where the larger z only over-covers.
- the cut cells' part on each side is at most what is certain: the truth lies at most sum a_i c_i below the
  uniformity answer (the cut cells' covered parts held none of their points) and sum (1 - a_i) c_i above it
  (they held all), c_i a cut cell's count, a_i its covered share (``room_low``, ``room_high``).
- half a count more on each side: the truth is a whole number.
- both ends at least 0: the truth is a count.
"""
from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

from ..core.errors import ParameterError

CONTINUITY = 0.5      # half a count on each side: the truth is a whole number


def interval_z(level: float) -> float:
    """The standard deviations of a ``level`` interval: max(normal quantile of (1 + level) / 2, Laplace
    quantile -ln(1 - level) / sqrt(2)); 2.118 for 0.95. ``level`` must lie in (0, 1)."""
    if not (isinstance(level, (int, float, np.floating)) and not isinstance(level, bool) and 0 < level < 1):
        raise ParameterError(f"level must be a number in (0, 1), e.g. 0.95 (got {level!r})")
    return max(NormalDist().inv_cdf(0.5 + float(level) / 2), -math.log(1.0 - float(level)) / math.sqrt(2.0))


def noise_band_z(level: float = 0.95) -> float:
    """The normal quantile of (1 + level) / 2 (1.96 for 0.95): the *noise band* a teaching view draws around a
    noisy count, the noise alone under the normal approximation. Never called a 95 % interval."""
    interval_z(level)                                    # the same check of level
    return NormalDist().inv_cdf(0.5 + float(level) / 2)


def whole_interval(estimate, noise_se, cut_error=0.0, level: float = 0.95, room_low=np.inf,
                   room_high=np.inf) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) of the whole error's interval (module docstring): ``estimate -+ (z * sqrt(noise_se**2 +
    cut**2) + 1/2)`` with the cut part on each side at most ``room_low`` / ``room_high`` over z, both ends at
    least 0. Every interval psdviz shows or exports beside a private number is this one."""
    z = interval_z(level)
    se, cut = np.asarray(noise_se, float), np.asarray(cut_error, float)
    low_cut = np.minimum(cut, np.asarray(room_low, float) / z)
    high_cut = np.minimum(cut, np.asarray(room_high, float) / z)
    est = np.asarray(estimate, float)
    low = est - z * np.hypot(se, low_cut) - CONTINUITY
    high = est + z * np.hypot(se, high_cut) + CONTINUITY
    return np.maximum(low, 0.0), np.maximum(high, 0.0)
