"""The release protocol every product line answers (spatial releases, count of counts, sparse
summaries): what a caller may rely on whichever kind of release it holds."""
from __future__ import annotations

from pathlib import Path
from typing import Protocol, runtime_checkable

from ..core.ledger import Ledger
from ..core.privacy_unit import PrivacyUnit


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
