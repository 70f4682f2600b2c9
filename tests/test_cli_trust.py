"""The publisher's command line never writes a nonsense release without a word: it checks the domain
and the CRS, tells the data owner on stderr what happened to the rows and the likely cause when most
lie outside the domain (written all the same: whether a file is written never turns on exact counts),
refuses an epsilon above 10 and a seeded release file unless asked, and describes a release file in
words (``psdviz info``) or as JSON (``--json``)."""
from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest

import psdviz as pv
from psdviz.cli import main
from psdviz.present import OUTSIDE_WARNING_SHARE


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


def _one_line(err: str, start: str = "psdviz build:") -> str:
    lines = [ln for ln in err.strip().splitlines() if ln.startswith(start)]
    assert len(lines) == 1, err
    return lines[0]


@pytest.mark.parametrize(("domain", "cause"), [
    (["25", "-125", "50", "-65"], "--lon and --lat the other way round would keep 3,990"),     # swapped columns
    (["-125", "-65", "25", "-60"], None)])                                   # xmin xmax ymin ymax: no slip explains it
def test_a_domain_that_misses_the_data_is_written_with_its_likely_cause(us, capsys, domain, cause):
    code, out = _build(us, "--domain", *domain)
    err = capsys.readouterr().err
    assert code == 0 and out.exists()             # written: the decision never reads exact counts
    line = _one_line(err, "psdviz build: warning: 3,990 of the 4,000 rows")
    assert ("likely cause: " + cause in line) if cause else ("check the bounds" in line and "likely" not in line)
    assert "read 4,000 rows: 3,990 outside the domain" in err and "10 with missing" in err
    assert "3,990" not in json.dumps(pv.load_release(out).report())   # exact counts stay on stderr


def test_writing_does_not_turn_on_one_row(tmp_path, capsys):
    """D and D' differ in one row inside a domain that holds under 1 % of the rows read (where a refusal
    once flipped): both are written, so the output's existence reveals nothing; only the owner's stderr
    differs. The outside warning starts above a tenth of the rows outside."""
    rng = np.random.default_rng(1)
    far = pd.DataFrame({"lon": rng.uniform(50, 60, 990), "lat": rng.uniform(50, 60, 990)})
    near = pd.DataFrame({"lon": rng.uniform(0, 1, 9), "lat": rng.uniform(0, 1, 9)})
    written = []
    for extra in (0, 1):
        df = pd.concat([far, near, pd.DataFrame({"lon": [0.5] * extra, "lat": [0.5] * extra})])
        path = tmp_path / f"d{extra}.csv"
        df.to_csv(path, index=False)
        out = tmp_path / f"r{extra}.parquet"
        code = main(["build", str(path), "--lon", "lon", "--lat", "lat", "--domain", "0", "0", "1", "1",
                     "--method", "ug", "--out", str(out)])
        written.append(code == 0 and out.exists())
        assert "rows (99%) lie outside" in capsys.readouterr().err
    assert written == [True, True] and OUTSIDE_WARNING_SHARE == 0.10


def test_epsilon_above_ten_is_refused_unless_asked(us, capsys):
    domain = ["-125", "25", "-65", "50"]
    for eps in ("100", "1e6", "10.5"):
        code, out = _build(us, "--domain", *domain, "--epsilon", eps)
        assert code == 2 and not out.exists()
        assert "--allow-large-epsilon" in _one_line(capsys.readouterr().err)
    code, out = _build(us, "--domain", *domain, "--epsilon", "100", "--allow-large-epsilon")
    err = capsys.readouterr().err
    assert code == 0 and out.exists() and "epsilon 100 is above 10" in _one_line(err, "psdviz build: warning")
    code, out = _build(us, "--domain", *domain, "--epsilon", "10")
    assert code == 0 and out.exists()


def test_a_swamped_release_is_written_with_the_epsilon_that_would_help(us, capsys):
    # seeded: with fresh noise at this epsilon the total lies outside two noise sds in about 5 % of runs
    code, out = _build(us, "--domain", "-125", "25", "-65", "50", "--epsilon", "1e-10", "--seed", "2",
                       "--allow-seeded")
    err = capsys.readouterr().err
    line = _one_line(err, "psdviz build: warning: the noise swamps")
    assert code == 0 and out.exists() and "epsilon of at least about" in line and "now 1e-10" in line


def test_bounds_in_the_wrong_order_are_refused_in_words(us, capsys):
    code, out = _build(us, "--domain", "10", "0", "-5", "1")
    line = _one_line(capsys.readouterr().err)
    assert code == 2 and not out.exists()
    assert "xmin 10 is above xmax -5; bounds are xmin ymin xmax ymax" in line


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
    code, out = _build(us, "--domain", "-125", "25", "-65", "50", "--seed", "2", "--allow-seeded")
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


def test_the_engine_warns_above_epsilon_ten_and_on_a_swamped_release():
    pts = np.random.default_rng(3).random((2000, 2))
    with pytest.warns(pv.LargeEpsilonWarning, match="epsilon 20 is above 10"):
        pv.build(pts, pv.Domain(0, 0, 1, 1), "ug", 20.0, seed=1)
    with pytest.warns(pv.NoiseDominatesWarning, match=r"epsilon of (at least )?about [0-9.e-]+ \(now 1e-06\)"):
        pv.build(pts, pv.Domain(0, 0, 1, 1), "quadtree", 1e-6, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")                 # a well-resolved release says nothing
        pv.build(pts, pv.Domain(0, 0, 1, 1), "quadtree", 1.0, seed=1)


def test_swamp_warning_reads_released_values_only(tmp_path):
    """The warning is a function of the release file alone (which holds no exact count): the release as
    built and as loaded from its file give the same decision and the same words."""
    from psdviz.api import warn_if_swamped
    pts = np.random.default_rng(4).random((30, 2))
    rel = pv.build(pts, pv.Domain(0, 0, 1, 1), "quadtree", 0.01, seed=2)
    back = pv.load_release(rel.save(tmp_path / "r.parquet", allow_seeded=True))
    with pytest.warns(pv.NoiseDominatesWarning) as w1:
        warn_if_swamped(rel)
    with pytest.warns(pv.NoiseDominatesWarning) as w2:
        warn_if_swamped(back)
    assert str(w1[0].message) == str(w2[0].message)


def test_info_prints_the_markdown_statement(us, capsys):
    code, out = _build(us, "--domain", "-125", "25", "-65", "50")
    capsys.readouterr()
    assert main(["info", str(out), "--format", "markdown"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("# Privacy statement: ug") and "## Expected error" in text and "## Ledger" in text


def test_a_user_column_that_is_a_coordinate_is_refused_in_words(us, capsys):
    code, out = _build(us, "--domain", "-125", "25", "-65", "50", "--user", "lon", "--max-points-per-user", "2")
    line = _one_line(capsys.readouterr().err)
    assert code == 2 and not out.exists()
    assert "--user 'lon' is also a coordinate column" in line


def test_a_parameter_given_as_none_takes_its_default(us, capsys):
    code, out = _build(us, "--domain", "-125", "25", "-65", "50", "--method", "privtree", "--param", "max_depth=None")
    assert code == 0 and out.exists(), capsys.readouterr().err
    assert pv.load_release(out).params["max_depth"] == pv.build(
        np.zeros((1, 2)) + [-100, 30], pv.Domain(-125, 25, -65, 50), "privtree", 1.0).params["max_depth"]
