"""Count streams of the shapes w-event mechanisms are built for, for benchmarks/repro_time_papers.py.

These are NOT the streams of Kellaris et al. (VLDB 2014) or of PeGaSus (Chen et al., CCS 2017): neither paper's
data could be had here, and neither was found to describe a synthetic stream precisely enough to rebuild it
(docs/reproduction/time_papers.md says what was found and where). They are small, fixed-seed streams of d cells
over T windows whose shape is named, so that a mechanism's error can be read against the shape:

- ``steady``: each cell a fixed rate; the whole stream's level changes by a factor in [0.5, 2] at rare change
  points (on average one every 200 windows). Repeating the last release is right most of the time: budget
  distribution and absorption are designed for this.
- ``daily``: the level follows a 24-window cycle (1 + 0.6 sin). Every window differs from the last.
- ``trend``: the level grows linearly from 0.5 to 1.5 over the span.
- ``bursts``: ``steady`` with bursts of 10 windows at 3 times the level (on average one every 150 windows).

A cell's count in a window is Poisson of its rate times the window's level; the cells' rates are lognormal (sigma
1), and the whole stream is scaled so that the mean count of a cell in a window is ``mean``.
"""
from __future__ import annotations

import numpy as np

SHAPES = ("steady", "daily", "trend", "bursts")


def _steady_level(rng: np.random.Generator, windows: int, every: float = 200.0) -> np.ndarray:
    level = np.empty(windows)
    current, t = 1.0, 0
    while t < windows:
        run = max(1, int(rng.exponential(every)))
        level[t:t + run] = current
        t += run
        current = float(np.clip(current * rng.uniform(0.5, 2.0), 0.25, 4.0))
    return level


def level(shape: str, windows: int, rng: np.random.Generator) -> np.ndarray:
    """The stream's level in each window (mean 1 or near it)."""
    t = np.arange(windows)
    if shape == "steady":
        return _steady_level(rng, windows)
    if shape == "daily":
        return 1.0 + 0.6 * np.sin(2 * np.pi * t / 24.0)
    if shape == "trend":
        return 0.5 + t / max(windows - 1, 1)
    if shape == "bursts":
        out = _steady_level(rng, windows)
        starts = np.flatnonzero(rng.random(windows) < 1 / 150.0)
        for s in starts:
            out[s:s + 10] *= 3.0
        return out
    raise ValueError(f"shape must be one of {SHAPES} (got {shape!r})")


def stream(shape: str, windows: int, cells: int = 32, mean: float = 20.0, seed: int = 0) -> np.ndarray:
    """(cells, windows) int64 counts of the named shape, reproducible from ``seed``."""
    rng = np.random.default_rng([seed, SHAPES.index(shape), windows, cells])
    rates = rng.lognormal(0.0, 1.0, cells)
    rates *= mean / rates.mean()
    lam = rates[:, None] * level(shape, windows, rng)[None, :]
    lam *= mean / lam.mean()
    return rng.poisson(lam).astype(np.int64)


if __name__ == "__main__":
    for s in SHAPES:
        c = stream(s, 1000)
        step = np.abs(np.diff(c, axis=1)).mean()
        print(f"{s:7s} mean count a cell {c.mean():6.1f}   mean |change| a cell and window {step:6.2f}")
