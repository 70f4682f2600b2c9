"""One rule for bad rows, the same in the app, the command line and Python (docs/decisions/newcomer-steps.md).

- A coordinate that is text ("abc", "n/a", "NA") is an error in the file: the input is refused in one line
  naming how many rows and (where the rows are in memory) which, before anything is built.
- An empty coordinate (a missing value) or a non-finite one is a missing point: the row is dropped and
  counted (``nonfinite="drop"``, the app's and the command line's default), and the data owner is told how
  many (the app above the map, the command line on stderr).
- A point outside the public domain is dropped and counted; above :data:`OUTSIDE_WARNING_SHARE` of the rows
  read the owner is warned, naming the likely cause: longitude and latitude the other way round when that
  order would keep more rows (:func:`kept_if_swapped`), else the bounds and the columns. The release is built
  either way: whether it is built never turns on exact counts.

The counts are exact and for the data owner only: never part of a release or its report.
"""
from __future__ import annotations

import numpy as np

from .domain import Domain

OUTSIDE_WARNING_SHARE = 0.10   # above this share of rows outside the domain, the owner is warned


def kept_if_swapped(xy: np.ndarray, domain: Domain) -> int:
    """Rows of ``xy`` (n, 2) that would lie inside ``domain`` with x and y exchanged (one vectorised pass)."""
    sw = np.asarray(xy, float)[:, ::-1]
    return int(domain.contains(sw[np.isfinite(sw).all(axis=1)]).sum())


def outside_warning(read: int, outside: int, domain: Domain, swapped: int | None, *, where: str = "the domain",
                    swap: str = "longitude and latitude the other way round",
                    check: str = "check the bounds and the columns") -> str | None:
    """The owner's warning when more than :data:`OUTSIDE_WARNING_SHARE` of the ``read`` rows lie outside
    ``domain`` (None otherwise), naming the swap as the likely cause when it would keep more than the
    ``read - outside`` rows kept now (``swapped``: :func:`kept_if_swapped`, None where it cannot be counted)."""
    if read == 0 or outside <= OUTSIDE_WARNING_SHARE * read:
        return None
    line = (f"{outside:,} of the {read:,} rows ({outside / read:.0%}) lie outside {where} x "
            f"[{domain.xmin:g}, {domain.xmax:g}], y [{domain.ymin:g}, {domain.ymax:g}] and were dropped")
    if swapped is not None and swapped > read - outside:
        return line + f"; likely cause: {swap} would keep {swapped:,}"
    return line + f"; {check}"


def missing_words(read: int, missing: int) -> str | None:
    """The owner's line on rows dropped for a missing (empty or non-finite) coordinate, None when there is none."""
    if missing <= 0:
        return None
    return (f"{missing:,} of the {read:,} rows have a missing coordinate (an empty cell) and were dropped; the "
            "other rows were used")
