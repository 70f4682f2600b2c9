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
    (job_dir / "trips.csv").rename(job_dir / "hidden.csv")          # a dry run never reads the data
    assert main(["run", str(job_dir / "job.yaml"), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "4 releases of trips.csv, epsilon 1 in all" in out and "nothing read, nothing written" in out
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
