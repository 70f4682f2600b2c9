"""Downloads: the release file (GeoParquet, opens in the app's "Open a release" page), the release as
GeoJSON, the JSON privacy report, the query comparisons as CSV.

Only released values go into the GeoJSON and the report; exact input counts go only into the data
owner's audit download, and true counts only into the comparison CSV, each labelled so. Non-private references cannot be
exported as a release.
"""
from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pandas as pd

from psdviz import Release
from psdviz.present import cells_geojson

COMPARISON_COLUMNS = ["xmin", "ymin", "xmax", "ymax", "private_answer", "low_95", "high_95", "standard_error",
                      "uniformity_error",
                      "true_answer_NOT_PRIVATE", "abs_error", "rel_error", "method", "epsilon", "randomness"]


def geojson_bytes(release: Release, depth: int | None = None, allow_seeded: bool = False) -> bytes:
    return json.dumps(cells_geojson(release, depth, allow_seeded=allow_seeded)).encode()


def synthetic_csv(release: Release, allow_seeded: bool = False) -> bytes:
    """Synthetic points drawn from the release (``Release.sample_points``: post-processing, no epsilon,
    no real point) as CSV; a seeded run's rows say NOT PRIVATE."""
    from psdviz.present import check_seeded_export, labelled
    check_seeded_export(release.randomness, allow_seeded, "synthetic points")
    return labelled(release.sample_points(), release.randomness).to_csv(index=False).encode()


def release_bytes(release, suffix: str, allow_seeded: bool = False, **save_kw) -> bytes:
    """Any release's file (``release.save``) as bytes for a download button."""
    with tempfile.TemporaryDirectory() as tmp:
        return Path(release.save(Path(tmp) / f"release{suffix}", allow_seeded=allow_seeded, **save_kw)).read_bytes()


def geoparquet_bytes(frame) -> bytes:
    """A GeoDataFrame as GeoParquet bytes (for GIS tools)."""
    import io
    buf = io.BytesIO()
    frame.to_parquet(buf, index=False)
    return buf.getvalue()


def release_file_bytes(release: Release, allow_seeded: bool = False) -> bytes:
    """The release file (GeoParquet, docs/release-format.md); lon/lat domains are labelled EPSG:4326."""
    from .outlines import is_lon_lat
    d = release.domain
    crs = "EPSG:4326" if is_lon_lat(d.xmin, d.ymin, d.xmax, d.ymax) else None
    return release_bytes(release, ".parquet", allow_seeded, crs=crs)


def report_bytes(release: Release, app_info: dict | None = None) -> bytes:
    rep = release.report()
    if app_info:
        rep["app"] = app_info
    return json.dumps(rep, indent=2, default=str).encode()


def audit_bytes(release: Release) -> bytes:
    """The data owner's audit (exact input counts, not private), a download of its own."""
    return json.dumps(release.audit(), indent=2, default=str).encode()


def allow_seeded_export(randomness, key: str) -> bool | None:
    """For a seeded run, a warning and an explicit opt-in before any release export: True when the
    owner ticked it, None when they did not (no export offered); False for a fresh run (nothing to allow)."""
    import streamlit as st
    if not randomness.seeded:
        return False
    st.warning("This run was built from a seed: it is reproducible, so it is NOT private (whoever finds the "
               "seed recovers every exact count). Build with fresh randomness for a real release.")
    ok = st.checkbox("Export this seeded teaching run anyway (the files say NOT private)", key=key)
    return True if ok else None


def comparisons_csv(rows: list[dict]) -> bytes:
    """One row per query compared (columns :data:`COMPARISON_COLUMNS`; extra keys are ignored)."""
    return pd.DataFrame([{k: r.get(k) for k in COMPARISON_COLUMNS} for r in rows],
                        columns=COMPARISON_COLUMNS).to_csv(index=False).encode()
