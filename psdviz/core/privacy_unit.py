"""Whose presence a release hides: the privacy unit, typed.

``str(unit)`` is the sentence reports and files carry ("one point", "one user, at most 5 points");
:meth:`PrivacyUnit.parse` reads it back. A unit compares equal to its sentence, so code and tests
may write either.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

KINDS = ("point", "user", "record", "individual")
_USER = re.compile(r"^one user, at most ([1-9][0-9]*) points?$")
_INDIVIDUAL = re.compile(r"^one individual \(changes the table's counts by at most ([0-9.e+-]+) in total\)$")


@dataclass(frozen=True, eq=False)
class PrivacyUnit:
    """``kind`` "point" (one location), "user" (one user with at most ``limit`` points, group privacy),
    "record" (one record of a grouped table) or "individual" (one individual whose rows change a
    table's counts by at most ``limit`` in L1)."""

    kind: str = "point"
    limit: float = 1

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"privacy unit kind must be one of {KINDS} (got {self.kind!r})")
        if not self.limit > 0:
            raise ValueError(f"privacy unit limit must be > 0 (got {self.limit!r})")

    def __str__(self) -> str:
        if self.kind == "point":
            return "one point"
        if self.kind == "user":
            k = int(self.limit)
            return f"one user, at most {k} point{'s' if k > 1 else ''}"
        if self.kind == "record":
            return "one record"
        return f"one individual (changes the table's counts by at most {self.limit:g} in total)"

    def __eq__(self, other) -> bool:
        if isinstance(other, PrivacyUnit):
            return (self.kind, float(self.limit)) == (other.kind, float(other.limit))
        if isinstance(other, str):
            return str(self) == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(str(self))

    @classmethod
    def parse(cls, text: str) -> PrivacyUnit:
        """The unit a sentence of :meth:`__str__` names; a ValueError for any other text."""
        if text == "one point":
            return cls("point")
        if text == "one record":
            return cls("record")
        m = _USER.match(text) or _INDIVIDUAL.match(text)
        if m is None:
            raise ValueError(f"unknown privacy unit {text!r}")
        return cls("user", int(m.group(1))) if text.startswith("one user") else cls("individual", float(m.group(1)))


ONE_POINT = PrivacyUnit("point")
