"""The release protocol every product line answers (spatial releases, regions, count of counts, sparse
summaries, counts over time): what a caller may rely on whichever kind of release it holds. The facts every
kind states first are one type, :class:`psdviz.kernel.header.ReleaseHeader`."""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Literal, Protocol, overload, runtime_checkable

from ..core.ledger import Ledger
from ..core.privacy_unit import PrivacyUnit
from ..core.rng import Randomness
from .header import ReleaseHeader
from .values import json_value

__all__ = ["AUDIT_NOTE", "NOT_IN_FILES", "PrivateRelease", "json_value", "owner_audit"]


@runtime_checkable
class PrivateRelease(Protocol):
    """A built, immutable release.

    ``header`` the facts every kind states first, under one name each (:class:`~psdviz.kernel.header.ReleaseHeader`:
    ``kind``, ``method``, ``private``, ``epsilon``, ``ledger``, ``randomness``, ``privacy_unit``, ``notes``, each
    also an attribute of the release); ``report()`` the publishable facts, the header's head first (no input
    count, no seed); ``input_report`` and ``audit()`` the data owner's exact input counts (not private, never in
    a report or file); ``save(path)`` the release file that ``pv.load_release`` opens.
    """

    @property
    def header(self) -> ReleaseHeader: ...

    @property
    def kind(self) -> str: ...

    @property
    def method(self) -> str: ...

    @property
    def private(self) -> bool: ...

    @property
    def notes(self) -> tuple[str, ...]: ...

    @property
    def input_report(self) -> Mapping: ...

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
