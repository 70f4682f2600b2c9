"""A Spark DataFrame is a source like the others: a local Spark session (Java from Debian's packages)
gives the same release as the array for every method, read once into the occupied cells or once per
pass, and validation reports what it did. Only group counts come back to the driver."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import psdviz as pv

pytest.importorskip("pyspark")

DOM = pv.Domain(-1.0, -1.0, 1.0, 1.0)
RES = 12


@pytest.fixture(scope="module")
def spark():
    from pyspark.sql import SparkSession
    s = (SparkSession.builder.master("local[2]").appName("psdviz-tests")
         .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "4")
         .config("spark.driver.bindAddress", "127.0.0.1").config("spark.driver.host", "127.0.0.1")
         .getOrCreate())
    yield s
    s.stop()


@pytest.fixture(scope="module")
def data(spark):
    rng = np.random.default_rng(7)
    xy = np.r_[rng.normal(0.2, 0.08, (1500, 2)), rng.uniform(-1, 1, (900, 2)), np.full((40, 2), 0.25)]
    xy[3] = [np.nan, 0.1]
    xy[11] = [1.7, -0.2]
    xy[12] = [-1.0, 1.0]
    pdf = pd.DataFrame({"lon": xy[:, 0], "lat": xy[:, 1], "other": np.arange(len(xy))})
    return xy, spark.createDataFrame(pdf).repartition(3)


def _same(a, b) -> None:
    np.testing.assert_array_equal(a.tree.rect, b.tree.rect)
    np.testing.assert_array_equal(a.tree.noisy, b.tree.noisy)
    np.testing.assert_array_equal(a.tree.est, b.tree.est)
    assert a.ledger.records() == b.ledger.records()


@pytest.mark.parametrize("method", pv.METHODS)
def test_spark_gives_the_array_release_for_every_method(data, method):
    xy, sdf = data
    kw = dict(seed=11, resolution=RES, nonfinite="drop")
    ref = pv.build(xy, DOM, method, 1.0, **kw)
    one = pv.build(sdf, DOM, method, 1.0, lon="lon", lat="lat", passes="one", **kw)
    _same(ref, one)
    assert one.audit()["data_passes"].startswith("one grouped pass")


@pytest.mark.parametrize("method", ["quadtree", "privtree", "kdtree"])
def test_spark_per_level_passes_give_the_same_release(data, method):
    xy, sdf = data
    kw = dict(seed=5, resolution=RES, nonfinite="drop", outside="clip")
    _same(pv.build(xy, DOM, method, 1.0, **kw),
          pv.build(sdf, DOM, method, 1.0, lon="lon", lat="lat", passes="per-level", **kw))


def test_spark_validation_and_regions(data):
    xy, sdf = data
    rel = pv.build(sdf, DOM, "ug", 1.0, seed=1, lon="lon", lat="lat", nonfinite="drop", resolution=RES)
    rep = rel.audit()
    assert rep["rows_in"] == len(xy) and rep["rows_nonfinite_dropped"] == 1 and rep["rows_outside_domain"] == 1
    with pytest.raises(ValueError, match=r"column .x. .*not in the Spark DataFrame"):
        pv.build(sdf, DOM, "ug", 1.0, lon="x", lat="lat")
    with pytest.raises(ValueError, match=r"NaN|non-finite|missing"):
        pv.build(sdf, DOM, "ug", 1.0, lon="lon", lat="lat")          # nonfinite="error" by default
    import geopandas as gpd
    from shapely.geometry import box

    from psdviz.regions import Regions
    layer = Regions.from_frame(gpd.GeoDataFrame({"id": ["w", "e"]}, geometry=[box(-1, -1, 0, 1), box(0, -1, 1, 1)],
                                                crs="EPSG:4326"), id="id")
    a = pv.build_regions(xy, layer, epsilon=1.0, seed=2, domain=DOM, resolution=RES)
    b = pv.build_regions(sdf, layer, epsilon=1.0, seed=2, domain=DOM, resolution=RES, lon="lon", lat="lat")
    np.testing.assert_array_equal(a.estimate, b.estimate)


def test_a_column_named_with_a_dot_is_one_column(spark):
    """A column "a.b" is that column, not field b of a struct a (it was an AnalysisException)."""
    pdf = pd.DataFrame({"pos.lon": [0.1, 0.2, 0.3], "pos.lat": [0.1, 0.2, 0.3]})
    rel = pv.build(spark.createDataFrame(pdf), pv.Domain(0, 0, 1, 1), "ug", 1.0, lon="pos.lon", lat="pos.lat")
    assert rel.input_report["rows_in"] == 3
