"""psdviz build --spark MASTER: the files are read by Spark and the release equals the array's; a Spark
that cannot start, or --spark beside --scheduler, is one line and exit 2."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import psdviz as pv
from psdviz.cli import main

pytest.importorskip("pyspark")


def test_a_spark_build_from_the_command_line_equals_the_array_build(tmp_path, capsys):
    xy = np.random.default_rng(9).random((3000, 2)) ** 2
    pd.DataFrame({"lon": xy[:, 0], "lat": xy[:, 1]}).to_parquet(tmp_path / "p.parquet")
    out = tmp_path / "r.parquet"
    code = main(["build", str(tmp_path / "p.parquet"), "--lon", "lon", "--lat", "lat", "--domain", "0", "0", "1",
                 "1", "--method", "privtree", "--epsilon", "1", "--seed", "3", "--allow-seeded", "--resolution",
                 "12", "--spark", "local[2]", "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    ref = pv.build(xy, pv.Domain(0, 0, 1, 1), "privtree", 1.0, seed=3, resolution=12)
    np.testing.assert_array_equal(pv.load_release(out).tree.est, ref.tree.est)
    assert "data read as one grouped pass" in capsys.readouterr().err


@pytest.mark.parametrize(("extra", "says"), [(["--spark", "bogus://nowhere"], "Spark could not start"),
                                             (["--spark", "local[1]", "--scheduler", "local"], "choose one cluster")])
def test_spark_errors_are_one_line(tmp_path, capsys, extra, says):
    pd.DataFrame({"lon": [0.5], "lat": [0.5]}).to_parquet(tmp_path / "p.parquet")
    code = main(["build", str(tmp_path / "p.parquet"), "--lon", "lon", "--lat", "lat", "--domain", "0", "0", "1",
                 "1", "--out", str(tmp_path / "r.parquet"), *extra])
    err = capsys.readouterr().err.strip()
    assert code == 2 and says in err and len(err.splitlines()) == 1, err
