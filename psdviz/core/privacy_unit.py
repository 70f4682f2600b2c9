"""Whose presence a release hides: the privacy unit, typed.

``str(unit)`` is the sentence reports carry ("one point", "one user, at most 5 points"); release files
carry the unit as data (:meth:`PrivacyUnit.to_data`: ``{"kind": "user", "limit": 5}``) and
:meth:`PrivacyUnit.from_data` reads it back (and the sentence of files written before, through
:meth:`PrivacyUnit.parse`). A unit compares equal to its sentence, so code and tests may write either.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import ParameterError

KINDS = ("point", "user", "record", "individual", "w-event")
_USER = re.compile(r"^one user, at most ([1-9][0-9]*) points?$")
_WEVENT = re.compile(r"^one user in any ([1-9][0-9]*) consecutive windows? \(w-event\)$")
_INDIVIDUAL = re.compile(r"^one individual \(changes the table's counts by at most ([0-9.e+-]+) in total\)$")


@dataclass(frozen=True, eq=False)
class PrivacyUnit:
    """``kind`` "point" (one location), "user" (one user with at most ``limit`` points, group privacy),
    "record" (one record of a grouped table), "individual" (one individual whose rows change a
    table's counts by at most ``limit`` in L1) or "w-event" (one user's events in any ``limit`` consecutive
    windows of a release over time: w-event privacy, Kellaris et al. VLDB 2014)."""

    kind: str = "point"
    limit: float = 1

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ParameterError(f"privacy unit kind must be one of {KINDS} (got {self.kind!r})")
        if not self.limit > 0:
            raise ParameterError(f"privacy unit limit must be > 0 (got {self.limit!r})")

    def __str__(self) -> str:
        if self.kind == "point":
            return "one point"
        if self.kind == "user":
            k = int(self.limit)
            return f"one user, at most {k} point{'s' if k > 1 else ''}"
        if self.kind == "record":
            return "one record"
        if self.kind == "w-event":
            w = int(self.limit)
            return f"one user in any {w} consecutive window{'s' if w > 1 else ''} (w-event)"
        return f"one individual (changes the table's counts by at most {self.limit:g} in total)"

    def __eq__(self, other) -> bool:
        if isinstance(other, PrivacyUnit):
            return (self.kind, float(self.limit)) == (other.kind, float(other.limit))
        if isinstance(other, str):
            return str(self) == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(str(self))

    def to_data(self) -> dict:
        """The unit as data for a file: ``{"kind": ..., "limit": ...}`` (a whole number but for an
        individual's L1 bound)."""
        limit = float(self.limit) if self.kind == "individual" else int(self.limit)
        return {"kind": self.kind, "limit": limit}

    @classmethod
    def from_data(cls, value) -> PrivacyUnit:
        """The unit a file holds: the data of :meth:`to_data`, or the sentence files held before; a
        ValueError naming what is wrong for anything else."""
        if isinstance(value, str):
            return cls.parse(value)
        if not isinstance(value, dict) or set(value) != {"kind", "limit"}:
            raise ParameterError(f"a privacy unit is {{'kind': ..., 'limit': ...}} (got {str(value)[:80]})")
        kind, limit = value["kind"], value["limit"]
        ok = (isinstance(limit, (int, float)) and not isinstance(limit, bool) and 0 < limit < 1e15
              and (kind == "individual" or float(limit).is_integer())
              and (kind in ("user", "individual", "w-event") or limit == 1))
        if kind not in KINDS or not ok:
            raise ParameterError(f"unknown privacy unit {str(value)[:80]}")
        return cls(kind, float(limit) if kind == "individual" else int(limit))

    @classmethod
    def parse(cls, text: str) -> PrivacyUnit:
        """The unit a sentence of :meth:`__str__` names; a ValueError for any other text."""
        if text == "one point":
            return cls("point")
        if text == "one record":
            return cls("record")
        m = _USER.match(text) or _INDIVIDUAL.match(text)
        if m is None and (w := _WEVENT.match(text)):
            return cls("w-event", int(w.group(1)))
        if m is None:
            raise ParameterError(f"unknown privacy unit {text!r}")
        return cls("user", int(m.group(1))) if text.startswith("one user") else cls("individual", float(m.group(1)))


ONE_POINT = PrivacyUnit("point")
