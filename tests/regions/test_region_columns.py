"""A region layer's id and name columns guessed as a person would (one rule for Python, the CLI and the app:
a unique column, named like an id, text before numbers, never a measure), duplicate ids merged with a warning
naming them, ``answer_regions`` given a GeoDataFrame or a path, and one schema for the two region CSVs."""
from __future__ import annotations

import warnings

import geopandas as gpd
import numpy as np
import pandas as pd
import pytest
from shapely.geometry import box

import psdviz as pv
from psdviz.cli import main
from psdviz.regions import RegionRepairWarning, Regions, guess_columns, people_table

COUNTRIES = ["Fiji", "Tanzania", "France", "Norway", "Canada", "Somaliland", "Kosovo", "N. Cyprus"]


def natural_earth_like() -> gpd.GeoDataFrame:
    """Natural Earth's columns (pop_est first, iso_a3 with -99 for five countries), squares for shapes."""
    iso = ["FJI", "TZA", "-99", "-99", "CAN", "-99", "-99", "-99"]
    return gpd.GeoDataFrame({
        "pop_est": [920938, 53950935, 67059887, 5347896, 37589262, 3500000, 1794248, 326000],
        "continent": ["Oceania", "Africa", "Europe", "Europe", "North America", "Africa", "Europe", "Asia"],
        "name": COUNTRIES, "iso_a3": iso,
        "gdp_md_est": [5496.0, 63177.0, 2715518.0, 403336.0, 1736425.0, 12250.0, 7926.0, 3600.0]},
        geometry=[box(i * 10, 0, i * 10 + 9, 9) for i in range(8)], crs="EPSG:4326")


@pytest.mark.parametrize("columns, expected", [
    ({"pop_est": [5, 7, 9], "continent": ["a", "a", "b"], "name": ["x", "y", "z"], "iso_a3": ["X", "-99", "-99"],
      "gdp_md_est": [1.5, 2.5, 3.5]}, ("name", "name")),
    ({"id": ["11", "12", "13"], "district": ["11-Sault", "12-Saint", "13-Ahuntsic"]}, ("id", "district")),
    ({"STATEFP": ["08", "08", "49"], "GEOID": ["08001", "08003", "49001"], "NAME": ["Adams", "Alamosa", "Beaver"],
      "ALAND": [3021, 1871, 6700], "AWATER": [1, 2, 3]}, ("GEOID", "NAME")),
    ({"population": [10, 20, 30], "code": [101, 102, 103], "county": ["A", "B", "C"]}, ("code", "county")),
    ({"shape_area": [0.5, 0.7, 0.9], "label": ["p", "q", "r"]}, ("label", "label")),
])
def test_ids_and_names_guessed_as_a_person_would(columns, expected):
    frame = gpd.GeoDataFrame(columns, geometry=[box(i, 0, i + 1, 1) for i in range(3)], crs="EPSG:4326")
    guess = guess_columns(frame)
    assert (guess.id, guess.name) == expected
    assert "pop" not in guess.id and "area" not in guess.id.lower()


def test_no_id_column_is_refused_in_words():
    frame = gpd.GeoDataFrame({"pop_est": [1, 2], "area_km2": [3.5, 4.5]}, geometry=[box(0, 0, 1, 1), box(1, 0, 2, 1)])
    with pytest.raises(ValueError, match=r"no column of the layer can be its region ids .*give the id column"):
        guess_columns(frame)


def test_a_file_without_id_gets_the_guessed_columns(tmp_path):
    path = tmp_path / "countries.geojson"
    natural_earth_like().to_file(path)
    layer = Regions.from_file(path)
    assert list(layer.table()["id"]) == sorted(COUNTRIES) and set(layer.table()["name"]) == set(COUNTRIES)


