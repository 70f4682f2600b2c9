"""A public timestamped point set: 3 million US domestic flights of January to June 2001 (vega-datasets'
flights-3m, BSD-3-Clause package of public data), each a departure at its origin airport's coordinates.

The files are fetched from the npm registry at set-up (``.ci/fetch_test_data`` copies flights-3m.parquet and
airports.csv into ``.cache/vega-datasets/``); nothing is downloaded here. Each row: lon, lat (the origin
airport), time (the scheduled departure, UTC as stored), origin, destination and route (a whole number per
origin-destination pair): a route is
the contributor a user-level or w-event demonstration protects (one route's flights, bounded per window and in
all).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

VEGA = Path(__file__).resolve().parents[2] / ".cache" / "vega-datasets"
FLIGHTS = "flights-3m.parquet"
AIRPORTS = "airports.csv"
SPAN = ("2001-01-01", "2001-07-01")          # the data set's documented half year: public
DOMAIN = (-125.0, 24.0, -66.0, 50.0)           # the contiguous United States (lon, lat): public


def flights_available(folder: Path | str = VEGA) -> bool:
    """Whether the flights and airports files are there (fetched by ``.ci/fetch_test_data``)."""
    return (Path(folder) / FLIGHTS).is_file() and (Path(folder) / AIRPORTS).is_file()


def flight_departures(folder: Path | str = VEGA, limit: int | None = None) -> pd.DataFrame:
    """The flights as timestamped points (lon, lat, time, origin, destination, route); ``limit`` keeps the first
    rows. A FileNotFoundError naming the set-up step when the files are missing."""
    folder = Path(folder)
    if not flights_available(folder):
        raise FileNotFoundError(f"no {FLIGHTS} and {AIRPORTS} in {folder}: run `bash .ci/fetch_test_data` (it fetches "
                                "vega-datasets from the npm registry)")
    import pyarrow.parquet as pq
    flights = pq.read_table(folder / FLIGHTS, columns=["date", "origin", "destination"]).to_pandas(
        strings_to_categorical=True)
    if limit is not None:
        flights = flights.iloc[:limit]
    airports = pd.read_csv(folder / AIRPORTS, usecols=["iata", "latitude", "longitude"]).drop_duplicates("iata")
    cats = flights["origin"].cat.categories
    at = pd.Index(airports["iata"]).get_indexer(cats)[flights["origin"].cat.codes.to_numpy()]
    lon = np.where(at >= 0, airports["longitude"].to_numpy()[np.maximum(at, 0)], np.nan)
    lat = np.where(at >= 0, airports["latitude"].to_numpy()[np.maximum(at, 0)], np.nan)
    o, d = flights["origin"].cat.codes.to_numpy(np.int64), flights["destination"].cat.codes.to_numpy(np.int64)
    return pd.DataFrame({"lon": lon, "lat": lat, "time": flights["date"].to_numpy(), "origin": flights["origin"],
                         "destination": flights["destination"], "route": o * (int(d.max(initial=0)) + 1) + d})
