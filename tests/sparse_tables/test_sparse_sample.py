"""The real sparse table: flights sample, tail number x scheduled service."""
import numpy as np
import pandas as pd
import pytest

from psdviz.sparse import summarize
from psdviz.sparse.sample import flights_sparse_table, service_labels


@pytest.fixture(scope="module")
def flights():
    from psdviz.io.samples import load_sample
    return load_sample("flights")


@pytest.fixture(scope="module")
def table(flights):
    return flights_sparse_table(flights)


def test_flights_table_is_sparse_and_counts_every_flight_with_a_tail(table, flights):
    df = flights
    with_tail = df[df.tailnum.astype(str).str.strip() != ""]
    assert table.l1 == len(with_tail)
    assert table.layout["rows_without_tail_dropped"] == len(df) - len(with_tail)
    assert table.density < 0.01
    assert table.n == with_tail.groupby(["tailnum", "carrier", "flight", "origin", "dest"]).ngroups
    # slow check of one cell: the busiest (tail, service) pair
    top = with_tail.assign(service=service_labels(with_tail)).groupby(["tailnum", "service"]).size()
    (tail, service), count = top.idxmax(), top.max()
    row = table.layout["rows"].index(tail)
    col = table.layout["cols"].index(service)
    assert table.counts[np.searchsorted(table.indices, row * table.layout["shape"][1] + col)] == count


def test_flights_summary_runs_without_materialising(table):
    rel = summarize(table, "filter-priority", 1.0, seed=1, theta=2, size=table.n, stats="public")
    assert rel.size == table.n
    frame = rel.to_frame()
    assert {"row", "col"} <= set(frame.columns) and isinstance(frame, pd.DataFrame)
