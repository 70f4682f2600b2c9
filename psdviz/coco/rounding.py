"""Post-processing helpers of the naive method (slides of Kuo et al., VLDB 2018, "Naive Strategy").

* :func:`project_simplex`: ``argmin ||x - y||_2^2`` s.t. ``x >= 0, sum x = G``, row-wise. Exact
  (the slides use a QP solver; the projection onto a scaled simplex has a closed form: sort the row
  descending, find the largest rho with ``u_rho > (sum_{j<=rho} u_j - G) / rho``, subtract that
  threshold and clip at 0).
* :func:`largest_remainders`: ``r = G - sum floor(x)``; the r cells with the largest fractional parts
  are rounded up, the rest down (ties broken by the lower bin first).
"""
from __future__ import annotations

import numpy as np


def project_simplex(y: np.ndarray, total: np.ndarray) -> np.ndarray:
    """Row-wise Euclidean projection of ``y`` (m, n) onto ``{x >= 0, sum x = total}``; total >= 0."""
    y = np.atleast_2d(np.asarray(y, dtype=float))
    total = np.asarray(total, dtype=float).reshape(-1)
    if total.shape[0] != y.shape[0] or np.any(total < 0):
        raise ValueError("total must hold one non-negative value per row")
    u = -np.sort(-y, axis=1)
    css = np.cumsum(u, axis=1) - total[:, None]
    j = np.arange(1, y.shape[1] + 1)
    ok = u - css / j > 0
    rho = y.shape[1] - np.argmax(ok[:, ::-1], axis=1)        # last True (1-based)
    rho = np.where(ok.any(axis=1), rho, 1)
    theta = css[np.arange(y.shape[0]), rho - 1] / rho
    out = np.maximum(y - theta[:, None], 0.0)
    out[total == 0] = 0.0
    return out


def largest_remainders(x: np.ndarray, total: np.ndarray) -> np.ndarray:
    """Round non-negative rows ``x`` (m, n) summing to integer ``total`` into integers summing to it."""
    x = np.atleast_2d(np.asarray(x, dtype=float))
    total = np.asarray(total, np.int64).reshape(-1)
    base = np.floor(x + 1e-9).astype(np.int64)
    frac = x - base
    r = total - base.sum(axis=1)
    if np.any(r < 0) or np.any(r > x.shape[1]):
        raise ValueError("rows must be non-negative and sum to total")
    rank = np.argsort(np.argsort(-frac, axis=1, kind="stable"), axis=1, kind="stable")
    return base + (rank < r[:, None])
