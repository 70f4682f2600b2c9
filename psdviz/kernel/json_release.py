"""The JSON release files of count-of-counts and sparse summaries: shared writing, reading and checks.

A file is one JSON object: ``format`` and ``format_version``, the publishable ``report`` (epsilon,
ledger, randomness mode, privacy unit, notes; never the owner's audit nor a seed) and the released
arrays. Reading refuses, with a ValueError naming the problem, a file that is not such an object, of
another format or version, larger than :data:`MAX_BYTES`, or whose ledger does not add up
(:func:`psdviz.kernel.file_checks.check_ledger`); each product line then checks its own arrays.
"""
from __future__ import annotations

import json
import math
import os
from pathlib import Path

import numpy as np

from ..core.errors import ReleaseFileError
from ..core.ledger import Ledger
from ..core.rng import Randomness
from .file_checks import bad, check_ledger, loaded_randomness

MAX_BYTES = 2 * 1024 ** 3
FORMAT_VERSION = 2      # 2: a region release's privacy unit as data; version 1 files still load
READS = (1, 2)


def write(path, fmt: str, doc: dict) -> Path:
    """Write ``doc`` under ``format`` ``fmt`` as JSON (numpy values as plain numbers)."""
    path = Path(path)
    body = {"format": fmt, "format_version": FORMAT_VERSION, **doc}
    path.write_text(json.dumps(body, default=lambda o: o.item() if hasattr(o, "item") else str(o)))
    return path


def read(path, fmt: str) -> dict:
    """The JSON object of a ``fmt`` release file, its size and envelope checked."""
    path = Path(path)
    size = os.path.getsize(path)
    if size > MAX_BYTES:
        raise ReleaseFileError(f"{path} is {size:,} bytes, larger than a psdviz release file may be ({MAX_BYTES:,})")
    try:
        doc = json.loads(path.read_bytes())
    except ValueError:
        raise bad(f"{path} is not a JSON release file") from None
    except RecursionError:           # JSON nested thousands deep: no release file is
        raise bad(f"{path}: its JSON is nested too deeply for a release file") from None
    version = doc.get("format_version") if isinstance(doc, dict) else None
    if not isinstance(doc, dict) or doc.get("format") != fmt or isinstance(version, bool) or version not in READS:
        got = (doc.get("format"), version) if isinstance(doc, dict) else (None, None)
        raise ReleaseFileError(f"{path} is format {got[0]!r} version {got[1]!r}; expected {fmt!r} version "
                         f"{' or '.join(map(str, READS))}")
    if not isinstance(doc.get("report"), dict):
        raise bad(f"{path} has no report")
    return doc


def finite_number(value) -> bool:
    """A JSON number (not a bool) that is finite as a float (a huge integer is not)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        return math.isfinite(float(value))
    except OverflowError:
        return False


def ledger_and_randomness(report: dict) -> tuple[Ledger, Randomness]:
    """The report's ledger (checked: entries, totals, budget) and its randomness label."""
    meta = {"epsilon": report.get("epsilon"), "epsilon_spent": report.get("epsilon_spent"),
            "delta": report.get("delta", 0.0), "ledger": report.get("ledger")}
    if not isinstance(meta["ledger"], list) or not all(isinstance(meta[k], (int, float)) for k in
                                                       ("epsilon", "epsilon_spent", "delta")):
        raise bad("the report's epsilon, epsilon_spent, delta and ledger must be numbers and a list")
    return check_ledger(meta), loaded_randomness(report.get("randomness"))


def int_array(values, name: str, low: int | None = None, high: int | None = None) -> np.ndarray:
    """A list of whole numbers as int64, within [low, high); a ValueError naming ``name`` otherwise."""
    if not isinstance(values, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        raise bad(f"{name} must be a list of whole numbers")
    out = np.asarray(values, dtype=np.int64)
    if (low is not None and (out < low).any()) or (high is not None and (out >= high).any()):
        raise bad(f"{name} must lie in [{low}, {high})")
    return out


def float_array(values, name: str) -> np.ndarray:
    if not isinstance(values, list) or not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                               for v in values):
        raise bad(f"{name} must be a list of numbers")
    out = np.asarray(values, dtype=float)
    if not np.isfinite(out).all():
        raise bad(f"{name} must be finite")
    return out


def text_list(values, name: str) -> list[str]:
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise bad(f"{name} must be a list of text")
    return list(values)
