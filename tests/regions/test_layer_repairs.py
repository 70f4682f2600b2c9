"""Region layers people have: what can be repaired is repaired with a warning naming the regions, the
rest refused in one line naming the region; no geometry library's exception reaches the user."""
from __future__ import annotations

import math
from pathlib import Path

import geopandas as gpd
import pytest
import shapely

from psdviz.regions import Regions
from psdviz.regions.layer import RegionRepairWarning

VEGA = Path(__file__).resolve().parents[2] / ".cache" / "vega-datasets"


def _layer(shapes: dict) -> gpd.GeoDataFrame:
    return gpd.GeoDataFrame({"id": list(shapes)}, geometry=list(shapes.values()), crs=None)


def test_a_self_intersecting_polygon_is_made_valid_and_named():
    bowtie = shapely.Polygon([(0, 0), (2, 2), (2, 0), (0, 2), (0, 0)])
    with pytest.warns(RegionRepairWarning, match="made valid: 'bow'"):
        r = Regions.from_frame(_layer({"bow": bowtie, "sq": shapely.box(3, 0, 4, 1)}), id="id", crs=None)
    assert shapely.is_valid(r.geometry).all() and r.frame.shape[0] == 2


def test_coordinates_that_are_not_numbers_are_refused_in_one_line():
    nan = shapely.Polygon([(0, 0), (1, 0), (1, math.nan), (0, 0)])
    with pytest.raises(ValueError, match="region 'n' has a coordinate that is not a finite number"):
        Regions.from_frame(_layer({"n": nan, "sq": shapely.box(3, 0, 4, 1)}), id="id", crs=None)


def test_a_region_with_no_area_is_refused_and_one_with_no_shape_skipped():
    flat = shapely.Polygon([(0, 0), (1, 1), (2, 2), (0, 0)])
    with pytest.raises(ValueError, match="region 'flat' has no area"), pytest.warns(RegionRepairWarning):
        Regions.from_frame(_layer({"flat": flat, "sq": shapely.box(3, 0, 4, 1)}), id="id", crs=None)
    with pytest.warns(RegionRepairWarning, match="no shape in the file and were skipped: 'gone'"):
        r = Regions.from_frame(_layer({"gone": shapely.Polygon(), "sq": shapely.box(3, 0, 4, 1)}), id="id", crs=None)
    assert list(r.ids) == ["sq"]


def test_features_sharing_an_id_are_merged_and_small_overlaps_cut():
    gdf = gpd.GeoDataFrame({"id": ["a", "a", "b"]}, geometry=[shapely.box(0, 0, 1, 1), shapely.box(1, 0, 2, 1),
                                                              shapely.box(2, 0, 3, 1)], crs=None)
    with pytest.warns(RegionRepairWarning, match="merged into one region each: 'a'"):
        r = Regions.from_frame(gdf, id="id", crs=None)
    assert sorted(r.ids) == ["a", "b"] and math.isclose(float(shapely.area(r.geometry[0])), 2.0)
    overlap = _layer({"big": shapely.box(0, 0, 10, 10), "small": shapely.box(9.9, 0, 10.9, 1)})
    with pytest.warns(RegionRepairWarning, match="cut apart .*'small' from 'big'"):
        r = Regions.from_frame(overlap, id="id", crs=None)
    assert float(shapely.area(shapely.intersection(r.geometry[0], r.geometry[1]))) < 1e-9
    inside = _layer({"lake": shapely.box(0, 0, 10, 10), "county": shapely.box(9, 0, 11, 2)})   # 50 % of the county
    with pytest.warns(RegionRepairWarning, match="'county' from 'lake'"):
        r = Regions.from_frame(inside, id="id", crs=None)
    areas = dict(zip(r.ids, shapely.area(r.geometry)))
    assert math.isclose(areas["county"], 4.0) and math.isclose(areas["lake"], 98.0)   # the smaller stays whole
    twice = _layer({"state": shapely.box(0, 0, 2, 2), "county": shapely.box(0, 0, 2, 1.5)})   # 75 % of the larger
    with pytest.raises(ValueError, match="regions 'county' and 'state' of level 0 overlap"):
        Regions.from_frame(twice, id="id", crs=None)


