"""One privacy budget for a data set, across all its releases (sequential composition).

A :class:`Budget` is a small JSON ledger file kept with the data (format: docs/budget-format.md): the
total epsilon (and delta) the publisher allows for the data set, its privacy unit, and one entry per
release drawn from it (kind, method, epsilon, delta, privacy unit, the file written, the time). Every
entry point takes ``privacy_budget=``: a build that would exceed the remainder is refused before any data is
read (nothing written, the ledger unchanged); a build that fits is recorded when it is made, under a
file lock and re-checked there, so two processes drawing at once never overspend. Releases of one data
set compose sequentially: their epsilons and deltas add up.

Privacy units must match: a budget kept per user (at most k points) cannot take a point-level release,
nor the reverse, without the group-privacy conversion the engine uses (a point-level release of epsilon
e protects a user of k points at k e), which the refusal states.
"""
from __future__ import annotations

import json
import math
import os
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import filelock

from .core.errors import BudgetError
from .core.privacy_unit import PrivacyUnit
from .core.validation import check_epsilon

FORMAT = "psdviz-budget"
FORMAT_VERSION = 1
KINDS = ("spatial", "regions", "count-of-counts", "sparse", "over-time")
TOLERANCE = 1e-12




@dataclass(frozen=True)
class Entry:
    """One release drawn from a budget."""

    kind: str
    method: str
    epsilon: float
    delta: float
    privacy_unit: str
    file: str | None
    time: str


