"""Which columns of a region layer are its ids and its names, guessed as a person reading the table would.

One rule for the app, the command line and Python (``Regions.from_file(path)`` without ``id=``):

- an id must be present in every row; a column whose values are unique comes first (a repeated id merges
  regions), then a column named like an id (``id``, ``code``, ``iso``, ``geoid``, ``fips``, ...), then text
  before numbers, then the file's own order;
- never a measure: a column named like one (``pop_est``, ``gdp``, ``area``, ``shape_leng``, ``aland``, ...),
  fractional numbers, or numbers under a name that does not say they are ids;
- the name is the first text column named like a name (``name``, ``district``, ``county``, ``country``, ...),
  unique ones first; else the id.

The guess reads only the layer's attribute table (public input, as the layer is). It is a default the
caller can override (``id=``, ``name=``; the CLI's ``--id``, ``--name``; the page's select boxes), and
the app and the CLI say which columns were taken (docs/decisions/newcomer-steps.md).
"""
from __future__ import annotations

import re
from typing import NamedTuple

import pandas as pd

from ..core.errors import InputDataError

ID_WORDS = frozenset({"id", "ids", "code", "codes", "iso", "geoid", "fips", "gid", "fid", "objectid", "key", "uid",
                      "ags", "nuts", "ons", "insee", "ine", "zip", "zipcode", "postcode", "cd", "no", "num"})
ID_ENDINGS = ("id", "code", "fips", "fp", "iso")
NAME_WORDS = frozenset({"name", "names", "nom", "nombre", "navn", "label", "title", "district", "county", "country",
                        "state", "province", "region", "city", "town", "place", "municipality", "borough", "ward",
                        "neighbourhood", "neighborhood", "admin", "commune", "gemeinde", "suburb", "locality"})
MEASURE_WORDS = frozenset({"pop", "population", "est", "estimate", "gdp", "area", "areas", "len", "leng", "length",
                           "perimeter", "perim", "count", "counts", "total", "sum", "mean", "median", "avg",
                           "density", "income", "value", "sqkm", "km2", "sqmi", "acres", "hectares", "ha", "aland",
                           "awater", "households", "rank", "scalerank", "labelrank", "min", "max", "zoom", "pct",
                           "percent", "share", "ratio", "rate", "year", "lat", "lon", "lng", "x", "y"})


class ColumnGuess(NamedTuple):
    """The columns taken as the layer's region ids and names, and why, in words."""

    id: str
    name: str | None
    why: str


def words_of(column: str) -> list[str]:
    """A column's name in lower-case words: split at non-letters, digits and camel case (``ISO_A3`` ->
    ["iso", "a3"], ``NAMELSAD`` -> ["namelsad"], ``districtName`` -> ["district", "name"])."""
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", str(column))
    return [w for w in re.split(r"[^a-z0-9]+", spaced.lower()) if w]


def looks_like_id(column: str) -> bool:
    ws = words_of(column)
    return any(w in ID_WORDS or (len(w) > 2 and w.endswith(ID_ENDINGS)) for w in ws)


def looks_like_name(column: str) -> bool:
    ws = words_of(column)
    return any(w in NAME_WORDS or w.startswith("name") or w.endswith("name") for w in ws)


def looks_like_measure(column: str) -> bool:
    ws = words_of(column)
    return any(w in MEASURE_WORDS or w.startswith(("pop", "gdp", "shape")) for w in ws)


def _is_text(values: pd.Series) -> bool:
    return not (pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values))


def _id_candidate(column: str, values: pd.Series) -> bool:
    """Present in every row and not a measure: no measure's name, no fractional numbers, and numbers only
    under a name that says they are ids."""
    if values.isna().any() or (values.astype(str).str.strip() == "").any() or looks_like_measure(column):
        return False
    if pd.api.types.is_bool_dtype(values):
        return False
    if pd.api.types.is_numeric_dtype(values):
        whole = bool(((values % 1) == 0).all()) if pd.api.types.is_float_dtype(values) else True
        return whole and looks_like_id(column)
    return True


def guess_columns(table: pd.DataFrame, id: str | None = None) -> ColumnGuess:
    """The id and name columns of a region layer's attribute table (a DataFrame or GeoDataFrame; its
    geometry column is never a candidate); with ``id`` given, only the name is guessed.

    Raises
    ------
    ValueError
        When no column can be an id (every column is missing somewhere, or a measure): the message asks
        for ``id=`` (``--id``).
    """
    geometry = getattr(getattr(table, "geometry", None), "name", None)
    cols = [c for c in table.columns if c != geometry and not _is_geometry(table[c])]
    ids = [c for c in cols if str(c) == id] if id is not None else [c for c in cols if _id_candidate(str(c), table[c])]
    if not ids:
        raise InputDataError(f"no column of the layer can be its region ids (present in every row, not a measure "
                             f"such as a population or an area); its columns are {[str(c) for c in cols]}: give the id "
                             "column (id=, --id)")
    unique = {c: bool(table[c].astype(str).is_unique) for c in ids}
    rank = {c: i for i, c in enumerate(cols)}
    best = min(ids, key=lambda c: (not unique[c], not looks_like_id(str(c)), not _is_text(table[c]), rank[c]))
    names = [c for c in cols if looks_like_name(str(c)) and _is_text(table[c]) and not looks_like_measure(str(c))
             and table[c].notna().all()]
    name = min(names, key=lambda c: (not table[c].astype(str).is_unique, rank[c])) if names else None
    why = ("ids from column " + repr(str(best))
           + ("" if id is None else " (given)") + (" (unique)" if unique[best] else
                                                    " (not unique: regions sharing an id are merged)")
           + (f", names from {str(name)!r}" if name is not None and name != best else
              ", names the ids themselves" if name is None else ", names from the same column"))
    return ColumnGuess(str(best), None if name is None else str(name), why)


def _is_geometry(values: pd.Series) -> bool:
    return str(getattr(values, "dtype", "")) == "geometry"
