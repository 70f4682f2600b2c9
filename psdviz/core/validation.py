"""Shared parameter checks; each raises a ValueError that names the parameter and its limit."""
from __future__ import annotations

import math

import numpy as np

from .errors import ParameterError

EPSILON_MAX = 1e6
LARGE_EPSILON = 10.0     # above this a budget protects (nearly) nothing: warned in the engine, refused by the CLI


class LargeEpsilonWarning(UserWarning):
    """An epsilon above :data:`LARGE_EPSILON`: e^epsilon bounds how much more likely any output becomes
    when one person's data change (above 22,000 at 10), so such a release protects (nearly) no one."""


def warn_large_epsilon(epsilon: float, stacklevel: int = 3) -> None:
    """Warn (:class:`LargeEpsilonWarning`) when a release's whole epsilon is above :data:`LARGE_EPSILON`."""
    if epsilon > LARGE_EPSILON:
        import warnings
        warnings.warn(f"epsilon {epsilon:g} is above {LARGE_EPSILON:g}: one person's data may make an output "
                      f"up to e^{epsilon:g} times more likely, so this release protects (nearly) no one",
                      LargeEpsilonWarning, stacklevel=stacklevel)


def check_epsilon(epsilon: float, name: str = "epsilon") -> float:
    """An epsilon must be a finite number > 0 (and below a sanity cap of 1e6): a Python or numpy
    number, never a bool or a string."""
    if not is_number(epsilon):
        raise ParameterError(f"{name} must be a number > 0 (got {epsilon!r})")
    value = float(epsilon)
    if not math.isfinite(value) or value <= 0:
        raise ParameterError(f"{name} must be finite and > 0 (got {epsilon!r})")
    if value > EPSILON_MAX:
        raise ParameterError(f"{name} must be <= {EPSILON_MAX:g} (got {value:g})")
    return value


def check_fraction(value: float, name: str, *, open_low: bool = True, open_high: bool = True) -> float:
    """A share of a budget: strictly between 0 and 1 unless an end is allowed."""
    if not is_number(value):
        raise ParameterError(f"{name} must be a number in (0, 1) (got {value!r})")
    v = float(value)
    low_ok = v > 0 if open_low else v >= 0
    high_ok = v < 1 if open_high else v <= 1
    if not (math.isfinite(v) and low_ok and high_ok):
        lo = "(0" if open_low else "[0"
        hi = "1)" if open_high else "1]"
        raise ParameterError(f"{name} must lie in {lo}, {hi} (got {value!r})")
    return v


def check_int(value: int, name: str, lo: int, hi: int | None = None) -> int:
    """An integer parameter within [lo, hi] (``hi`` None: no upper bound)."""
    span = f"in [{lo}, {hi}]" if hi is not None else f">= {lo}"
    if not is_number(value) or not math.isfinite(float(value)) or not float(value).is_integer():
        raise ParameterError(f"{name} must be an integer {span} (got {value!r})")
    v = int(value)
    if v < lo or (hi is not None and v > hi):
        raise ParameterError(f"{name} must be an integer {span} (got {v})")
    return v


def is_number(value) -> bool:
    """A real number given as a Python or numpy number (not a bool, not a string, not complex)."""
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))


def coerce_param(name: str, value, kind: str, optional: bool, choices: tuple[str, ...] = ()):
    """One parameter, by kind ("bool", "int", "float", "choice", "str"): Python or numpy values of the
    right kind come back as plain Python values; anything else is a ValueError that names the
    parameter and what it accepts. Ranges are checked by the method itself."""
    if value is None:
        if optional:
            return None
        raise ParameterError(f"{name} must be {_what(kind, choices)}, not None")
    if kind == "bool":
        if isinstance(value, (bool, np.bool_)):
            return bool(value)
    elif kind == "int":
        if is_number(value) and math.isfinite(float(value)) and float(value).is_integer():
            return int(value)
    elif kind == "float":
        if is_number(value) and math.isfinite(float(value)):
            return float(value)
    elif kind == "choice":
        if isinstance(value, str) and value in choices:
            return value
    elif isinstance(value, str):
        return value
    raise ParameterError(f"{name} must be {_what(kind, choices)}{' or None' if optional else ''} (got {value!r})")


def _what(kind: str, choices: tuple[str, ...]) -> str:
    return {"bool": "True or False", "int": "a whole number", "float": "a finite number",
            "choice": f"one of {choices}", "str": "a string"}[kind]


def check_positive(value, name: str, hi: float = math.inf) -> float:
    """A finite number > 0 (and at most ``hi``)."""
    if not is_number(value) or not math.isfinite(float(value)) or not 0 < float(value) <= hi:
        limit = "" if hi == math.inf else f" and <= {hi:g}"
        raise ParameterError(f"{name} must be a finite number > 0{limit} (got {value!r})")
    return float(value)
