"""``psdviz regions``: the same sources, ledger and input account as ``psdviz build``; a release file
(.json, opened by ``psdviz info``) or its counts table (.csv / .parquet)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import psdviz as pv
import psdviz.regions
from psdviz.cli import main
from psdviz.regions import us_states


@pytest.fixture(scope="module")
def us(tmp_path_factory):
    d = tmp_path_factory.mktemp("regions_cli")
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"lon": rng.uniform(-120, -70, 20_000), "lat": rng.uniform(28, 48, 20_000)})
    df.to_parquet(d / "p.parquet")
    return d


def test_counts_table_and_release_file(us, capsys):
    assert main(["regions", str(us / "p.parquet"), "--lon", "lon", "--lat", "lat", "--regions", "us-states",
                 "--epsilon", "1", "--out", str(us / "c.csv")]) == 0
    cap = capsys.readouterr()
    assert "read 20,000 rows" in cap.err and "in no region" in cap.err and "ledger" in cap.out
    table = pd.read_csv(us / "c.csv", dtype={"id": str})
    assert list(table.columns) == ["id", "name", "level", "parent", "estimate", "low_95", "high_95", "standard_error",
                                   "noisy", "source"]
    assert len(table) == len(us_states().table()) and (table["estimate"] >= 0).all()
    assert main(["regions", str(us / "p.parquet"), "--lon", "lon", "--lat", "lat", "--regions", "us-states",
                 "--out", str(us / "r.json")]) == 0
    assert isinstance(pv.load_release(us / "r.json"), pv.regions.RegionRelease)
    capsys.readouterr()
    assert main(["info", str(us / "r.json")]) == 0
    out = capsys.readouterr().out
    assert f"regions: {len(us_states().table())}" in out and "per one point" in out


@pytest.mark.parametrize("args, message", [
    (["--regions", "nope.geojson", "--id", "x"], "regions file not found"),
    (["--regions", "nope.geojson"], "regions file not found"),
    (["--regions", "us-states", "--seed", "3"], "NOT private"),
    (["--regions", "us-states", "us-counties"], "is given alone"),
    (["--regions", "a.geojson", "b.geojson", "--id", "x", "--parent", "p"], "--parent is for one file"),
])
def test_bad_options_are_one_line_errors(us, capsys, args, message):
    code = main(["regions", str(us / "p.parquet"), "--lon", "lon", "--lat", "lat", *args, "--out", str(us / "x.json")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and message in err[0]


def test_levels_from_two_files(us, tmp_path, capsys):
    """States from one file, counties from another: each county's parent comes from the geometry and
    equals its FIPS state."""
    from psdviz.regions import us_counties
    c = us_counties().frame
    keep = c["id"].isin(["08", "49"]) | c["id"].str[:2].isin(["08", "49"])
    c[keep & (c["level"] == 0)][["id", "name", "geometry"]].to_file(tmp_path / "states.geojson", driver="GeoJSON")
    c[keep & (c["level"] == 1)][["id", "name", "geometry"]].to_file(tmp_path / "counties.geojson", driver="GeoJSON")
    assert main(["regions", str(us / "p.parquet"), "--lon", "lon", "--lat", "lat", "--regions",
                 str(tmp_path / "states.geojson"), str(tmp_path / "counties.geojson"), "--id", "id", "--name", "name",
                 "--out", str(tmp_path / "c.csv")]) == 0
    capsys.readouterr()
    table = pd.read_csv(tmp_path / "c.csv", dtype={"id": str, "parent": str})
    counties = table[table["level"] == 1]
    assert len(counties) == int((keep & (c["level"] == 1)).sum())
    assert (counties["parent"] == counties["id"].str[:2]).all()