class Budget:
    """A data set's privacy budget, kept in the JSON file ``path``.

    Parameters
    ----------
    path : str or Path
        The ledger file. It is created when ``total_epsilon`` is given and the file does not exist.
    total_epsilon : float, optional
        The whole epsilon the publisher allows for the data set (required to create the file; if the file
        exists it must agree).
    unit : str or PrivacyUnit, optional
        The privacy unit every release must have ("one point" by default when creating; a user-level unit
        as ``PrivacyUnit("user", k)`` or its sentence "one user, at most k points").
    total_delta : float
        The whole delta allowed (default 0: pure epsilon-DP releases only).

    Examples
    --------
    >>> import tempfile, numpy as np, psdviz as pv
    >>> path = tempfile.mkdtemp() + "/trips.budget.json"
    >>> b = pv.Budget(path, total_epsilon=1.0)
    >>> pts = np.random.default_rng(0).random((1000, 2))
    >>> rel = pv.build(pts, pv.Domain(0, 0, 1, 1), "quadtree", 0.4, privacy_budget=b)
    >>> round(b.remaining, 6)
    0.6
    >>> pv.build(pts, pv.Domain(0, 0, 1, 1), "quadtree", 0.7, privacy_budget=b)
    Traceback (most recent call last):
    ...
    psdviz.core.errors.BudgetError: the budget ... has epsilon 0.6 left of 1; this release asks for 0.7: nothing ...
    >>> b.entries[0].kind, round(b.spent, 6)
    ('spatial', 0.4)
    """

    def __init__(self, path, total_epsilon: float | None = None, unit: str | PrivacyUnit | None = None,
                 total_delta: float = 0.0):
        self.path = Path(path)
        if not self.path.exists():
            if total_epsilon is None:
                raise BudgetError(f"no budget file {self.path}: give total_epsilon= to create one "
                                  "(psdviz budget init FILE --epsilon E)")
            self._create(check_epsilon(total_epsilon, "total_epsilon"), _unit(unit or "one point"), total_delta)
        doc = self._read()
        if total_epsilon is not None and not math.isclose(float(total_epsilon), doc["total_epsilon"]):
            raise BudgetError(f"{self.path} keeps a total epsilon of {doc['total_epsilon']:g}, not {total_epsilon:g}; "
                              "a budget's total is fixed when it is created")
        if unit is not None and str(_unit(unit)) != doc["unit"]:
            raise BudgetError(f"{self.path} is kept per {doc['unit']!r}, not {str(_unit(unit))!r}")

    # ---- reading ---------------------------------------------------------------------------------
    def _create(self, total: float, unit: PrivacyUnit, delta: float) -> None:
        if not (isinstance(delta, (int, float)) and 0 <= delta < 1):
            raise BudgetError(f"total_delta must be a number in [0, 1) (got {delta!r})")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._locked():
            if not self.path.exists():
                self._write({"format": FORMAT, "format_version": FORMAT_VERSION, "total_epsilon": total,
                             "total_delta": float(delta), "unit": str(unit), "releases": []})

    def _read(self) -> dict:
        try:
            doc = json.loads(self.path.read_text())
        except (OSError, ValueError, RecursionError) as exc:
            raise BudgetError(f"{self.path} is not a readable budget file ({type(exc).__name__})") from None
        ok = (isinstance(doc, dict) and doc.get("format") == FORMAT and doc.get("format_version") == FORMAT_VERSION
              and isinstance(doc.get("unit"), str) and isinstance(doc.get("releases"), list))
        if not ok:
            raise BudgetError(f"{self.path} is not a psdviz budget file (format {FORMAT!r} version {FORMAT_VERSION})")
        if not _finite(doc.get("total_epsilon"), positive=True):
            raise BudgetError(f"{self.path}: total_epsilon must be a finite number > 0 "
                              f"(got {doc.get('total_epsilon')!r})")
        if not (_finite(doc.get("total_delta", 0.0)) and doc.get("total_delta", 0.0) < 1):
            raise BudgetError(f"{self.path}: total_delta must be a finite number in [0, 1) (got "
                              f"{doc.get('total_delta')!r})")
        for r in doc["releases"]:
            if not (isinstance(r, dict) and _finite(r.get("epsilon")) and _finite(r.get("delta", 0.0))):
                raise BudgetError(f"{self.path}: a release entry is damaged ({r!r:.100})")
        return doc

    @property
    def total_epsilon(self) -> float:
        return float(self._read()["total_epsilon"])

    @property
    def total_delta(self) -> float:
        return float(self._read().get("total_delta", 0.0))

    @property
    def unit(self) -> str:
        return str(self._read()["unit"])

    @property
    def entries(self) -> list[Entry]:
        return [Entry(r.get("kind", ""), r.get("method", ""), float(r["epsilon"]), float(r.get("delta", 0.0)),
                      r.get("privacy_unit", ""), r.get("file"), r.get("time", "")) for r in self._read()["releases"]]

    @property
    def spent(self) -> float:
        """Epsilon spent so far: the sum over the releases (sequential composition)."""
        return math.fsum(e.epsilon for e in self.entries)

    @property
    def remaining(self) -> float:
        return max(0.0, _left(self._read())[0])

    @property
    def remaining_delta(self) -> float:
        return max(0.0, _left(self._read())[1])

    def report(self) -> str:
        """The budget in words: the total, what was spent on which release, what remains, and the rule."""
        lines = [f"Privacy budget {self.path.name}: epsilon {self.total_epsilon:g}"
                 + (f", delta {self.total_delta:.3g}" if self.total_delta else "") + f" per {self.unit}.",
                 "Releases of one data set compose sequentially: their epsilons (and deltas) add up, so the data "
                 "set as a whole is protected at the sum of what was spent."]
        for e in self.entries:
            lines.append(f"- {e.time}: {e.kind} ({e.method}), epsilon {e.epsilon:g}"
                         + (f", delta {e.delta:.3g}" if e.delta else "") + f", {e.file or 'not written to a file'}")
        lines.append(f"Spent: epsilon {self.spent:g}; remaining: epsilon {self.remaining:g}"
                     + (f", delta {self.remaining_delta:.3g}" if self.total_delta else "") + ".")
        return "\n".join(lines)

    # ---- drawing ---------------------------------------------------------------------------------
    def check(self, epsilon: float, delta: float, unit, what: str = "this release") -> None:
        """Refuse (:class:`BudgetError`) a release of ``epsilon`` and ``delta`` per ``unit`` that the
        remainder cannot take, or whose privacy unit differs; reads the file only (call it before any data
        is read)."""
        doc = self._read()
        have, want = doc["unit"], str(_unit(unit))
        if _row(have) != _row(want):
            raise BudgetError(_unit_refusal(have, want, epsilon))
        left, dleft = _left(doc)
        spent_after = math.fsum([*(float(r["epsilon"]) for r in doc["releases"]), float(epsilon)])
        if not spent_after <= float(doc["total_epsilon"]) * (1 + TOLERANCE):      # relative: any scale of epsilon
            raise BudgetError(f"the budget {self.path.name} has epsilon {max(left, 0.0):g} left of "
                              f"{doc['total_epsilon']:g}; {what} asks for {epsilon:g}: nothing was built and the "
                              "budget is unchanged (lower epsilon, or start a new budget for new data)")
        dspent_after = math.fsum([*(float(r.get("delta", 0.0)) for r in doc["releases"]), float(delta)])
        if delta > 0 and not dspent_after <= float(doc.get("total_delta", 0.0)) * (1 + TOLERANCE):
            raise BudgetError(f"the budget {self.path.name} has delta {max(dleft, 0.0):.3g} left; {what} needs delta "
                              f"{delta:.3g}: nothing was built and the budget is unchanged")

    def record(self, kind: str, method: str, epsilon: float, delta: float, unit, file=None) -> Entry:
        """Add one release, under the file's lock, after checking the remainder again there (another
        process may have drawn meanwhile); the file is replaced atomically."""
        entry = Entry(check_kind(kind), str(method), float(epsilon), float(delta), str(_unit(unit)),
                      None if file is None else str(file), time.strftime("%Y-%m-%dT%H:%M:%S%z"))
        with self._locked():
            self.check(epsilon, delta, unit)
            doc = self._read()
            doc["releases"].append(entry.__dict__)
            self._write(doc)
        return entry

    def draw(self, release, kind: str, file=None) -> Entry:
        """Record a built release (its epsilon, delta, privacy unit and method)."""
        method = getattr(release, "method", None) or ", ".join(getattr(release, "methods", ()))
        return self.record(kind, method, release.epsilon, release.ledger.delta(), release.privacy_unit, file)

    @contextmanager
    def _locked(self):
        """The budget file's lock (a ``.lock`` file beside it; filelock: fcntl on POSIX, msvcrt on Windows)."""
        with filelock.FileLock(str(self.path.with_name(self.path.name + ".lock"))):
            yield

    def _write(self, doc: dict) -> None:
        fd, tmp = tempfile.mkstemp(prefix=self.path.name, dir=self.path.parent)
        with os.fdopen(fd, "w") as fh:
            json.dump(doc, fh, indent=2)
            fh.write("\n")
        os.replace(tmp, self.path)


