"""Every error a caller can cause through the public API is one of psdviz.errors' named types (each a
ValueError, so code that catches ValueError keeps working): wrong parameters are ParameterError, data that
cannot be used InputDataError, files that are not sound releases ReleaseFileError. The hostile release
files are walked in tests/test_hostile_corpus.py with the same rule."""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

import psdviz as pv
from psdviz import coco, sparse
from psdviz.errors import BudgetError, InputDataError, JobFileError, ParameterError, PsdvizError, ReleaseFileError

PTS = np.random.default_rng(0).random((500, 2))
DOM = pv.Domain(0, 0, 1, 1)


@pytest.fixture(scope="module")
def rel():
    return pv.build(PTS, DOM, "quadtree", 1.0)


CASES = {
    "unknown method": (ParameterError, lambda r, p: pv.build(PTS, DOM, "nope", 1.0)),
    "negative epsilon": (ParameterError, lambda r, p: pv.build(PTS, DOM, "quadtree", -1)),
    "NaN epsilon": (ParameterError, lambda r, p: pv.build(PTS, DOM, "quadtree", float("nan"))),
    "parameter of the wrong kind": (ParameterError, lambda r, p: pv.build(PTS, DOM, "quadtree", 1.0, height="x")),
    "unknown parameter": (ParameterError, lambda r, p: pv.build(PTS, DOM, "quadtree", 1.0, bogus=3)),
    "resolution out of range": (ParameterError, lambda r, p: pv.build(PTS, DOM, "quadtree", 1.0, resolution=99)),
    "seed of the wrong kind": (ParameterError, lambda r, p: pv.build(PTS, DOM, "quadtree", 1.0, seed="x")),
    "outside mode": (ParameterError, lambda r, p: pv.build(PTS, DOM, "quadtree", 1.0, outside="x")),
    "workload on a method without one": (ParameterError,
                                         lambda r, p: pv.build(PTS, DOM, "kdtree", 1.0, workload=[[0, 0, 1, 1]])),
    "NaN in the points": (InputDataError, lambda r, p: pv.build(np.array([[np.nan, .5], [.2, .2]]), DOM, "ug", 1)),
    "text as points": (InputDataError, lambda r, p: pv.build([["a", "b"]], DOM, "quadtree", 1.0)),
    "three columns": (InputDataError, lambda r, p: pv.build(np.zeros((3, 3)), DOM, "quadtree", 1.0)),
    "bounds the wrong way": (InputDataError, lambda r, p: pv.Domain(1, 0, 0, 1)),
    "NaN bounds": (InputDataError, lambda r, p: pv.Domain(np.nan, 0, 1, 1)),
    "a NaN rectangle": (ParameterError, lambda r, p: r.answer([[np.nan, 0, 1, 1]])),
    "a rectangle the wrong way": (ParameterError, lambda r, p: r.answer([[1, 0, 0, 1]])),
    "an interval level of 2": (ParameterError, lambda r, p: r.answer_interval([[0, 0, 1, 1]], level=2)),
    "writing a seeded release": (ParameterError,
                                 lambda r, p: pv.build(PTS, DOM, "quadtree", 1.0, seed=1).save(p / "s.parquet")),
    "loading a text file": (ReleaseFileError, lambda r, p: pv.load_release(_text(p))),
    "loading a missing file": (ReleaseFileError, lambda r, p: pv.load_release(p / "missing.parquet")),
    "a window that is not a duration": (ParameterError, lambda r, p: pv.build_over_time(
        PTS, DOM, time=np.zeros(len(PTS)), span=(0, 10), window="x", epsilon=1.0)),
    "a region whose parent is not in the layer": (InputDataError, lambda r, p: pv.regions.Regions.from_frame(
        _squares(["a", "b"]), id="rid", parent="up")),
    "a region layer's id column missing": (InputDataError, lambda r, p: pv.regions.Regions.from_frame(
        _squares(["a", "b"]), id="nope")),
    "a region layer that is not a GeoDataFrame": (ParameterError, lambda r, p: pv.regions.Regions.from_frame(
        [[0, 0, 1, 1]], id="rid")),
    "a count-of-counts location not in the hierarchy": (InputDataError, lambda r, p: coco.group_records(
        [1, 2], ["JFK", "ORD"], coco.Hierarchy.from_paths([("NY", "JFK")], root="USA"), max_size=5)),
    "a count-of-counts K of 0": (ParameterError, lambda r, p: coco.group_records(
        [1], ["JFK"], coco.Hierarchy.from_paths([("NY", "JFK")], root="USA"), max_size=0)),
    "a sparse table's cell outside [0, m)": (InputDataError, lambda r, p: sparse.make_table([3, 12], [1, 1], 10)),
    "a sparse table's counts not integers": (InputDataError, lambda r, p: sparse.make_table([3], [1.5], 10)),
    "a sparse method that does not exist": (ParameterError, lambda r, p: sparse.summarize(
        sparse.make_table([3], [1], 10), method="nope", epsilon=1.0)),
    "points from files that do not exist": (InputDataError, lambda r, p: pv.build(
        str(p / "none-*.parquet"), DOM, "quadtree", 1.0, lon="x", lat="y")),
    "a job file that is not YAML": (JobFileError, lambda r, p: _job(p, "data: [unclosed\n")),
    "a job file with an unknown key": (JobFileError, lambda r, p: _job(p, "data: {}\nreleases: []\nextra: 1\n")),
    "a time release whose model was edited": (ReleaseFileError, lambda r, p: pv.load_release(_edited_time(p))),
    "a lab workload of an unknown kind": (ParameterError, lambda r, p: _lab_workload("nope")),
    "a lab histogram with negative counts": (InputDataError, lambda r, p: _lab_histogram(-np.ones((4, 4)))),
    "a synthetic family's shares above 1": (ParameterError, lambda r, p: _zero_inflated(atom=0.8, lines=0.5)),
    "a spend above the ledger's budget": (BudgetError, lambda r, p: pv.Ledger(1.0).spend("counts", 2.0, "laplace")),
    "a budget file asked for more than is left": (BudgetError, lambda r, p: _overdrawn(p)),
}


