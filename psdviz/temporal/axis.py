"""The public time axis of a release over time: a span [start, end) cut into T windows of equal length.

The span and the window are public inputs, fixed before the data are read (as the spatial domain is): a
span read from the data's first and last timestamps would release them. Timestamps are whole seconds since
1970-01-01 UTC; an event belongs to window ``(t - start) // window``; events outside the span are dropped
and counted for the data owner only.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ..core.errors import InputDataError, ParameterError

UNITS_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800}
NAMED = {"second": "1s", "minute": "1m", "hour": "1h", "day": "1d", "week": "1w"}
MAX_WINDOWS = 100_000
_WINDOW = re.compile(r"^\s*([1-9][0-9]*)\s*([smhdw]?)\s*$")


def parse_window(window) -> int:
    """A window length in seconds: a whole number of seconds, or text such as "1d", "6h", "1w", "3600s",
    "hour", "day", "week"."""
    if isinstance(window, (int, np.integer)) and not isinstance(window, bool):
        if int(window) < 1:
            raise ParameterError(f"window must be at least 1 second (got {window})")
        return int(window)
    if isinstance(window, str):
        text = NAMED.get(window.strip().lower(), window.strip().lower())
        m = _WINDOW.match(text)
        if m:
            return int(m.group(1)) * UNITS_SECONDS[m.group(2) or "s"]
    raise ParameterError(f"window must be a number of seconds or text such as 1h, 1d, 1w, 3600s, hour, day, week "
                         f"(got {window!r})")


def to_seconds(values, name: str = "time") -> tuple[np.ndarray, np.ndarray]:
    """Whole seconds since 1970-01-01 UTC (int64) of timestamps (numpy datetime64, pandas datetimes, with or
    without a time zone, ISO text, or numbers of seconds), and a mask of the values that are missing."""
    import pandas as pd
    arr = values.to_numpy() if hasattr(values, "to_numpy") else np.asarray(values)
    if arr.ndim != 1:
        raise InputDataError(f"{name} must be one timestamp per point (got shape {arr.shape})")
    if arr.dtype.kind in "iuf":
        f = arr.astype(float)
        ok = np.isfinite(f)
        return np.floor(np.where(ok, f, 0.0)).astype(np.int64), ~ok
    if arr.dtype.kind == "b":
        raise InputDataError(f"{name} must hold timestamps, not True/False")
    try:
        text = arr.dtype.kind in "OUS" and any(isinstance(v, str) for v in arr[:100])
        stamps = pd.to_datetime(pd.Series(arr), utc=True, errors="raise", **({"format": "ISO8601"} if text else {}))
    except (ValueError, TypeError, OverflowError) as exc:
        raise InputDataError(f"{name} holds values that are not timestamps ({str(exc)[:120]}); give datetimes, "
                             "ISO text or seconds since 1970-01-01 UTC") from None
    missing = stamps.isna().to_numpy()
    secs = stamps.dt.as_unit("s").astype("int64", copy=False) if not missing.any() else \
        stamps.fillna(pd.Timestamp(0, tz="UTC")).dt.as_unit("s").astype("int64")
    return np.asarray(secs, dtype=np.int64), missing


def one_time(value, name: str) -> int:
    """One public instant (the span's start or end) in whole seconds since 1970-01-01 UTC."""
    secs, missing = to_seconds(np.asarray([value], dtype=object if isinstance(value, str) else None), name)
    if missing[0]:
        raise ParameterError(f"{name} must be a timestamp (got {value!r})")
    return int(secs[0])


@dataclass(frozen=True)
class TimeAxis:
    """``windows`` windows of ``window`` seconds from ``start`` (seconds since 1970-01-01 UTC): public."""

    start: int
    window: int
    windows: int

    def __post_init__(self) -> None:
        if not (isinstance(self.window, int) and self.window >= 1):
            raise ParameterError(f"window must be a whole number of seconds >= 1 (got {self.window!r})")
        if not (isinstance(self.windows, int) and 1 <= self.windows <= MAX_WINDOWS):
            raise ParameterError(f"a span holds 1 to {MAX_WINDOWS:,} windows (got {self.windows!r}): choose a "
                                 "longer window or a shorter span")

    @classmethod
    def over(cls, span, window) -> TimeAxis:
        """The axis of the public ``span`` (start, end) cut into windows of ``window`` (the last window may
        reach past ``end``; it is the span's last)."""
        if not (isinstance(span, (tuple, list)) and len(span) == 2):
            raise ParameterError(f"span must be (start, end), public timestamps (got {span!r})")
        start, end = one_time(span[0], "span start"), one_time(span[1], "span end")
        if end <= start:
            raise ParameterError(f"span end must come after its start (got {span[0]!r} to {span[1]!r})")
        w = parse_window(window)
        n = -(-(end - start) // w)
        if n > MAX_WINDOWS:
            raise ParameterError(f"the span holds {n:,} windows of {w:,} s, above {MAX_WINDOWS:,}: choose a longer "
                                 "window or a shorter span")
        return cls(start, w, int(n))

    @property
    def end(self) -> int:
        return self.start + self.window * self.windows

    def index(self, seconds: np.ndarray) -> np.ndarray:
        """The window of each timestamp (int64), -1 outside the span."""
        t = np.asarray(seconds, dtype=np.int64)
        i = np.floor_divide(t - self.start, self.window)
        return np.where((t >= self.start) & (i < self.windows), i, -1)

    def starts(self) -> np.ndarray:
        """Each window's start as numpy datetime64[s] (UTC)."""
        return (self.start + self.window * np.arange(self.windows, dtype=np.int64)).astype("datetime64[s]")

    def label(self) -> str:
        """The window in words ("1 day", "6 hours", "3,600 seconds")."""
        for unit, secs in (("week", 604_800), ("day", 86_400), ("hour", 3600), ("minute", 60)):
            if self.window % secs == 0:
                k = self.window // secs
                return f"{k:,} {unit}{'s' if k > 1 else ''}"
        return f"{self.window:,} seconds"

    def to_data(self) -> dict:
        return {"start": self.start, "window_seconds": self.window, "windows": self.windows,
                "start_utc": str(np.datetime64(self.start, "s")), "end_utc": str(np.datetime64(self.end, "s"))}

    def window_range(self, first=None, last=None) -> tuple[int, int]:
        """[a, b) window indices from ``first`` and ``last`` (inclusive) given as window indices or timestamps;
        None: the span's ends."""
        a = 0 if first is None else self._at(first, "first")
        b = self.windows - 1 if last is None else self._at(last, "last")
        if b < a:
            raise ParameterError(f"the last window ({b}) comes before the first ({a})")
        return a, b + 1

    def _at(self, value, name: str) -> int:
        if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
            i = int(value)
        else:
            i = int(self.index(np.asarray([one_time(value, name)]))[0])
        if not 0 <= i < self.windows:
            raise ParameterError(f"{name} window {value!r} lies outside the span (windows 0 to {self.windows - 1})")
        return i