@pytest.mark.skipif(not (VEGA / "us-10m.json").is_file(), reason="vega-datasets not fetched")
def test_vega_topojson_objects_load_or_say_why_in_one_line():
    with pytest.warns(RegionRepairWarning, match="'11' from '51'"):
        states = Regions.from_file(VEGA / "us-10m.json", id="id", layer="states")
    assert states.frame.shape[0] >= 50
    assert Regions.from_file(VEGA / "world-110m.json", id="id", layer="countries").frame.shape[0] > 150
    with pytest.warns(RegionRepairWarning, match="'26083' from '26000'"):   # a county inside a water pseudo-region
        counties = Regions.from_file(VEGA / "us-10m.json", id="id", layer="counties")
    assert counties.frame.shape[0] > 3_100
    geoms = counties.geometry
    a, b = shapely.STRtree(geoms).query(geoms, predicate="intersects")
    a, b = a[a < b], b[a < b]
    inter = shapely.area(shapely.intersection(geoms[a], geoms[b]))
    smaller = shapely.area(geoms[a]).clip(max=shapely.area(geoms[b]))
    assert (inter <= 1e-3 * smaller + 1e-12).all()                     # no two counties overlap once repaired


def test_a_geopackage_with_two_layers_asks_which(tmp_path):
    a = gpd.GeoDataFrame({"id": ["x"]}, geometry=[shapely.box(0, 0, 1, 1)], crs=4326)
    a.to_file(tmp_path / "two.gpkg", layer="one")
    a.to_file(tmp_path / "two.gpkg", layer="two")
    with pytest.raises(ValueError, match=r"two.gpkg holds 2 layers \['one', 'two'\]: pass layer="):
        Regions.from_file(tmp_path / "two.gpkg", id="id")
    assert list(Regions.from_file(tmp_path / "two.gpkg", id="id", layer="two").ids) == ["x"]


@pytest.mark.skipif(not (VEGA / "us-10m.json").is_file(), reason="vega-datasets not fetched")
def test_the_cli_says_the_repairs_in_one_line_each(tmp_path, capsys):
    import numpy as np
    import pandas as pd

    from psdviz.cli import main
    rng = np.random.default_rng(0)
    pd.DataFrame({"lon": rng.uniform(-120, -75, 3000), "lat": rng.uniform(30, 45, 3000)}).to_csv(
        tmp_path / "p.csv", index=False)
    code = main(["regions", str(tmp_path / "p.csv"), "--lon", "lon", "--lat", "lat", "--regions",
                 str(VEGA / "us-10m.json"), "--layer", "states", "--id", "id", "--out", str(tmp_path / "c.csv")])
    err = capsys.readouterr().err
    assert code == 0 and "psdviz regions: warning: overlapping regions of one level were cut apart" in err
    assert "Traceback" not in err and "RegionRepairWarning" not in err


def test_an_analyst_gets_region_counts_from_a_release_file(tmp_path, capsys):
    """psdviz regions --release: region estimates and whole intervals from a published spatial release, no
    data read and no epsilon spent."""
    import numpy as np

    import psdviz as pv
    from psdviz.cli import main
    rng = np.random.default_rng(1)
    pts = np.column_stack([rng.uniform(-120, -75, 20_000), rng.uniform(30, 45, 20_000)])
    rel = pv.build(pts, pv.Domain(-125, 24, -66, 50), "quadtree", 1.0)
    path = rel.save(tmp_path / "r.parquet", crs="EPSG:4326")
    assert main(["regions", "--release", str(path), "--regions", "us-states", "--out", str(tmp_path / "c.csv")]) == 0
    assert "no epsilon spent" in capsys.readouterr().out
    import pandas as pd
    c = pd.read_csv(tmp_path / "c.csv", dtype={"id": str})
    assert {"estimate", "low_95", "high_95", "standard_error", "uniformity_error"} <= set(c.columns)
    answered = c["domain_share"] > 0                     # Hawaii and Alaska lie outside the lower 48's domain
    shown = c["estimate"].clip(lower=0)                  # a count: the interval starts at 0 at the lowest
    assert (c["low_95"] <= shown)[answered].all() and (shown <= c["high_95"])[answered].all()
    assert (c["low_95"] >= 0)[answered].all()
    assert c.loc[~answered, "estimate"].isna().all() and {"Hawaii", "Alaska"} <= set(c.loc[~answered, "name"])
    assert main(["regions", "--regions", "us-states", "--out", str(tmp_path / "d.csv")]) == 2
    assert "or --release FILE" in capsys.readouterr().err


def test_a_merged_region_is_named_for_every_feature_it_holds():
    """Five countries sharing the id "-99" become one region: named for them all, not for whichever came first."""
    names = ["Norway", "France", "N. Cyprus", "Somaliland", "Kosovo"]
    gdf = gpd.GeoDataFrame({"iso": ["-99"] * 5 + ["DEU"], "name": names + ["Germany"]},
                           geometry=[shapely.box(i, 0, i + 1, 1) for i in range(6)], crs=None)
    with pytest.warns(RegionRepairWarning, match="'-99' \\(5 features: Norway, France"):
        r = Regions.from_frame(gdf, id="iso", name="name", crs=None)
    named = dict(zip(r.ids, r.frame["name"]))
    assert named["-99"] == "Norway + France + 3 more" and named["DEU"] == "Germany"
