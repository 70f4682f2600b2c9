"""Randomness sources: OS entropy by default, a seed for reproducible teaching runs.

DESIGN.md privacy rules: randomness comes from OS entropy unless the user asks for a seed; a
seeded run is reproducible and is labelled as such in every release (``randomness`` field).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SEEDED = "seeded (reproducible, for teaching; not for real releases)"
FRESH = "fresh (OS entropy)"


@dataclass(frozen=True)
class Randomness:
    """A numpy Generator together with a label saying where its entropy came from."""

    rng: np.random.Generator
    mode: str
    seed: int | None

    @property
    def reproducible(self) -> bool:
        return self.seed is not None


def make_randomness(seed: int | None | Randomness = None) -> Randomness:
    """Return a :class:`Randomness`; ``seed=None`` draws from OS entropy (``SeedSequence()``)."""
    if isinstance(seed, Randomness):
        return seed
    if seed is None:
        return Randomness(np.random.default_rng(np.random.SeedSequence()), FRESH, None)
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"seed must be an integer or None (got {seed!r})")
    if seed < 0:
        raise ValueError(f"seed must be a non-negative integer (got {seed})")
    return Randomness(np.random.default_rng(int(seed)), SEEDED, int(seed))
