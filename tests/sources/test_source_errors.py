"""Bad file and frame inputs give a ValueError that names the column, the file or the limit."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import psdviz as pv

DOM = pv.Domain(0.0, 0.0, 1.0, 1.0)


@pytest.fixture()
def files(tmp_path):
    rng = np.random.default_rng(2)
    df = pd.DataFrame({"x": rng.random(50), "y": rng.random(50)})
    df.to_parquet(tmp_path / "ok.parquet")
    bad = df.astype(object)
    bad.loc[4, "x"] = "north"
    bad.to_csv(tmp_path / "text.csv", index=False)
    nan = df.copy()
    nan.loc[2, "y"] = np.nan
    nan.to_parquet(tmp_path / "nan.parquet")
    (tmp_path / "notes.txt.bak").write_text("x")
    return tmp_path


def test_column_names_are_required(files):
    with pytest.raises(ValueError, match=r"lon='...' and lat='...'"):
        pv.build(str(files / "ok.parquet"), DOM, "ug", 1.0)


def test_missing_column_is_named(files):
    with pytest.raises(ValueError, match=r"column 'lon' \(given as lon\).*\['x', 'y'\]"):
        pv.build(str(files / "ok.parquet"), DOM, "ug", 1.0, lon="lon", lat="y")


def test_text_coordinates_are_refused(files):
    with pytest.raises(ValueError, match=r"1 row of 'x' / 'y' holds text, not numbers \(the first: '[^']*', '[^']*'\)"):
        pv.build(str(files / "text.csv"), DOM, "ug", 1.0, lon="x", lat="y")


def test_nonfinite_rows_follow_the_rule(files):
    with pytest.raises(ValueError, match="1 of 50 rows contain NaN"):
        pv.build(str(files / "nan.parquet"), DOM, "ug", 1.0, lon="x", lat="y")
    rel = pv.build(str(files / "nan.parquet"), DOM, "ug", 1.0, lon="x", lat="y", nonfinite="drop")
    assert rel.input_report["rows_nonfinite_dropped"] == 1


def test_no_match_and_unknown_kinds(files):
    with pytest.raises(ValueError, match="no file matches"):
        pv.build(str(files / "none-*.parquet"), DOM, "ug", 1.0, lon="x", lat="y")
    with pytest.raises(ValueError, match="file not found"):
        pv.build(str(files / "missing.parquet"), DOM, "ug", 1.0, lon="x", lat="y")
    with pytest.raises(ValueError, match="not a Parquet"):
        pv.build(str(files / "notes.txt.bak"), DOM, "ug", 1.0, lon="x", lat="y")
    with pytest.raises(ValueError, match="mix of Parquet and CSV"):
        pv.build([str(files / "ok.parquet"), str(files / "text.csv")], DOM, "ug", 1.0, lon="x", lat="y")


def test_user_level_needs_points_in_memory(files):
    with pytest.raises(ValueError, match="needs the points in memory"):
        pv.build(str(files / "ok.parquet"), DOM, "ug", 1.0, lon="x", lat="y", user=np.arange(50),
                 max_points_per_user=2)


def test_dask_frame_missing_column():
    dd = pytest.importorskip("dask.dataframe")
    ddf = dd.from_pandas(pd.DataFrame({"x": [0.1], "y": [0.2]}), npartitions=1)
    with pytest.raises(ValueError, match=r"column 'lat'.*Dask"):
        pv.build(ddf, DOM, "ug", 1.0, lon="x", lat="lat")


def test_the_input_files_are_not_altered(files):
    before = (files / "ok.parquet").read_bytes()
    pv.build(str(files / "ok.parquet"), DOM, "kdtree", 1.0, lon="x", lat="y", seed=1)
    assert (files / "ok.parquet").read_bytes() == before


def test_a_quoted_field_after_duckdbs_sample_rows_is_read_as_rfc_4180_writes_it(tmp_path):
    """A CSV whose first quoted field (a name holding a comma) lies past the rows DuckDB's sniffer samples (20,480),
    as in the bundled GeoNames sample: read whole, the same release as the points in memory."""
    rng = np.random.default_rng(5)
    df = pd.DataFrame({"x": rng.random(25_000), "y": rng.random(25_000), "name": "plain"})
    df.loc[24_000, "name"] = "Archipielago de San Andres, Providencia y Santa Catalina"
    path = tmp_path / "late_quote.csv"
    df.to_csv(path, index=False)
    assert '"Archipielago' in path.read_text().splitlines()[24_001]
    from_file = pv.build(str(path), DOM, "ug", 1.0, lon="x", lat="y", seed=3)
    in_memory = pv.build(df[["x", "y"]].to_numpy(), DOM, "ug", 1.0, seed=3)
    np.testing.assert_array_equal(from_file.tree.noisy, in_memory.tree.noisy)
