"""Read the data once: a file source is scanned for validation and for its occupied cells, and every
later pass of any method is answered from memory; the rule falls back to per-level passes when the
cells do not fit half the memory budget, and says which path ran in the owner's audit only."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import psdviz as pv
from psdviz.core.cells import BYTES_PER_CELL, CellTable, hold_cells, weighted_groups
from psdviz.core.memory import memory_bytes
from psdviz.sources.files import DuckDBSource

DOM = pv.Domain(0, 0, 1, 1)


@pytest.fixture(scope="module")
def parquet(tmp_path_factory):
    xy = np.random.default_rng(2).random((200_000, 2))
    path = tmp_path_factory.mktemp("one_pass") / "p.parquet"
    pd.DataFrame({"lon": xy[:, 0], "lat": xy[:, 1]}).to_parquet(path)
    return str(path), xy


@pytest.mark.parametrize("method", ["kdtree", "privtree", "htree", "hilbert"])
def test_a_file_is_grouped_once_whatever_the_method(parquet, method, monkeypatch):
    path, xy = parquet
    calls = []
    real = DuckDBSource.grouped
    monkeypatch.setattr(DuckDBSource, "grouped", lambda self, k: calls.append(1) or real(self, k))
    one = pv.build(path, DOM, method, 1.0, seed=3, lon="lon", lat="lat", resolution=14, passes="one")
    assert calls == []                                   # every pass came from the cells in memory
    per_level = pv.build(path, DOM, method, 1.0, seed=3, lon="lon", lat="lat", resolution=14, passes="per-level")
    assert len(calls) >= 1
    np.testing.assert_array_equal(one.tree.est, per_level.tree.est)
    assert "one grouped pass into" in one.audit()["data_passes"]
    assert "data_passes" not in str(one.report()) and "occupied cells" not in str(one.report())


def test_auto_holds_the_cells_when_they_fit_and_falls_back_when_not(parquet):
    path, xy = parquet
    kw = dict(seed=4, lon="lon", lat="lat", resolution=16, height=6)   # a tree that fits 48MB
    fits = pv.build(path, DOM, "quadtree", 1.0, memory_limit="1GB", **kw)
    tight = pv.build(path, DOM, "quadtree", 1.0, memory_limit="48MB", **kw)   # 187,500 cells at most
    assert fits.audit()["data_passes"].startswith("one grouped pass into 19")   # about 199,400 cells
    assert tight.audit()["data_passes"].startswith("per-level passes (more than 187,500 occupied cells")
    np.testing.assert_array_equal(fits.tree.est, tight.tree.est)
    assert 48 * 10 ** 6 // 2 // BYTES_PER_CELL == 187_500


def test_duckdb_running_out_of_memory_is_a_clear_error(parquet):
    path, _ = parquet
    with pytest.raises(ValueError, match="DuckDB ran out of memory under its cap"):
        pv.build(path, DOM, "quadtree", 1.0, lon="lon", lat="lat", resolution=16, memory_limit="1MB")


def test_the_capped_pass_holds_at_most_cap_plus_one_groups(parquet):
    path, xy = parquet
    src = DuckDBSource(path, DOM, lon="lon", lat="lat", resolution=16)
    try:
        full = src.cells_at_most(None)
        n = full[1].size
        assert src.cells_at_most(n) is not None and src.cells_at_most(n - 1) is None
        assert full[1].sum() == len(xy)
        table = hold_cells(src, "one")
        assert isinstance(table, CellTable) and table.n_cells == n
        np.testing.assert_array_equal(table.cells()[0], full[0])
    finally:
        src.close()


def test_weighted_groups_equal_grouping_the_points():
    rng = np.random.default_rng(5)
    ids = rng.integers(-3, 50, 2000)
    u, c = np.unique(ids, return_counts=True)
    w_ids, w = weighted_groups(u, c)
    keep = u >= 0
    np.testing.assert_array_equal(w_ids, u[keep])
    np.testing.assert_array_equal(w, c[keep])
    big = np.array([5, 10 ** 12, 5])                   # sparse ids: the sorted path
    np.testing.assert_array_equal(weighted_groups(big, np.array([1, 2, 3]))[1], [4, 2])


def test_bad_passes_and_memory_limits_are_named():
    with pytest.raises(ValueError, match="passes must be one of"):
        pv.build(np.zeros((3, 2)) + 0.5, DOM, "ug", 1.0, passes="twice")
    for bad in ("lots", "-1GB", 4):
        with pytest.raises(ValueError, match="memory_limit must be a size"):
            memory_bytes(bad)
    assert memory_bytes("1.5GiB") == int(1.5 * 2 ** 30) and memory_bytes(None) > 0


def test_the_one_pass_path_scans_the_files_once_validation_included(parquet, monkeypatch):
    path, xy = parquet
    scans = []
    real = DuckDBSource._fetch
    monkeypatch.setattr(DuckDBSource, "_fetch",
                        lambda self, sql, numpy=True: scans.append(sql) or real(self, sql, numpy))
    rel = pv.build(path, DOM, "kdtree", 1.0, seed=2, lon="lon", lat="lat", resolution=14, passes="one")
    assert len(scans) == 1 and rel.audit()["rows_in"] == len(xy)
    scans.clear()
    pv.build(path, DOM, "kdtree", 1.0, seed=2, lon="lon", lat="lat", resolution=14, passes="per-level")
    assert len(scans) >= 3             # validation, then one scan a pass
