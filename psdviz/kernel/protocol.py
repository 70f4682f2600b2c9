"""The release protocol every product line answers (spatial releases, count of counts, sparse
summaries): what a caller may rely on whichever kind of release it holds."""
from __future__ import annotations

import math
from pathlib import Path
from typing import Literal, Protocol, overload, runtime_checkable

import numpy as np

from ..core.domain import Domain
from ..core.ledger import Ledger
from ..core.privacy_unit import PrivacyUnit
from ..core.rng import Randomness


@runtime_checkable
class PrivateRelease(Protocol):
    """A built, immutable release.

    ``epsilon`` is its budget and ``ledger`` what was spent on what; ``privacy_unit`` whose presence it
    hides; ``report()`` the publishable facts (no input count, no seed); ``audit()`` the data owner's
    exact input counts (not private, never in a report or file); ``save(path)`` the release file that
    ``pv.load_release`` opens.
    """

    @property
    def epsilon(self) -> float: ...

    @property
    def ledger(self) -> Ledger: ...

    @property
    def privacy_unit(self) -> PrivacyUnit: ...

    @property
    def randomness(self) -> Randomness: ...

    @overload
    def report(self, format: Literal["json"] = "json") -> dict: ...

    @overload
    def report(self, format: str) -> dict | str: ...

    def report(self, format: str = "json") -> dict | str: ...

    def audit(self) -> dict: ...

    def save(self, path, *, allow_seeded: bool = False) -> Path: ...


AUDIT_NOTE = ("exact counts about the input, for the data owner's records only: they are not differentially "
              "private; do not publish them")
NOT_IN_FILES = "not available: this release was loaded from a file, which never holds the owner's audit"


def owner_audit(counts, seed, **facts) -> dict:
    """The data owner's audit of any release: the exact input ``counts`` (or, for a release loaded
    from a file, a sentence saying files never hold them), the seed of a seeded run, and ``facts``."""
    return {"note": AUDIT_NOTE, **facts, "seed": seed, **(dict(counts) or {"counts": NOT_IN_FILES})}


HEADER = ("kind", "method", "private", "epsilon", "epsilon_spent", "delta", "parameters", "privacy_unit",
          "randomness", "ledger", "notes")
KINDS = ("spatial", "regions", "count-of-counts", "sparse", "over-time")


def report_header(release, kind: str, method: str, parameters: dict, private: bool = True) -> dict:
    """The head every kind's report starts with, in this order and with these names (:data:`HEADER`):
    what kind of release, its method, whether it is private, epsilon, the epsilon its ledger spent,
    its one delta, its parameters as JSON values, the privacy unit in words, the randomness mode (and a
    seeded run's NOT PRIVATE warning), the ledger and the notes. Each kind adds its own facts after it.
    Publishable facts only: no input count, no seed."""
    if kind not in KINDS:
        raise RuntimeError(f"kind must be one of {KINDS} (got {kind!r}): a bug in psdviz")
    return {"kind": kind, "method": str(method), "private": bool(private), "epsilon": release.epsilon,
            "epsilon_spent": release.ledger.total(), "delta": release.ledger.delta(),
            "parameters": {k: json_value(v) for k, v in parameters.items()},
            "privacy_unit": str(release.privacy_unit), "randomness": release.randomness.mode,
            **release.randomness.warning(), "ledger": release.ledger.records(), "notes": list(release.notes)}


def json_value(v, text_nonfinite: bool = False):
    """A parameter as a JSON value: text, booleans and None as they are, numbers (numpy's too) as Python
    numbers, a domain as its four bounds, lists and dicts value by value, anything else as its text. With
    ``text_nonfinite`` a non-finite number is written as its text (strict JSON, as release files need)."""
    if isinstance(v, (bool, str, type(None))):
        return v
    if isinstance(v, (int, float, np.generic)):
        v = v.item() if isinstance(v, np.generic) else v
        return str(v) if text_nonfinite and isinstance(v, float) and not math.isfinite(v) else v
    if isinstance(v, Domain):
        return {"xmin": v.xmin, "ymin": v.ymin, "xmax": v.xmax, "ymax": v.ymax}
    if isinstance(v, (list, tuple)):
        return [json_value(x, text_nonfinite) for x in v]
    if isinstance(v, dict):
        return {str(k): json_value(x, text_nonfinite) for k, x in v.items()}
    return str(v)
