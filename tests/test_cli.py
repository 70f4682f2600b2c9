"""The command line (psdviz build / info): a release file from CSV or Parquet, the ledger printed,
user-level options, and one-line errors with exit status 2."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import psdviz as pv
from psdviz.cli import main

DOMAIN = ["-10", "35", "30", "60"]


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli")
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"lon": rng.uniform(-10, 30, 3000), "lat": rng.uniform(35, 60, 3000),
                       "uid": rng.integers(0, 300, 3000)})
    df.iloc[:1500].to_parquet(d / "part1.parquet")
    df.iloc[1500:].to_parquet(d / "part2.parquet")
    df.to_csv(d / "points.csv", index=False)
    return d, df


def test_build_from_a_parquet_glob_writes_the_same_release_as_the_engine(data, capsys):
    d, df = data
    out = d / "r.parquet"
    code = main(["build", str(d / "part*.parquet"), "--lon", "lon", "--lat", "lat", "--domain", *DOMAIN,
                 "--method", "quadtree", "--epsilon", "0.5", "--seed", "3", "--allow-seeded", "--param", "height=5",
                 "--out", str(out)])
    assert code == 0
    text = capsys.readouterr().out
    assert "ledger" in text and "count" in text and f"wrote {out}" in text
    rel = pv.load_release(out)
    same = pv.build(df[["lon", "lat"]].to_numpy(), pv.Domain(-10, 35, 30, 60), "quadtree", 0.5, seed=3, height=5,
                    nonfinite="drop")
    q = np.array([[-5, 40, 10, 50], [0, 36, 29, 59]])
    np.testing.assert_array_equal(rel.answer(q), same.answer(q))


def test_a_size_memory_limit_lowered_is_said_at_build(data, capsys):
    d, _ = data
    out = d / "tight.parquet"
    assert main(["build", str(d / "points.csv"), "--lon", "lon", "--lat", "lat", "--domain", *DOMAIN,
                 "--method", "kdtree", "--epsilon", "1", "--memory-limit", "20MB", "--param", "height=9",
                 "--out", str(out)]) == 0
    text = " ".join(capsys.readouterr().out.split())     # rich wraps long lines
    assert "note: height 9 lowered to 7: memory_limit 20MB holds a tree of at most 25,000 nodes" in text
    assert pv.load_release(out).params["height"] == 7


def test_nonnegative_flag_gives_the_engine_release(data, capsys):
    d, df = data
    out = d / "nn.parquet"
    assert main(["build", str(d / "points.csv"), "--lon", "lon", "--lat", "lat", "--domain", *DOMAIN,
                 "--method", "hybrid", "--epsilon", "0.3", "--seed", "4", "--allow-seeded", "--nonnegative", "--out",
                 str(out)]) == 0
    rel = pv.load_release(out)
    same = pv.build(df[["lon", "lat"]].to_numpy(), pv.Domain(-10, 35, 30, 60), "hybrid", 0.3, seed=4,
                    nonfinite="drop", nonnegative=True)
    assert rel.query_model.inference == "nnls"
    q = np.array([[-5, 40, 10, 50], [0, 36, 29, 59]])
    np.testing.assert_array_equal(rel.answer(q), same.answer(q))


def test_workload_file_gives_the_engine_release(data, capsys):
    d, df = data
    w = np.array([[-5, 40, 0, 45], [10, 50, 12, 52], [0, 36, 29, 59]])
    pd.DataFrame(w, columns=["xmin", "ymin", "xmax", "ymax"]).to_csv(d / "w.csv", index=False)
    out = d / "w.parquet"
    assert main(["build", str(d / "points.csv"), "--lon", "lon", "--lat", "lat", "--domain", *DOMAIN,
                 "--method", "quadtree", "--epsilon", "0.5", "--seed", "6", "--allow-seeded", "--workload",
                 str(d / "w.csv"), "--out", str(out)]) == 0
    rel = pv.load_release(out)
    same = pv.build(df[["lon", "lat"]].to_numpy(), pv.Domain(-10, 35, 30, 60), "quadtree", 0.5, seed=6,
                    nonfinite="drop", workload=w)
    assert rel.params["budget"] == "workload" and np.allclose(rel.params["workload"], w)
    np.testing.assert_array_equal(rel.answer(w), same.answer(w))
    capsys.readouterr()
    pd.DataFrame(w[:, :3], columns=["xmin", "ymin", "xmax"]).to_csv(d / "bad.csv", index=False)
    code = main(["build", str(d / "points.csv"), "--lon", "lon", "--lat", "lat", "--domain", *DOMAIN,
                 "--method", "quadtree", "--workload", str(d / "bad.csv"), "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and "has no column 'ymax'" in err and err.count("\n") == 1
    (d / "empty.csv").write_text("")
    code = main(["build", str(d / "points.csv"), "--lon", "lon", "--lat", "lat", "--domain", *DOMAIN,
                 "--method", "quadtree", "--workload", str(d / "empty.csv"), "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and "--workload" in err and "cannot be read" in err and err.count("\n") == 1


def test_auto_from_csv_with_user_level_privacy(data, capsys):
    d, _ = data
    out = d / "u.parquet"
    code = main(["build", str(d / "points.csv"), "--lon", "lon", "--lat", "lat", "--domain", *DOMAIN,
                 "--user", "uid", "--max-points-per-user", "3", "--seed", "4", "--allow-seeded", "--out", str(out)])
    assert code == 0
    rel = pv.load_release(out)
    assert rel.method == "auto" and rel.privacy_unit == "one user, at most 3 points" and rel.epsilon == 1.0
    # the printed choice is the one the release records (which one depends on the noisy facts: at this
    # tiny N epsilon the largest-cell bound can, rarely, exceed 0.2 N on uniform data)
    assert rel.params["chosen"] in pv.METHODS and f"auto ({rel.params['chosen']})" in capsys.readouterr().out
    assert main(["info", str(out), "--json"]) == 0
    assert '"privacy_unit": "one user, at most 3 points"' in capsys.readouterr().out


@pytest.mark.parametrize("args,says", [
    (["--lon", "nope", "--lat", "lat"], "column 'nope' (given as lon) is not in"),
    (["--lon", "nope", "--lat", "lat", "--user", "uid", "--max-points-per-user", "2"], "cannot read columns"),
    (["--lon", "lon", "--lat", "lat", "--user", "uid"], "needs both --user"),
    (["--lon", "lon", "--lat", "lat", "--param", "height=-1", "--method", "quadtree"], "height"),
    (["--lon", "lon", "--lat", "lat", "--param", "height=60", "--method", "quadtree"],
     "a quadtree of height 60, 20 at this resolution"),           # the height asked, and what the grid made it
])
def test_errors_are_one_line_with_status_2(data, capsys, args, says):
    d, _ = data
    code = main(["build", str(d / "points.csv"), "--domain", *DOMAIN, "--out", str(d / "x.parquet"), *args])
    said = capsys.readouterr()
    assert code == 2 and says in said.err and said.err.count("\n") == 1
    assert not said.out.strip(), said.out        # no progress bar left above the error


def test_missing_input_and_help():
    assert main(["build", "/nonexistent/*.parquet", "--lon", "a", "--lat", "b", "--domain", *DOMAIN,
                 "--out", "x.parquet"]) == 2
    res = subprocess.run([sys.executable, "-c", "from psdviz.cli import main; main()", "--help"],
                         capture_output=True, text=True)
    assert res.returncode == 0 and "build" in res.stdout and "info" in res.stdout


@pytest.mark.parametrize("command", ["build", "regions", "params", "info"])
def test_every_command_prints_its_help(command):
    """Each command's --help prints (a '%' in an option's help once made argparse raise in `build --help`)."""
    res = subprocess.run([sys.executable, "-c", "from psdviz.cli import main; main()", command, "--help"],
                         capture_output=True, text=True)
    assert res.returncode == 0 and res.stdout.startswith("usage: ") and not res.stderr


def test_dask_cluster_and_duckdb_builds_are_the_same_release(data, tmp_path):
    """--scheduler local runs the passes on a LocalCluster (a fresh process, as a user would) and writes
    the release the DuckDB path writes for the same seed."""
    d, _ = data
    args = ["build", str(d / "part*.parquet"), "--lon", "lon", "--lat", "lat", "--domain", *DOMAIN,
            "--method", "kdtree", "--seed", "5", "--allow-seeded", "--param", "height=4"]
    res = subprocess.run([sys.executable, "-m", "psdviz.cli", *args, "--scheduler", "local",
                          "--out", str(tmp_path / "dask.parquet")], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert main([*args, "--memory-limit", "500MB", "--out", str(tmp_path / "duck.parquet")]) == 0
    a, b = pv.load_release(tmp_path / "dask.parquet"), pv.load_release(tmp_path / "duck.parquet")
    np.testing.assert_array_equal(a.tree.noisy, b.tree.noisy)
    np.testing.assert_array_equal(a.tree.rect, b.tree.rect)


def test_a_bundled_layer_as_the_workload(data, tmp_path, capsys):
    """--workload us-states plans the quadtree for the states (recorded by size and digest); a layer that
    misses the domain, or a bundled layer given a layer file's id column, is one line and exit 2."""
    rng = np.random.default_rng(1)
    pts = pd.DataFrame({"lon": rng.uniform(-120, -75, 2000), "lat": rng.uniform(30, 48, 2000)})
    pts.to_csv(tmp_path / "us.csv", index=False)
    out = tmp_path / "us.parquet"
    assert main(["build", str(tmp_path / "us.csv"), "--lon", "lon", "--lat", "lat", "--domain", "-180", "-90", "180",
                 "90", "--method", "quadtree", "--param", "height=5", "--epsilon", "0.5", "--seed", "2",
                 "--allow-seeded", "--workload", "us-states", "--out", str(out)]) == 0
    rel = pv.load_release(out)
    assert rel.params["budget"] == "workload" and rel.params["workload_regions"].startswith("5")
    assert "regions in 1 level(s), sha256 " in rel.params["workload_regions"]
    capsys.readouterr()
    code = main(["build", str(tmp_path / "us.csv"), "--lon", "lon", "--lat", "lat", "--domain", "-180", "-90",
                 "180", "90", "--method", "quadtree", "--workload", "us-states", "--workload-id", "GEOID",
                 "--out", str(tmp_path / "id.parquet")])
    err = capsys.readouterr().err
    assert code == 2 and "bundled layer" in err and "--workload-id" in err and err.count("\n") == 1
    assert not (tmp_path / "id.parquet").exists()
    d, _ = data
    code = main(["build", str(d / "points.csv"), "--lon", "lon", "--lat", "lat", "--domain", *DOMAIN,
                 "--method", "quadtree", "--workload", "us-states", "--out", str(tmp_path / "eu.parquet")])
    err = capsys.readouterr().err
    assert code == 2 and "lies outside the domain" in err and err.count("\n") == 1


