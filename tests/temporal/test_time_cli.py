"""``psdviz build ... --time COLUMN --window 1d`` and the job kind ``over-time``: the release file, the owner's line
on stderr, the budget, and one-line refusals (exit 2)."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import psdviz as pv
from psdviz.cli import main
from psdviz.temporal import TimeRelease

ARGS = ["--lon", "x", "--lat", "y", "--domain", "0", "0", "1", "1", "--time", "t", "--span", "2021-01-01",
        "2021-02-01"]


@pytest.fixture(scope="module")
def events(tmp_path_factory):
    rng = np.random.default_rng(3)
    n = 5000
    frame = pd.DataFrame({"x": rng.random(n), "y": rng.random(n),
                          "t": pd.Timestamp("2021-01-01") + pd.to_timedelta(rng.random(n) * 35, unit="D"),
                          "u": rng.integers(0, 300, n)})
    path = tmp_path_factory.mktemp("data") / "events.parquet"
    frame.to_parquet(path)
    return path


def test_build_writes_a_release_over_time_and_info_reads_it(events, tmp_path, capsys):
    out = tmp_path / "daily.json"
    assert main(["build", str(events), *ARGS, "--window", "1d", "--grid-level", "2", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "outside the span" in err and "exact counts for you only" in err
    rel = pv.load_release(out)
    assert isinstance(rel, TimeRelease) and rel.windows == 31 and rel.partition.size == 16
    assert rel.privacy_unit == "one point" and rel.mechanism == "flat"
    assert main(["info", str(out)]) == 0
    assert "time_cells: 16, windows: 31" in capsys.readouterr().out
    assert main(["info", str(out), "--format", "markdown"]) == 0
    assert "16 cells in each of 31 windows of 1 day" in capsys.readouterr().out


def test_user_level_and_w_event_from_the_command_line(events, tmp_path):
    out = tmp_path / "u.json"
    assert main(["build", str(events), *ARGS, "--user", "u", "--max-points-per-window", "2", "--max-points-per-user",
                 "8", "--grid-level", "1", "--out", str(out)]) == 0
    rel = pv.load_release(out)
    assert rel.mechanism == "tree" and rel.privacy_unit == "one user, at most 8 points"
    assert main(["build", str(events), *ARGS, "--user", "u", "--max-points-per-window", "2", "--w", "7",
                 "--mechanism", "bd", "--grid-level", "1", "--out", str(out)]) == 0
    assert pv.load_release(out).privacy_unit == "one user in any 7 consecutive windows (w-event)"


@pytest.mark.parametrize(("extra", "words"), [
    (["--out", "r.parquet"], "--out is the release over time (.json)"),
    (["--window", "1y", "--out", "r.json"], "window must be"),
    (["--mechanism", "bd", "--out", "r.json"], "does not apply"),
    (["--unit", "user", "--out", "r.json"], "needs user"),
    (["--param", "height=3", "--out", "r.json"], "--param does not apply"),
])
def test_bad_options_are_one_line_and_exit_2(events, tmp_path, capsys, extra, words):
    extra = [str(tmp_path / e) if e.startswith("r.") else e for e in extra]
    assert main(["build", str(events), *ARGS, *extra]) == 2
    err = capsys.readouterr().err.strip()
    assert words in err and "\n" not in err


def test_time_options_without_time_and_span_missing(events, tmp_path, capsys):
    assert main(["build", str(events), "--lon", "x", "--lat", "y", "--domain", "0", "0", "1", "1", "--window", "1w",
                 "--out", str(tmp_path / "r.parquet")]) == 2
    assert "give --time COLUMN too" in capsys.readouterr().err
    args = [a for a in ARGS if a not in ("--span", "2021-01-01", "2021-02-01")]
    assert main(["build", str(events), *args, "--out", str(tmp_path / "r.json")]) == 2
    assert "--span START END" in capsys.readouterr().err


def test_a_job_writes_over_time_releases_from_one_read_and_the_budget_keeps_its_unit(events, tmp_path):
    pytest.importorskip("yaml")
    job = tmp_path / "job.yaml"
    (tmp_path / "events.parquet").write_bytes(events.read_bytes())
    job.write_text(
        "data: {path: events.parquet, lon: x, lat: y, domain: [0, 0, 1, 1]}\n"
        "budget: b.json\n"
        "releases:\n"
        "  - {kind: over-time, time: t, window: 1w, span: [2021-01-01, 2021-02-01], epsilon: 0.5, out: w.json,"
        " grid_level: 2}\n"
        "  - {kind: over-time, time: t, span: [2021-01-01, 2021-02-01], epsilon: 0.3, mechanism: tree, out: d.json}\n")
    pv.Budget(tmp_path / "b.json", total_epsilon=1.0)
    assert main(["run", str(job)]) == 0
    assert pv.load_release(tmp_path / "w.json").windows == 5
    assert [e.kind for e in pv.Budget(tmp_path / "b.json").entries] == ["over-time", "over-time"]
    user_job = tmp_path / "user.yaml"
    user_job.write_text(job.read_text().replace("epsilon: 0.3, mechanism: tree,",
                                                "epsilon: 0.1, unit: user, user: u, max_points_per_window: 1, "
                                                "max_points_per_user: 4,"))
    assert main(["run", str(user_job)]) == 2        # a point-level budget cannot take a user-level release
    doc = json.loads((tmp_path / "b.json").read_text())
    assert len(doc["releases"]) == 2
    bad = tmp_path / "bad.yaml"
    bad.write_text(job.read_text().replace("window: 1w", "window: 1y"))
    assert main(["run", str(bad), "--dry-run"]) == 2


def test_a_chosen_bound_from_the_command_line_and_a_job_with_a_budget_per_its_unit(events, tmp_path, capsys):
    """``--max-points-per-user auto`` buys L (its note and ledger line printed); the budget is checked, before any
    data is read, per the public unit m times the windows; a map refuses ``auto`` in one line."""
    out = tmp_path / "auto.json"
    pv.Budget(tmp_path / "b.json", total_epsilon=1.3, unit="one user, at most 62 points")
    assert main(["build", str(events), *ARGS, "--user", "u", "--max-points-per-window", "2", "--max-points-per-user",
                 "auto", "--grid-level", "1", "--budget", str(tmp_path / "b.json"), "--out", str(out)]) == 0
    said = " ".join(capsys.readouterr().out.split())
    assert "chosen privately" in said
    rel = pv.load_release(out)
    assert rel.ledger.spends[0].what.startswith("contribution bound L")
    assert rel.privacy_unit == "one user, at most 62 points" and rel.params["max_points_per_user_chosen"]
    assert main(["build", str(events), "--lon", "x", "--lat", "y", "--domain", "0", "0", "1", "1", "--user", "u",
                 "--max-points-per-user", "auto", "--out", str(tmp_path / "m.parquet")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "for a release over time" in err[0]
    pytest.importorskip("yaml")
    (tmp_path / "events.parquet").write_bytes(events.read_bytes())
    job = tmp_path / "job.yaml"
    job.write_text("data: {path: events.parquet, lon: x, lat: y, domain: [0, 0, 1, 1]}\nbudget: b.json\nreleases:\n"
                   "  - {kind: over-time, time: t, span: [2021-01-01, 2021-02-01], epsilon: 0.3, unit: user, user: u,"
                   " max_points_per_window: 2, max_points_per_user: auto, grid_level: 1, out: j.json}\n")
    assert main(["run", str(job)]) == 0
    assert pv.load_release(tmp_path / "j.json").params["max_points_per_user_chosen"]
    assert pv.Budget(tmp_path / "b.json").spent == pytest.approx(1.3)
