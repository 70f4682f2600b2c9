"""The interval beside every private number: the estimate plus or minus z standard deviations of its whole
error (the noise and, for spatial releases, the modelled error of the cells a query's edges cut)."""
from __future__ import annotations

from statistics import NormalDist

import numpy as np


def interval_z(level: float) -> float:
    """The normal quantile of ``(1 + level) / 2`` (1.96 for 0.95); ``level`` must lie in (0, 1)."""
    if not (isinstance(level, (int, float, np.floating)) and not isinstance(level, bool) and 0 < level < 1):
        raise ValueError(f"level must be a number in (0, 1), e.g. 0.95 (got {level!r})")
    return NormalDist().inv_cdf(0.5 + float(level) / 2)


def whole_interval(estimate, noise_se, cut_error=0.0, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """(low, high): ``estimate -+ z * sqrt(noise_se**2 + cut_error**2)``, the interval of the whole error
    (every interval psdviz shows or exports beside a private number is this one)."""
    half = interval_z(level) * np.hypot(np.asarray(noise_se, float), np.asarray(cut_error, float))
    est = np.asarray(estimate, float)
    return est - half, est + half
