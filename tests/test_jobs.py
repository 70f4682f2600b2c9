"""Job files: the example in docs/ runs (dry run: nothing read or written; then for real, under one
budget), and a bad job file is refused with the line that is wrong."""
from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import psdviz as pv
from psdviz.cli import main
from psdviz.errors import InputDataError

EXAMPLE = Path(__file__).resolve().parent.parent / "docs" / "examples" / "job.yaml"


@pytest.fixture
def job_dir(tmp_path):
    shutil.copy(EXAMPLE, tmp_path / "job.yaml")
    rng = np.random.default_rng(0)
    places = pd.DataFrame({"state": ["CA"] * 3 + ["NY"] * 3, "county": ["c1", "c2", "c3", "n1", "n2", "n3"]})
    pd.concat([places, pd.DataFrame({"state": ["NY"], "county": ["n4"]})]).to_csv(   # n4: a place with no rows
        tmp_path / "places.csv", index=False)
    household = np.repeat(np.arange(2000), rng.integers(1, 5, 2000))[:5000]      # households of 1-4 rows
    where = places.iloc[household % 6].reset_index(drop=True)
    pd.DataFrame({"lon": rng.uniform(-120, -75, household.size), "lat": rng.uniform(28, 47, household.size),
                  "household": household, **where}).to_csv(tmp_path / "trips.csv", index=False)
    return tmp_path