def test_a_layer_file_as_the_workload(tmp_path, capsys):
    """--workload FILE --workload-id COL reads a region layer; a layer file without its id column is one line."""
    import geopandas as gpd
    from shapely.geometry import box
    layer = gpd.GeoDataFrame({"code": ["w", "e"]}, geometry=[box(-10, 35, 10, 60), box(10, 35, 30, 60)],
                             crs="EPSG:4326")
    layer.to_file(tmp_path / "halves.geojson", driver="GeoJSON")
    rng = np.random.default_rng(3)
    pd.DataFrame({"lon": rng.uniform(-10, 30, 1000), "lat": rng.uniform(35, 60, 1000)}).to_csv(tmp_path / "p.csv",
                                                                                              index=False)
    args = ["build", str(tmp_path / "p.csv"), "--lon", "lon", "--lat", "lat", "--domain", *DOMAIN, "--method",
            "quadtree", "--param", "height=4", "--seed", "1", "--allow-seeded", "--out", str(tmp_path / "r.parquet"),
            "--workload", str(tmp_path / "halves.geojson")]
    assert main(args + ["--workload-id", "code"]) == 0
    assert pv.load_release(tmp_path / "r.parquet").params["workload_regions"].startswith("2 regions in 1 level(s)")
    capsys.readouterr()
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "looks like a region layer" in err and "--workload-id" in err and err.count("\n") == 1