def _squares(ids: list[str]):
    """Squares side by side in [0, 1] x [0, 1], one per id (column ``rid``), each naming a parent "zz" that
    is not in the layer (column ``up``)."""
    gpd = pytest.importorskip("geopandas")
    from shapely.geometry import box
    w = 1 / len(ids)
    shapes = [box(i * w, 0, (i + 1) * w, 1) for i in range(len(ids))]
    return gpd.GeoDataFrame({"rid": ids, "up": ["zz"] * len(ids)}, geometry=shapes, crs="EPSG:4326")


def _job(tmp, text: str):
    from psdviz.jobs import load_job
    f = tmp / "job.yaml"
    f.write_text(text)
    return load_job(f)


def _overdrawn(tmp):
    budget = pv.Budget(tmp / "b.budget.json", total_epsilon=1.0)
    return budget.check(2.0, 0.0, "one point", what="a release at epsilon 2")


def _edited_time(tmp):
    """A release over time saved, then its model's sensitivity edited to 0."""
    import json
    rel = pv.build_over_time(PTS, DOM, time=np.arange(len(PTS), dtype=float), span=(0, 500), window=100,
                             epsilon=1.0, grid_level=1)
    f = rel.save(tmp / "t.json")
    doc = json.loads(Path(f).read_text())
    doc["model"]["sensitivity"] = 0
    Path(f).write_text(json.dumps(doc))
    return f


def _lab_workload(kind: str):
    from psdviz.lab.compare import Workload
    return Workload(kind=kind, sizes=((0.1, 0.1),)).check(DOM)


def _lab_histogram(hist):
    from psdviz.lab.dpbench import check_histogram
    return check_histogram(hist)


def _zero_inflated(**shares):
    from psdviz.lab.synthetic import zero_inflated
    return zero_inflated(1000, DOM, np.random.default_rng(0), **shares)


def _text(tmp):
    f = tmp / "notes.txt"
    f.write_text("not a release\n")
    return f


@pytest.mark.parametrize("case", list(CASES))
def test_each_error_a_caller_can_cause_has_its_named_type(case, rel, tmp_path):
    expected, call = CASES[case]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(PsdvizError) as info:
            call(rel, tmp_path)
    assert isinstance(info.value, expected), (type(info.value).__name__, str(info.value))
    assert isinstance(info.value, ValueError) and str(info.value)


def test_a_plain_value_error_fails_the_check():
    """The check above can fail: a plain ValueError is not a PsdvizError."""
    with pytest.raises(ValueError) as info:
        int("x")
    assert not isinstance(info.value, PsdvizError)


def test_the_cli_says_a_users_mistake_in_one_line_with_exit_2(tmp_path, capsys):
    """A budget file created twice: the BudgetError is the CLI's one line, exit 2, not a bug."""
    from psdviz.cli import main
    f = tmp_path / "b.budget.json"
    assert main(["budget", "init", str(f), "--epsilon", "1"]) == 0
    capsys.readouterr()
    assert main(["budget", "init", str(f), "--epsilon", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("psdviz budget: ") and "exists already" in err
    assert "bug" not in err


def test_the_cli_raises_the_named_type_behind_its_line(tmp_path):
    """The line comes from a named type: a workload file without its columns is InputDataError."""
    from psdviz.cli.inputs import read_workload
    f = tmp_path / "w.csv"
    f.write_text("a,b\n1,2\n")
    with pytest.raises(InputDataError, match="has no column 'xmin'"):
        read_workload(str(f))


def test_text_in_the_coordinate_columns_the_cli_read_is_the_data_s_fault():
    """Columns read into memory (--user, psdviz run) holding text: InputDataError naming them, not numpy's
    ValueError (which the CLI would report as a bug)."""
    from psdviz.cli.inputs import numeric_points
    with pytest.raises(InputDataError, match="columns 'lon' / 'lat' hold values that are not numbers"):
        numeric_points({"lon": np.array(["1.5", "east"], object), "lat": np.array([1.0, 2.0])}, "lon", "lat")


def test_the_cli_reports_a_plain_value_error_as_a_bug(monkeypatch, capsys):
    """A plain ValueError (a bug, not the user's mistake) is said to be one, with exit 1."""
    import psdviz.cli.dispatch as cli

    def broken(a):
        raise ValueError("operands could not be broadcast")

    monkeypatch.setattr(cli, "run_params", broken)
    assert cli.main(["params", "quadtree"]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "unexpected ValueError" in err and "a bug in psdviz" in err