def test_the_example_job_plans_then_runs_under_one_budget(job_dir, capsys):
    assert main(["budget", "init", str(job_dir / "trips.budget.json"), "--epsilon", "1"]) == 0
    (job_dir / "trips.csv").rename(job_dir / "hidden.csv")          # a dry run reads the header, never a row:
    (job_dir / "trips.csv").write_text("lon,lat,household,state,county\nnot,a,row,to,read\n")
    assert main(["run", str(job_dir / "job.yaml"), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "4 releases of trips.csv, epsilon 1 in all" in out and "no data row read, nothing written" in out
    assert "count-of-counts of household groups over state > county (hc) at epsilon 0.1 (0.0333 per level" in out
    assert "centred rectangle of 1% of the domain +-" in out          # the quadtree's, from public facts
    assert not list(job_dir.glob("*.parquet")) and pv.Budget(job_dir / "trips.budget.json").spent == 0
    (job_dir / "hidden.csv").rename(job_dir / "trips.csv")
    assert main(["run", str(job_dir / "job.yaml")]) == 0
    b = pv.Budget(job_dir / "trips.budget.json")
    assert [e.kind for e in b.entries] == ["spatial", "spatial", "regions", "count-of-counts"]
    assert b.remaining == pytest.approx(0.0, abs=1e-9)
    households = pv.load_release(job_dir / "households.json")
    assert households.epsilon == pytest.approx(0.1) and str(households.privacy_unit) == "one record"
    assert "n4" in households.hierarchy.names          # the places come from the public file, not the rows
    assert pv.load_release(job_dir / "trips-quadtree.parquet").params["height"] == 6
    assert "estimate" in pd.read_csv(job_dir / "states.csv")
    assert main(["run", str(job_dir / "job.yaml")]) == 2               # the budget cannot take it again
    assert "the job (4 releases) asks for 1" in capsys.readouterr().err


@pytest.mark.parametrize(("edit", "says"), [
    (lambda t: t.replace("epsilon: 0.2", "epsilon: two"), r"line 1[0-9]: epsilon must be a number"),
    (lambda t: t.replace("kind: regions", "kind: heatmap"), r"line 2[0-9]: each release needs kind"),
    (lambda t: t.replace("    out: trips.parquet", "    out: trips.parquet\n    colour: red"),
     r"line 1[0-9]: a spatial release has no 'colour'"),
    (lambda t: t.replace("domain: [-125, 24, -66, 50]", "domain: [10, 24, -66, 50]"), r"xmin 10 is above xmax -66"),
    (lambda t: t.replace("releases:", "releases: [\n"), "not valid YAML"),
    (lambda t: t.replace("out: households.json", "out: households.csv"),
     r"line 2[0-9]: a count-of-counts release is written as .json"),
])
def test_a_bad_job_file_names_the_line(job_dir, capsys, edit, says):
    path = job_dir / "job.yaml"
    path.write_text(edit(path.read_text()))
    assert main(["run", str(path), "--dry-run"]) == 2
    err = capsys.readouterr().err
    import re
    assert re.search(says, err) and len(err.strip().splitlines()) == 1, err


def _run(job_dir, text: str, *extra: str) -> int:
    (job_dir / "job.yaml").write_text(text)
    return main(["run", str(job_dir / "job.yaml"), *extra])


def test_a_key_given_twice_is_refused_naming_its_line(job_dir, capsys):
    """YAML keeps the last of two equal keys: 'epsilon: 0.4' then 'epsilon: 9' once built at 9."""
    text = (job_dir / "job.yaml").read_text().replace("    epsilon: 0.4\n", "    epsilon: 0.4\n    epsilon: 9\n")
    assert _run(job_dir, text, "--dry-run") == 2
    err = capsys.readouterr().err
    assert "line 15: 'epsilon' is given twice in one mapping" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("key", ["epsilon", "nonfinite", "seed"])
def test_params_that_are_build_arguments_are_a_clear_error(job_dir, capsys, key):
    text = (job_dir / "job.yaml").read_text().replace("params: {height: 6}", f"params: {{height: 6, {key}: 1}}")
    assert _run(job_dir, text, "--dry-run") == 2
    err = capsys.readouterr().err
    assert f"line 16: params.{key} is not a parameter of 'quadtree' but of the build itself" in err
    assert "unexpected" not in err and len(err.strip().splitlines()) == 1


def test_a_method_parameter_out_of_range_names_the_line(job_dir, capsys):
    text = (job_dir / "job.yaml").read_text().replace("params: {height: 6}", "params: {height: -3}")
    assert _run(job_dir, text, "--dry-run") == 2
    assert "line 16: " in capsys.readouterr().err


def test_a_deeply_nested_job_is_a_clear_error(job_dir, capsys):
    assert _run(job_dir, "releases: " + "[" * 5000 + "]" * 5000 + "\n") == 2
    err = capsys.readouterr().err
    assert "nested too deeply" in err and "unexpected" not in err


def test_a_job_of_too_many_releases_is_refused_at_once(job_dir, capsys):
    head = (job_dir / "job.yaml").read_text().split("releases:")[0]
    many = "".join(f"  - {{kind: spatial, method: ug, epsilon: 0.001, out: r{i}.parquet}}\n" for i in range(20_000))
    assert _run(job_dir, head.replace("budget: trips.budget.json", "") + "releases:\n" + many, "--dry-run") == 2
    assert "20,000 releases; a job holds at most 1,000" in capsys.readouterr().err


@pytest.mark.parametrize(("edit", "says"), [
    (lambda t: t.replace("regions: us-states", "regions: districts.geojson\n    id: district_idd"),
     "line 21: .*district_idd"),
    (lambda t: t.replace("lat: lat", "lat: latitude"), "has no column 'latitude'"),
    (lambda t: t.replace("hierarchy: places.csv", "hierarchy: nowhere.csv"), "line 25: hierarchy nowhere.csv"),
    (lambda t: t.replace("out: states.csv", "out: no/such/folder/states.csv"),
     "line 21: cannot write .*does not exist"),
])
def test_the_whole_job_is_checked_before_any_row_or_epsilon(job_dir, capsys, edit, says):
    """A misspelled id column once passed --dry-run, then the real run wrote the first release and charged the
    budget before failing on the second. Now both refuse before anything is read, written or charged."""
    import json
    import re
    ring = [[-125, 24], [-66, 24], [-66, 50], [-125, 50], [-125, 24]]
    (job_dir / "districts.geojson").write_text(json.dumps({"type": "FeatureCollection", "features": [
        {"type": "Feature", "properties": {"district_id": "d1"},
         "geometry": {"type": "Polygon", "coordinates": [ring]}}]}))
    assert main(["budget", "init", str(job_dir / "trips.budget.json"), "--epsilon", "1"]) == 0
    text = edit((job_dir / "job.yaml").read_text())
    for extra in (("--dry-run",), ()):
        assert _run(job_dir, text, *extra) == 2
        err = capsys.readouterr().err
        assert re.search(says, err) and len(err.strip().splitlines()) == 1, err
    assert not list(job_dir.glob("*.parquet")) and pv.Budget(job_dir / "trips.budget.json").spent == 0


def test_a_release_failing_mid_job_says_what_was_written_and_charged(job_dir, capsys, monkeypatch):
    import psdviz.cli.job_cmd as cli

    def fail(*args, **kwargs):
        raise InputDataError("the layer broke")

    monkeypatch.setattr(cli, "build_regions", fail)
    assert main(["budget", "init", str(job_dir / "trips.budget.json"), "--epsilon", "1"]) == 0
    assert main(["run", str(job_dir / "job.yaml")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("psdviz run: the release on line 21 failed: the layer broke; already written: ")
    assert "trips.parquet" in err and "trips-quadtree.parquet" in err
    assert "the budget trips.budget.json was charged epsilon 0.6 for them (0.4 left)" in err
    assert pv.Budget(job_dir / "trips.budget.json").spent == pytest.approx(0.6)


def test_a_plain_value_error_mid_job_is_reported_as_a_bug_with_what_was_written(job_dir, capsys, monkeypatch):
    """A ValueError that is not one of psdviz.errors' types comes from a bug, not from the job: exit 1, said
    once to be a bug, and still what was written and charged."""
    import psdviz.cli.job_cmd as cli

    def fail(*args, **kwargs):
        raise ValueError("an index went wrong")

    monkeypatch.setattr(cli, "build_regions", fail)
    assert main(["budget", "init", str(job_dir / "trips.budget.json"), "--epsilon", "1"]) == 0
    assert main(["run", str(job_dir / "job.yaml")]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.count("a bug in psdviz") == 1, err
    assert err.startswith("psdviz run: the release on line 21 failed: unexpected ValueError: an index went wrong")
    assert "trips-quadtree.parquet" in err and "(0.4 left)" in err