@pytest.mark.parametrize("content, what", [(b"", "0 bytes"), (b"\n \n", "3 bytes, all blank")])
@pytest.mark.parametrize("extra", [[], ["--user", "u", "--max-points-per-user", "2"]])
def test_an_empty_csv_is_said_to_be_empty(tmp_path, capsys, content, what, extra):
    (tmp_path / "empty.csv").write_bytes(content)
    code = main(["build", str(tmp_path / "empty.csv"), "--lon", "lon", "--lat", "lat", "--domain", "0", "0", "1", "1",
                 *extra, "--out", str(tmp_path / "r.parquet")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and err[-1].endswith(f"empty.csv is empty ({what}): give a CSV file with a header row naming "
                                          "the columns and at least one row of points")
    assert "column0" not in err[-1] and not (tmp_path / "r.parquet").exists()


@pytest.mark.parametrize("argv,says", [
    (["build", "points.csv"], "psdviz build: the following arguments are required: --lon, --lat, --out, --domain"),
    (["build", "p.csv", "--lon", "x", "--lat", "y", "--domain", "0", "0", "1", "1", "--out", "o.parquet",
      "--method", "nope"], "psdviz build: argument --method: invalid choice: 'nope'"),
    (["budget", "init"], "psdviz budget: the following arguments are required: file"),
    (["nope"], "psdviz: argument command: invalid choice: 'nope'"),
    (["build", "p.csv", "--lon", "x", "--lat", "y", "--domian", "0", "0", "1", "1", "--out", "o.parquet"],
     "psdviz build: unknown option --domian: did you mean --domain?"),
    (["build", "p.csv", "--epslion", "1"], "psdviz build: unknown option --epslion: did you mean --epsilon?"),
    (["info", "r.parquet", "--zzz"], "psdviz info: unknown option --zzz (see psdviz info --help)"),
])
def test_a_mistyped_command_is_one_line_with_status_2_and_points_to_help(argv, says, capsys):
    """argparse's own mistakes too: one line naming what to fix and where the help is, not the usage block."""
    with pytest.raises(SystemExit) as info:
        main(argv)
    err = capsys.readouterr().err
    assert info.value.code == 2 and err.startswith(says) and err.count("\n") == 1 and "--help)" in err


def test_a_reader_that_stops_early_gets_no_error_line(monkeypatch, capsys):
    """`psdviz info ... | head -1`: the closed pipe is not a mistake to report: no line, the shell's status for it;
    a command that writes files (a job) says it, as before, so a cut-short job is never silent."""
    import psdviz.cli.dispatch as cli

    def closed(a):
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(cli, "run_params", closed)
    assert cli.main(["params", "quadtree"]) == cli.EXIT_BROKEN_PIPE == 141
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(cli, "run_job", closed)            # a command that writes files: said, not swallowed
    assert cli.main(["run", "job.yaml"]) == 2
    assert "psdviz run: [Errno 32] Broken pipe" in capsys.readouterr().err
