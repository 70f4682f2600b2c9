"""Uploaded files are opened from a temporary copy whose path never reaches the user."""
from __future__ import annotations

import pytest

import psdviz as pv
from psdviz.ui.uploads import open_upload


def test_an_error_names_the_upload_not_the_temporary_copy():
    with pytest.raises(ValueError) as err:
        open_upload(b"not a parquet file at all", "my release.parquet", pv.load_release, "release")
    text = str(err.value)
    assert "my release.parquet" in text and "/tmp" not in text and "release.parquet:" not in text.replace(
        "my release.parquet", "")


def test_the_copy_is_named_by_the_suffix_only():
    seen = []
    open_upload(b"x", "../../etc/evil.GeoJSON", lambda p: seen.append(p) or 1, "layer")
    assert seen[0].name == "layer.geojson" and ".." not in str(seen[0])
