"""Contribution bounding for user-level privacy: keep at most k points per user.

Which k points are kept is chosen uniformly at random with the release's randomness (a random key
per row, rows sorted by user then key, the first k of each user kept). Each user's kept rows are a
uniform random k-subset of that user's rows, independent across users, so adding or removing one
user adds or removes at most k kept points and leaves the law of every other user's kept points
unchanged. That is what makes group privacy over k points apply to the whole release
(``publish/group_privacy.py``).
"""
from __future__ import annotations

import numpy as np

from .errors import InputDataError
from .validation import check_int

MAX_POINTS_PER_USER = 10_000


def user_codes(user, n_rows: int) -> np.ndarray:
    """Integer codes of the user ids (any hashable values: numbers, strings); the length must match."""
    arr = np.asarray(user)
    if arr.ndim != 1 or arr.shape[0] != n_rows:
        raise InputDataError(f"user must give one id per point: {n_rows} points but user has shape {arr.shape}")
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        raise InputDataError("user ids contain NaN or infinity: give every point a user id (or drop those rows)")
    if arr.dtype.kind == "O":
        missing = (arr == None) | (arr != arr)   # noqa: E711 (elementwise: None and NaN ids)
        if missing.any():
            raise InputDataError("user ids contain missing values (None or NaN): give every point a user id "
                                 "(or drop those rows)")
        arr = arr.astype(str)
    return np.unique(arr, return_inverse=True)[1].ravel()


def bound_contributions(codes: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """Boolean mask of the rows kept: at most ``k`` per user, chosen uniformly at random."""
    k = check_int(k, "max_points_per_user", 1, MAX_POINTS_PER_USER)
    n = codes.shape[0]
    order = np.lexsort((np.asarray(rng.random(n)), codes))
    sorted_codes = codes[order]
    first = np.r_[0, np.flatnonzero(np.diff(sorted_codes)) + 1]
    run_start = np.repeat(first, np.diff(np.r_[first, n]))
    keep = np.zeros(n, bool)
    keep[order[np.arange(n) - run_start < k]] = True
    return keep
