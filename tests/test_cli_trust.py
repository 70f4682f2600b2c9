"""The publisher's command line never writes a nonsense release without a word: it checks the domain
and the CRS, tells the data owner on stderr what happened to the rows, refuses a release built from
(almost) no point inside the domain, refuses a seeded release file unless asked, and describes a
release file in words (``psdviz info``) or as JSON (``--json``)."""
from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest

import psdviz as pv
from psdviz.cli import MIN_INSIDE_SHARE, main


@pytest.fixture(scope="module")
def us(tmp_path_factory):
    d = tmp_path_factory.mktemp("trust")
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"lon": rng.uniform(-125, -65, 4000), "lat": rng.uniform(25, 50, 4000),
                       "uid": rng.integers(0, 400, 4000)})
    df.loc[:9, "lon"] = np.nan                           # ten rows without a coordinate
    df.to_parquet(d / "us.parquet")
    return d


def _build(d, *args):
    out = d / "r.parquet"
    if out.exists():
        out.unlink()
    return main(["build", str(d / "us.parquet"), "--lon", "lon", "--lat", "lat", "--method", "ug",
                 "--out", str(out), *args]), out


def _one_line(err: str) -> str:
    lines = [ln for ln in err.strip().splitlines() if ln.startswith("psdviz build:")]
    assert len(lines) == 1, err
    return lines[0]


@pytest.mark.parametrize("domain", [["25", "-125", "50", "-65"],       # latitude and longitude swapped
                                    ["-125", "-65", "25", "-60"]])     # xmin xmax ymin ymax: no row inside
def test_a_domain_that_misses_the_data_is_refused_and_nothing_written(us, capsys, domain):
    code, out = _build(us, "--domain", *domain)
    err = capsys.readouterr().err
    assert code == 2 and not out.exists()
    assert "none of the 4,000 rows lie inside" in _one_line(err) and "--allow-outside" in err
    assert "read 4,000 rows: 3,990 outside the domain" in err and "10 with missing" in err


def test_a_small_share_inside_is_refused_and_the_flag_writes_it(us, capsys):
    domain = ["-125", "25", "-122.5", "26.5"]          # 0.25 % of the area: about 10 rows
    code, out = _build(us, "--domain", *domain)
    err = capsys.readouterr().err
    line = _one_line(err)
    assert code == 2 and not out.exists() and line.split("inside")[0].startswith("psdviz build: only ")
    used = int(line.split("only ")[1].split(" ")[0].replace(",", ""))
    assert 0 < used < MIN_INSIDE_SHARE * 4000
    code, out = _build(us, "--domain", *domain, "--allow-outside")
    assert code == 0 and out.exists()


def test_the_owner_is_told_the_row_counts_on_stderr_never_in_the_file(us, capsys):
    code, out = _build(us, "--domain", "-125", "25", "-65", "50", "--user", "uid", "--max-points-per-user", "2")
    cap = capsys.readouterr()
    assert code == 0
    line = [ln for ln in cap.err.splitlines() if ln.startswith("read ")][0]
    rel = pv.load_release(out)
    assert "dropped by --max-points-per-user" in line and "rows_in" not in json.dumps(rel.report())
    assert "read " not in cap.out
    n_dropped = int(line.split(", ")[-1].split(" dropped")[0].replace(",", ""))
    assert n_dropped > 0 and "4,000 rows" in line


def test_seeded_release_files_need_the_explicit_flag(us, capsys):
    code, out = _build(us, "--domain", "-125", "25", "-65", "50", "--seed", "4242")
    assert code == 2 and not out.exists() and "NOT private" in _one_line(capsys.readouterr().err)
    code, out = _build(us, "--domain", "-125", "25", "-65", "50", "--seed", "4242", "--allow-seeded")
    assert code == 0 and "NOT PRIVATE" in capsys.readouterr().err
    assert main(["info", str(out)]) == 0
    assert "NOT PRIVATE" in capsys.readouterr().out
    assert main(["info", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["warning"].startswith("NOT PRIVATE")


@pytest.mark.parametrize("crs, domain, what", [
    ("EPSG:999999", ["-125", "25", "-65", "50"], "not a coordinate reference system"),
    ("EPSG:4326", ["-200", "25", "-65", "50"], "is not longitude/latitude")])
def test_the_crs_is_checked(us, capsys, crs, domain, what):
    code, out = _build(us, "--domain", *domain, "--crs", crs)
    assert code == 2 and not out.exists() and what in _one_line(capsys.readouterr().err)


def test_info_is_readable_by_default_with_notes_whole(us, capsys, monkeypatch):
    code, out = _build(us, "--domain", "-125", "25", "-65", "50", "--method", "auto")
    assert code == 0
    capsys.readouterr()
    monkeypatch.setenv("COLUMNS", "1000")             # wide: every line of the summary on one line
    assert main(["info", str(out)]) == 0
    text = capsys.readouterr().out
    rel = pv.load_release(out)
    assert not text.lstrip().startswith("{") and "epsilon 1 per one point" in text and "cells:" in text
    assert f"{int(rel.tree.is_leaf.sum()):,} published" in text and "resolution 20 bits" in text
    for spend in rel.ledger.records():
        assert spend["note"] in text                   # notes are never cut
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["info", str(out)]) == 0
    assert "…" not in capsys.readouterr().out          # narrow: wrapped, not truncated


def test_the_engine_warns_the_owner_of_an_empty_release():
    with pytest.warns(pv.EmptyReleaseWarning, match="none of the 0 input rows"):
        rel = pv.build([], pv.Domain(0, 0, 1, 1), "ug", 1.0)
    assert rel.tree.n_nodes > 1                        # still built: pure noise, as the argument needs
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pv.build(np.random.default_rng(0).random((50, 2)), pv.Domain(0, 0, 1, 1), "ug", 1.0)


def test_a_total_delta_that_is_not_small_is_refused():
    pts = np.random.default_rng(0).random((3000, 2))
    with pytest.raises(ValueError, match=r"total delta would reach 0.5"):
        pv.build(pts, pv.Domain(0, 0, 1, 1), "kdtree", 1.0, median="smooth", delta=0.5)
    rel = pv.build(pts, pv.Domain(0, 0, 1, 1), "kdtree", 1.0, median="smooth", height=10)
    assert 0 < rel.ledger.delta() <= 1e-3
