"""Checks every kind of release file shares: the refusal's words, the ledger, the randomness label and the
privacy unit a file states. A release file can be edited by anyone who handles it: each check raises a
:class:`psdviz.errors.ReleaseFileError` (a ValueError) naming what is wrong."""
from __future__ import annotations

import math

import numpy as np

from ..core.errors import ReleaseFileError
from ..core.ledger import MAX_TOTAL_DELTA, TOLERANCE, Ledger, Spend
from ..core.privacy_unit import PrivacyUnit
from ..core.rng import _ENGINE, FRESH, SEEDED, Randomness
from ..core.validation import is_number

DAMAGED = "the file is damaged or was altered; do not use it"


def bad(what: str) -> ReleaseFileError:
    return ReleaseFileError(f"{what}: {DAMAGED}")


def typed(value, kind) -> bool:
    if isinstance(kind, tuple):
        return any(typed(value, k) for k in kind)
    if kind is float:
        return is_number(value)
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, kind)


def loaded_randomness(label) -> Randomness:
    """The randomness of a loaded release: its label (fresh or seeded, checked), never a seed."""
    if label not in (FRESH, SEEDED):
        raise bad(f"unknown randomness {label!r}")
    return Randomness(np.random.default_rng(), label, None, _ENGINE if label == FRESH else None)


def _spend(rec) -> Spend:
    if not isinstance(rec, dict) or not {"what", "epsilon", "mechanism"} <= set(rec) \
            or not set(rec) <= set(Spend.__dataclass_fields__):
        raise bad(f"a ledger entry must hold what, epsilon, mechanism and only Spend's fields (got {rec!r})")
    s = Spend(**rec)
    checks = [(isinstance(s.what, str) and isinstance(s.mechanism, str) and isinstance(s.note, str), "text fields"),
              (is_number(s.epsilon) and math.isfinite(s.epsilon) and s.epsilon >= 0, "epsilon >= 0"),
              (s.level is None or (typed(s.level, int) and s.level >= 0), "level a whole number >= 0"),
              (typed(s.nodes, int) and s.nodes >= 0, "nodes a whole number >= 0"),
              (is_number(s.sensitivity) and math.isfinite(s.sensitivity) and s.sensitivity > 0, "sensitivity > 0"),
              (is_number(s.delta) and 0 <= s.delta <= 1, "delta in [0, 1]")]
    for ok, what in checks:
        if not ok:
            raise bad(f"ledger entry {s.what!r} needs {what} (got {rec!r})")
    return s


def check_ledger(meta: dict) -> Ledger:
    """The ledger: valid entries whose total fits the stated epsilon and matches the stated totals."""
    ledger = Ledger(float(meta["epsilon"]), [_spend(r) for r in meta["ledger"]])
    total = ledger.total()
    if not total <= ledger.budget * (1 + TOLERANCE):
        raise ReleaseFileError(f"the file's ledger spends epsilon {total:g}, more than its stated epsilon "
                         f"{ledger.budget:g}: {DAMAGED}")
    if not math.isclose(total, float(meta["epsilon_spent"]), rel_tol=1e-9, abs_tol=1e-12):
        raise bad(f"epsilon_spent {meta['epsilon_spent']!r} is not the ledger's total {total:g}")
    if not (math.isclose(ledger.delta(), float(meta["delta"]), rel_tol=1e-9, abs_tol=1e-15)
            and ledger.delta() <= MAX_TOTAL_DELTA * (1 + TOLERANCE)):
        raise bad(f"delta {meta['delta']!r} is not the ledger's total {ledger.delta():g} "
                  f"or exceeds {MAX_TOTAL_DELTA:g}")
    return ledger


def loaded_unit(value) -> PrivacyUnit:
    """The privacy unit a file states (as data, or the sentence of version 1 files), or the file refused."""
    try:
        return PrivacyUnit.from_data(value)
    except (TypeError, ValueError):
        raise bad(f"unknown privacy unit {str(value)[:80]}") from None