def test_duplicate_ids_merge_with_a_warning_naming_them(tmp_path):
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        layer = Regions.from_frame(natural_earth_like(), id="iso_a3")      # the name guessed: "name"
    text = " ".join(str(w.message) for w in said if issubclass(w.category, RegionRepairWarning))
    assert "'-99' (5 features: France, Norway, Somaliland, Kosovo, N. Cyprus)" in text
    assert "unique as the id" in text and len(layer.table()) == 4


def test_answer_regions_takes_a_geodataframe_or_a_path(tmp_path):
    rng = np.random.default_rng(3)
    pts = np.column_stack([rng.uniform(0, 80, 4000), rng.uniform(0, 9, 4000)])
    rel = pv.build(pts, pv.Domain(0, 0, 80, 10), "quadtree", 1.0, seed=5, height=4)
    gdf = natural_earth_like()
    path = tmp_path / "countries.geojson"
    gdf.to_file(path)
    by_regions = rel.answer_regions(Regions.from_frame(gdf, id="name"))
    for given in (rel.answer_regions(gdf), rel.answer_regions(path), rel.answer_regions(str(path), id="name")):
        pd.testing.assert_frame_equal(given, by_regions)
    with pytest.raises(ValueError, match="a GeoDataFrame or the path of a layer file"):
        rel.answer_regions([1, 2, 3])


def test_the_two_region_csvs_share_one_schema_rounded_for_people(tmp_path, capsys):
    rng = np.random.default_rng(4)
    pd.DataFrame({"lon": rng.uniform(0, 80, 3000), "lat": rng.uniform(0, 9, 3000)}).to_csv(tmp_path / "p.csv",
                                                                                          index=False)
    layer = tmp_path / "countries.geojson"
    natural_earth_like().to_file(layer)
    assert main(["regions", str(tmp_path / "p.csv"), "--lon", "lon", "--lat", "lat", "--regions", str(layer),
                 "--out", str(tmp_path / "counts.csv")]) == 0
    assert "ids from column 'name' (unique), names from the same column (guessed" in capsys.readouterr().err
    rel = pv.build(pd.read_csv(tmp_path / "p.csv")[["lon", "lat"]].to_numpy(), pv.Domain(0, 0, 80, 10), "quadtree",
                   1.0)
    rel.save(tmp_path / "r.parquet")
    assert main(["regions", "--release", str(tmp_path / "r.parquet"), "--regions", str(layer), "--id", "name",
                 "--out", str(tmp_path / "answers.csv")]) == 0
    counts, answers = pd.read_csv(tmp_path / "counts.csv"), pd.read_csv(tmp_path / "answers.csv")
    common = ["id", "name", "level", "parent", "estimate", "low_95", "high_95", "standard_error"]
    assert list(counts.columns) == [*common, "noisy", "source"]
    assert list(answers.columns) == [*common, "uniformity_error", "domain_share"]
    text = (tmp_path / "answers.csv").read_text() + (tmp_path / "counts.csv").read_text()
    longest = max(len(f.split(".")[1]) for f in text.replace("\n", ",").split(",") if f.replace(".", "").replace(
        "-", "").isdigit() and "." in f)
    assert longest <= 3                                    # no 16-digit estimates: at most 0.001 (shares)
    assert (counts["estimate"] == counts["estimate"].round()).all()


def test_people_table_keeps_the_engine_table_and_orders_the_extra_columns():
    engine = pd.DataFrame({"id": ["a"], "name": ["A"], "level": [0], "parent": [None], "estimate": [12.3456789],
                           "standard_error": [3.14159], "uniformity_error": [0.123456], "low_95": [5.55555],
                           "high_95": [19.99999], "domain_share": [0.98765]})
    before = engine.copy()
    out = people_table(engine)
    assert engine.equals(before)
    assert list(out.columns)[4:] == ["estimate", "low_95", "high_95", "standard_error", "uniformity_error",
                                     "domain_share"]
    assert out.iloc[0]["estimate"] == 12.3 and out.iloc[0]["domain_share"] == 0.988
