"""No string the user controls reaches DuckDB's SQL text: settings go through the connection's
configuration, paths and column names through the relational API. A literal file name with glob
characters in it is read as it is."""
from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest

import psdviz as pv
from psdviz.cli import main

DOM = pv.Domain(0, 0, 1, 1)
ATTACK = "1GB'; COPY (SELECT 42) TO 'pwned.csv'; --"


@pytest.fixture()
def folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(0)
    pd.DataFrame({"lon": rng.random(200), "lat": rng.random(200)}).to_parquet("pts.parquet")
    return tmp_path


def test_memory_limit_cannot_run_sql_through_the_api(folder):
    with pytest.raises(ValueError, match="memory_limit must be a size"):
        pv.build("pts.parquet", DOM, "ug", 1.0, seed=1, lon="lon", lat="lat", memory_limit=ATTACK)
    assert not os.path.exists("pwned.csv")


def test_memory_limit_cannot_run_sql_through_the_cli(folder, capsys):
    code = main(["build", "pts.parquet", "--lon", "lon", "--lat", "lat", "--domain", "0", "0", "1", "1",
                 "--method", "ug", "--memory-limit", ATTACK, "--out", "r.parquet"])
    err = capsys.readouterr().err
    assert code == 2 and "memory_limit must be a size" in err and len(err.strip().splitlines()) == 1
    assert not os.path.exists("pwned.csv") and not os.path.exists("r.parquet")


@pytest.mark.parametrize("bad", ["lots", "", "12", "1 GB; --", 3])
def test_a_bad_memory_limit_is_a_clear_error(folder, bad):
    with pytest.raises(ValueError, match="memory_limit must be a size"):
        pv.build("pts.parquet", DOM, "ug", 1.0, seed=1, lon="lon", lat="lat", memory_limit=bad)


def test_a_good_memory_limit_is_applied(folder):
    from psdviz.sources.files import DuckDBSource
    src = DuckDBSource("pts.parquet", DOM, lon="lon", lat="lat", memory_limit="512MB", threads=1)
    try:
        limit, threads = src.con.execute(
            "SELECT current_setting('memory_limit'), current_setting('threads')").fetchone()
    finally:
        src.close()
    assert limit.startswith("244") and int(threads) == 1     # DuckDB's half of 512 MB = 244.1 MiB


def test_column_names_are_values_not_sql(folder):
    evil = "lon\" FROM pts; COPY (SELECT 1) TO 'pwned.csv'; --"
    with pytest.raises(ValueError, match=r"is not in pts.parquet"):
        pv.build("pts.parquet", DOM, "ug", 1.0, seed=1, lon=evil, lat="lat")
    assert not os.path.exists("pwned.csv")
    df = pd.read_parquet("pts.parquet").rename(columns={"lon": 'x "quoted" col', "lat": "y'col"})
    df.to_csv("odd.csv", index=False)
    rel = pv.build("odd.csv", DOM, "ug", 1.0, seed=1, lon='x "quoted" col', lat="y'col")
    same = pv.build(df.to_numpy(), DOM, "ug", 1.0, seed=1)
    np.testing.assert_array_equal(rel.tree.noisy, same.tree.noisy)


def test_a_file_named_with_glob_characters_is_read(folder):
    os.rename("pts.parquet", "br[a]cket.parquet")
    rel = pv.build("br[a]cket.parquet", DOM, "ug", 1.0, seed=1, lon="lon", lat="lat")
    same = pv.build(pd.read_parquet("br[a]cket.parquet").to_numpy(), DOM, "ug", 1.0, seed=1)
    np.testing.assert_array_equal(rel.tree.noisy, same.tree.noisy)
    rel = pv.build("br*.parquet", DOM, "ug", 1.0, seed=1, lon="lon", lat="lat")   # a glob still globs
    np.testing.assert_array_equal(rel.tree.noisy, same.tree.noisy)


def test_threads_must_be_a_whole_number(folder):
    from psdviz.sources.files import DuckDBSource
    with pytest.raises(ValueError, match="threads must be a whole number"):
        DuckDBSource("pts.parquet", DOM, lon="lon", lat="lat", threads="4; DROP TABLE x")
