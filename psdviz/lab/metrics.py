"""Error measures (Qardaji et al.: relative error with a floor rho = 0.001 N)."""
from __future__ import annotations

import numpy as np

RHO_FRACTION = 0.001


def relative_error(estimate, truth, n_points: int, rho_fraction: float = RHO_FRACTION) -> np.ndarray:
    """|est - true| / max(true, rho), rho = rho_fraction * N (N: the number of points)."""
    est = np.asarray(estimate, dtype=float)
    tru = np.asarray(truth, dtype=float)
    rho = rho_fraction * n_points
    return np.abs(est - tru) / np.maximum(tru, max(rho, 1e-12))


def absolute_error(estimate, truth) -> np.ndarray:
    return np.abs(np.asarray(estimate, dtype=float) - np.asarray(truth, dtype=float))


def summarize(errors) -> dict:
    """Mean, median and 90th percentile of an error vector."""
    e = np.asarray(errors, dtype=float)
    return {"mean": float(e.mean()), "median": float(np.median(e)), "p90": float(np.quantile(e, 0.9)),
            "n": int(e.size)}
