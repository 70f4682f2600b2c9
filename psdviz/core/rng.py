"""Randomness sources: OS entropy by default, a seed for reproducible teaching runs.

docs/design.md privacy rules: randomness comes from OS entropy unless the user asks for a seed; a
seeded run is reproducible and is labelled as such in every release (``randomness`` field).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .errors import ParameterError

SEEDED = "seeded (reproducible, for teaching; not for real releases)"
FRESH = "fresh (OS entropy)"
NOT_PRIVATE_SEEDED = ("NOT PRIVATE: built from a seed (a reproducible teaching run); whoever finds the seed can "
                      "regenerate the noise and recover every exact count")


_ENGINE = object()     # marks the generators the engine made from OS entropy (the only ones labelled fresh)


@dataclass(frozen=True)
class Randomness:
    """A numpy Generator together with a label saying where its entropy came from.

    Only the engine's own generator (:func:`make_randomness` with ``seed=None``, or a release file's
    label on load, which holds no generator worth the name) may be labelled fresh: a generator a caller
    made, from a seed or otherwise, is labelled seeded, so a seeded run can never be saved as fresh."""

    rng: np.random.Generator
    mode: str
    seed: int | None
    origin: object = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.mode not in (FRESH, SEEDED):
            raise ParameterError(f"randomness mode must be {FRESH!r} or {SEEDED!r} (got {self.mode!r})")
        if self.mode == FRESH and self.origin is not _ENGINE:
            raise ParameterError("only psdviz's own generator (seed=None) is labelled fresh; a generator you made "
                                 "is a seeded run: label it seeded, or pass seed=None for fresh randomness")

    @property
    def reproducible(self) -> bool:
        return self.seed is not None

    @property
    def seeded(self) -> bool:
        """Built from a seed: true also for a release loaded from a file, which keeps the label, never the seed."""
        return self.mode == SEEDED

    def warning(self) -> dict:
        """``{"warning": ...}`` saying NOT private for a seeded run (for reports and files); else empty."""
        return {"warning": NOT_PRIVATE_SEEDED} if self.seeded else {}


def check_seeded_export(randomness: Randomness, allow_seeded: bool, what: str) -> None:
    """Refuse to write a seeded run as a release (a file, cells, an export) unless the caller says so.

    A seed is small: trying seeds recovers the noise, hence every exact count, of a saved seeded
    release. Such a file is a teaching artefact; with ``allow_seeded=True`` it is written and says in
    words that it is NOT private."""
    if not isinstance(allow_seeded, (bool, np.bool_)):
        raise ParameterError(f"allow_seeded must be True or False (got {allow_seeded!r})")
    if randomness.seeded and not allow_seeded:
        raise ParameterError(f"refusing to write {what}: this release was built from a seed, so it is NOT private "
                             "(whoever finds the seed recovers every exact count); build it again without a seed for "
                             "a real release, or pass allow_seeded=True for a teaching file labelled NOT private")


def labelled(frame, randomness: Randomness):
    """A copy of an export table with a ``warning`` column saying NOT PRIVATE on every row when the run
    was seeded (CSV and Parquet have no place for a file-wide label that every reader sees); the frame
    itself when fresh. The input frame is never changed."""
    if not randomness.seeded:
        return frame
    return frame.assign(warning=NOT_PRIVATE_SEEDED)


def post_processing(rng: np.random.Generator) -> np.random.Generator:
    """A generator for randomness applied to values already released (priority sampling of noisy counts, say),
    seeded from ``rng`` (a seeded run stays reproducible). Such draws are post-processing: they may be continuous
    and reach what is published, since they never touch a true value. A mechanism's own noise never comes from
    here (the privacy tests move every continuous draw of ``rng`` and require the release not to move)."""
    return np.random.default_rng(int(rng.integers(0, 2 ** 63)))


def make_randomness(seed: int | Randomness | None = None) -> Randomness:
    """Return a :class:`Randomness`; ``seed=None`` draws from OS entropy (``SeedSequence()``)."""
    if isinstance(seed, Randomness):
        return seed
    if seed is None:
        return Randomness(np.random.default_rng(np.random.SeedSequence()), FRESH, None, _ENGINE)
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise ParameterError(f"seed must be an integer or None (got {seed!r})")
    if seed < 0:
        raise ParameterError(f"seed must be a non-negative integer (got {seed})")
    return Randomness(np.random.default_rng(int(seed)), SEEDED, int(seed))
