"""The release header: the facts every kind of release states first, under one name each.

Spatial releases, region releases, count-of-counts histograms, sparse summaries and releases over time each
answer ``header`` (:class:`ReleaseHeader`): what kind of release it is, its method, whether it is private, its
parameters, its ledger (epsilon, the epsilon spent, the one delta), its randomness and privacy unit and its
notes. The header writes the head of every kind's report (:meth:`ReleaseHeader.report`, the keys of
:data:`HEADER` in that order), and reads the head of a JSON release file back (:meth:`ReleaseHeader.from_report`,
which also reads the ``params`` key files had before ``parameters``). Each kind adds its own facts after the head.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..core.ledger import FrozenLedger, Ledger
from ..core.privacy_unit import PrivacyUnit
from ..core.rng import Randomness
from .file_checks import bad
from .freeze import FrozenDict
from .values import json_value

HEADER = ("kind", "method", "private", "epsilon", "epsilon_spent", "delta", "parameters", "privacy_unit",
          "randomness", "ledger", "notes")
KINDS = ("spatial", "regions", "count-of-counts", "sparse", "over-time")


@dataclass(frozen=True)
class ReleaseHeader:
    """What every release states first, whatever its kind (immutable).

    Attributes
    ----------
    kind : str
        One of :data:`KINDS`.
    method : str
        The method that made the release (for count-of-counts with one method a level, their names joined).
    parameters : mapping
        The parameters as the release states them (the report writes them as JSON values).
    ledger : Ledger
        Every spend: ``epsilon`` (the budget), ``epsilon_spent`` and ``delta`` are read from it.
    randomness : Randomness
        Fresh or seeded (a seeded run's report says NOT PRIVATE).
    privacy_unit : PrivacyUnit
        Whose presence the release hides.
    private : bool
        False for the non-private teaching references.
    notes : tuple of str
        Sentences the release carries for its readers.
    """

    kind: str
    method: str
    parameters: dict
    ledger: Ledger
    randomness: Randomness
    privacy_unit: PrivacyUnit
    private: bool = True
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise RuntimeError(f"kind must be one of {KINDS} (got {self.kind!r}): a bug in psdviz")
        object.__setattr__(self, "parameters", FrozenDict(self.parameters))
        object.__setattr__(self, "notes", tuple(self.notes))
        if not isinstance(self.ledger, FrozenLedger):          # a release's ledger is frozen already
            object.__setattr__(self, "ledger", self.ledger.frozen())

    @property
    def epsilon(self) -> float:
        """The release's budget (the ledger's)."""
        return self.ledger.budget

    @property
    def delta(self) -> float:
        """The release's one delta: the sum of the ledger's."""
        return self.ledger.delta()

    def report(self) -> dict:
        """The head of the release's report, in the order and with the names of :data:`HEADER`: kind, method,
        private, epsilon, the epsilon the ledger spent, delta, the parameters as JSON values, the privacy unit
        in words, the randomness mode (and a seeded run's NOT PRIVATE warning), the ledger and the notes.
        Publishable facts only: no input count, no seed."""
        return {"kind": self.kind, "method": str(self.method), "private": bool(self.private),
                "epsilon": self.epsilon, "epsilon_spent": self.ledger.total(), "delta": self.delta,
                "parameters": {k: json_value(v) for k, v in self.parameters.items()},
                "privacy_unit": str(self.privacy_unit), "randomness": self.randomness.mode,
                **self.randomness.warning(), "ledger": self.ledger.records(), "notes": list(self.notes)}

    @staticmethod
    def parameters_of(report: dict) -> dict:
        """The parameters a file's ``report`` states (``params`` in files written before the name was
        ``parameters``); a ReleaseFileError when they are not an object."""
        params = report.get("parameters", report.get("params"))
        if not isinstance(params, dict):
            raise bad("the report's parameters must be an object")
        return params

    @classmethod
    def from_report(cls, report: dict, kind: str, privacy_unit: PrivacyUnit) -> ReleaseHeader:
        """The header of a JSON release file from its ``report``: the ledger checked against its totals, the
        randomness label, the method (text), the parameters (:meth:`parameters_of`) and the notes; a damaged
        file is a ReleaseFileError naming what is wrong. ``privacy_unit``: the one the file states."""
        from .json_release import ledger_and_randomness, text_list
        ledger, rnd = ledger_and_randomness(report)
        params = cls.parameters_of(report)
        if not isinstance(report.get("method"), str):
            raise bad("the report's method must be text")
        return cls(kind, report["method"], params, ledger, rnd, privacy_unit,
                   notes=tuple(text_list(report.get("notes"), "notes")))
