"""Shared parameter checks; each raises a ValueError that names the parameter and its limit."""
from __future__ import annotations

import math

EPSILON_MAX = 1e6


def check_epsilon(epsilon: float, name: str = "epsilon") -> float:
    """An epsilon must be a finite number > 0 (and below a sanity cap of 1e6)."""
    try:
        value = float(epsilon)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number > 0 (got {epsilon!r})") from None
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be finite and > 0 (got {epsilon!r})")
    if value > EPSILON_MAX:
        raise ValueError(f"{name} must be <= {EPSILON_MAX:g} (got {value:g})")
    return value


def check_fraction(value: float, name: str, *, open_low: bool = True, open_high: bool = True) -> float:
    """A share of a budget: strictly between 0 and 1 unless an end is allowed."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number in (0, 1) (got {value!r})") from None
    low_ok = v > 0 if open_low else v >= 0
    high_ok = v < 1 if open_high else v <= 1
    if not (math.isfinite(v) and low_ok and high_ok):
        lo = "(0" if open_low else "[0"
        hi = "1)" if open_high else "1]"
        raise ValueError(f"{name} must lie in {lo}, {hi} (got {value!r})")
    return v


def check_int(value: int, name: str, lo: int, hi: int) -> int:
    """An integer parameter within [lo, hi]."""
    if isinstance(value, bool) or not float(value).is_integer():
        raise ValueError(f"{name} must be an integer in [{lo}, {hi}] (got {value!r})")
    v = int(value)
    if not lo <= v <= hi:
        raise ValueError(f"{name} must be an integer in [{lo}, {hi}] (got {v})")
    return v
