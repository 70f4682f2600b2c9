"""One table of region counts for people: the columns every region CSV has, in one order, rounded.

A region release's counts (:meth:`RegionRelease.counts`) and a spatial release's answers for a layer
(:meth:`psdviz.Release.answer_regions`) are written through it, by the command line (``psdviz regions``,
with points or with ``--release``) and the app's downloads, so the two files read alike: id, name, level,
parent, estimate, low_95, high_95, standard_error, then the columns that apply to one route only
(uniformity_error and domain_share for a spatial release's answers; noisy and source for a region release),
then any other column (a seeded run's label). Numbers are rounded for people: counts and their intervals
and errors to one decimal (a region release's counts are whole numbers already), shares to 0.001. The
engine's own tables keep full precision for computing.
"""
from __future__ import annotations

import pandas as pd

from ..core.errors import InputDataError

COMMON = ("id", "name", "level", "parent", "estimate", "low_95", "high_95", "standard_error")
EXTRA = ("uniformity_error", "domain_share", "noisy", "source")
ONE_DECIMAL = ("estimate", "low_95", "high_95", "standard_error", "uniformity_error", "noisy")
SHARES = ("domain_share",)


def people_table(counts: pd.DataFrame) -> pd.DataFrame:
    """``counts`` (a region release's ``counts()`` or a spatial release's ``answer_regions``) in the one
    column order, rounded for people; a new frame (the given one is not altered)."""
    missing = [c for c in COMMON if c not in counts.columns]
    if missing:
        raise InputDataError(f"a region counts table needs the columns {list(COMMON)} (missing: {missing})")
    order = [*COMMON, *(c for c in EXTRA if c in counts.columns),
             *(c for c in counts.columns if c not in COMMON and c not in EXTRA)]
    out = counts[order].copy()
    for c in ONE_DECIMAL:
        if c in out.columns:
            out[c] = out[c].astype(float).round(1)
    for c in SHARES:
        if c in out.columns:
            out[c] = out[c].astype(float).round(3)
    if "noisy" in out.columns:          # a region release's counts are whole numbers: written as such
        for c in ("estimate", "noisy"):
            whole = out[c].dropna()
            if len(whole) and (whole == whole.round()).all():
                out[c] = out[c].astype("Int64")
    return out
