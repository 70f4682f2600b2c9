"""The same seed gives the same release from an array, from Parquet and CSV files
read by DuckDB, and from a Dask DataFrame on a two-worker dask.distributed cluster, for every method,
whether the files are read once into their occupied cells or once per pass.

The data have a NaN row, a row outside the domain, a clipped variant and duplicate points, and the
files are split in two (a glob), so partitioning, validation and clipping are all exercised."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import psdviz as pv

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

DOM = pv.Domain(-1.0, -1.0, 1.0, 1.0)
RES = 12


def _points() -> np.ndarray:
    rng = np.random.default_rng(7)
    xy = np.r_[rng.normal(0.2, 0.08, (1500, 2)), rng.uniform(-1, 1, (900, 2)), np.full((40, 2), 0.25)]
    xy[3] = [np.nan, 0.1]
    xy[11] = [1.7, -0.2]            # outside: dropped or clipped
    xy[12] = [-1.0, 1.0]            # on the closed boundary
    return xy


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    d = tmp_path_factory.mktemp("same_release")
    xy = _points()
    df = pd.DataFrame({"lon": xy[:, 0], "lat": xy[:, 1], "other": np.arange(len(xy))})
    df.iloc[:1000].to_parquet(d / "part-0.parquet")
    df.iloc[1000:].to_parquet(d / "part-1.parquet")
    df.to_csv(d / "points.csv", index=False)
    return {"xy": xy, "df": df, "parquet": str(d / "part-*.parquet"), "csv": str(d / "points.csv")}


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                       dashboard_address=None)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def _same(a, b) -> None:
    ta, tb = a.tree, b.tree
    np.testing.assert_array_equal(ta.rect, tb.rect)         # every split
    np.testing.assert_array_equal(ta.noisy, tb.noisy)       # every noisy count
    np.testing.assert_array_equal(ta.est, tb.est)
    assert a.ledger.records() == b.ledger.records()
    drop = lambda r: {k: v for k, v in r.items() if k not in ("data_passes", "files_read")}   # audit only
    assert drop(a.input_report) == drop(b.input_report)
    assert a.params == b.params


@pytest.mark.parametrize("outside", ["drop", "clip"])
@pytest.mark.parametrize("method", pv.METHODS)
def test_array_duckdb_dask_give_identical_releases(data, client, method, outside):
    kw = dict(seed=11, resolution=RES, nonfinite="drop", outside=outside)
    ref = pv.build(data["xy"], DOM, method, 1.0, **kw)
    ddf = dd.from_pandas(data["df"], npartitions=3)
    for src in (data["parquet"], data["csv"], ddf):
        for passes in ("one", "per-level"):
            _same(ref, pv.build(src, DOM, method, 1.0, lon="lon", lat="lat", passes=passes, **kw))


def test_sources_report_what_validation_did(data, client):
    ddf = dd.from_pandas(data["df"], npartitions=3)
    for src in (data["parquet"], ddf):
        rel = pv.build(src, DOM, "ug", 1.0, seed=1, lon="lon", lat="lat", nonfinite="drop", resolution=RES)
        assert rel.input_report["rows_in"] == len(data["xy"])
        assert rel.input_report["rows_nonfinite_dropped"] == 1
        assert rel.input_report["rows_outside_domain"] == 1
        assert rel.input_report["rows_used"] == len(data["xy"]) - 2