def _finite(value, positive: bool = False) -> bool:
    """A JSON number (not a bool) that is finite and >= 0 (> 0 when ``positive``)."""
    return (isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
            and (value > 0 if positive else value >= 0))


def _left(doc: dict) -> tuple[float, float]:
    """(epsilon, delta) a budget document has left: its totals less the sums over its releases (sequential
    composition); negative for a file edited past its total."""
    spent = math.fsum(float(r["epsilon"]) for r in doc["releases"])
    dspent = math.fsum(float(r.get("delta", 0.0)) for r in doc["releases"])
    return float(doc["total_epsilon"]) - spent, float(doc.get("total_delta", 0.0)) - dspent


def _unit(unit) -> PrivacyUnit:
    if isinstance(unit, PrivacyUnit):
        return unit
    try:
        return PrivacyUnit.parse(str(unit))
    except ValueError:
        raise BudgetError(f"unknown privacy unit {unit!r}: 'one point', 'one user, at most k points', "
                          "'one record' or 'one individual (...)'") from None


ROW_UNITS = ("one point", "one record")   # both are one row of the data set: one unit for its budget


def _row(unit: str) -> str:
    """The unit a budget compares: a point (a row with a location) and a record (a row of a grouped
    table) are the same thing for a data set whose rows are both, one row."""
    return "one row" if unit in ROW_UNITS else unit


def _unit_refusal(have: str, want: str, epsilon: float) -> str:
    h, w = PrivacyUnit.parse(have), PrivacyUnit.parse(want)
    base = f"this budget is kept per {have!r} but the release protects {want!r}"
    if h.kind == "user" and w.kind == "point":
        k = int(h.limit)
        return (f"{base}: by group privacy a point-level release of epsilon {epsilon:g} protects a user of at most "
                f"{k} points at {k * epsilon:g}; build it per user (user=, max_points_per_user={k}) to draw from "
                "this budget")
    if h.kind == "point" and w.kind == "user":
        return (f"{base}: a user-level release also protects one point at its epsilon, but budgets are kept per "
                "one unit; keep a user-level budget for user-level releases")
    return f"{base}: keep one budget per privacy unit"


def check_kind(kind: str) -> str:
    if kind not in KINDS:
        raise BudgetError(f"kind must be one of {KINDS} (got {kind!r})")
    return kind
