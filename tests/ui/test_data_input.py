"""Loaders: each case below was accepted wrongly or refused before."""
from __future__ import annotations

import io

import geopandas as gpd
import numpy as np
import pandas as pd
import pytest
from shapely.geometry import MultiPoint, Point

from psdviz.ui import data_input as di


def test_no_matching_column_name_asks_instead_of_taking_column_zero():
    cols = ["a", "b", "c"]
    assert di.guess_column(cols, di.X_NAMES) is None and di.guess_column(cols, di.Y_NAMES) is None
    assert di.guess_column(["id", "LON ", "lat"], di.X_NAMES) == 1


def test_same_column_for_x_and_y_is_refused():
    df = pd.DataFrame({"a": [1.0, 2.0]})
    with pytest.raises(ValueError, match="same column"):
        di.pick_points(df, "a", "a")


def test_byte_order_mark_does_not_hide_the_lon_header():
    df = di.read_table("p.csv", "\ufefflon,lat\n1,2\n3,4\n".encode("utf-8"))
    assert list(df.columns) == ["lon", "lat"]


def test_one_column_csv_is_not_split_on_a_letter():
    df = di.read_table("p.csv", b"value\nalpha\nbeta\ngamma\n")
    assert list(df.columns) == ["value"] and len(df) == 3


def test_semicolon_and_tab_are_sniffed():
    assert list(di.read_table("p.csv", b"lon;lat\n1;2\n3;4\n").columns) == ["lon", "lat"]
    assert list(di.read_table("p.csv", b"lon\tlat\n1\t2\n3\t4\n").columns) == ["lon", "lat"]


def test_ragged_rows_are_refused():
    with pytest.raises(ValueError, match="ragged"):
        di.read_table("p.csv", b"lon,lat,name\n1,2,a\n3,4\n5,6,c\n")
    with pytest.raises(ValueError, match="ragged"):
        di.read_table("p.tsv", b"lon\tlat\n1\t2\t9\n3\t4\n")


def test_booleans_are_not_coordinates():
    df = pd.DataFrame({"lon": [True, False], "lat": [1.0, 2.0]})
    with pytest.raises(ValueError, match="true/false"):
        di.pick_points(df, "lon", "lat")


def _gpkg(gdf: gpd.GeoDataFrame) -> bytes:
    buf = io.BytesIO()
    gdf.to_file(buf, driver="GPKG")
    return buf.getvalue()


def test_projected_geopackage_is_reprojected_to_lon_lat():
    pts = gpd.GeoDataFrame({"name": ["paris"]}, geometry=[Point(2.3522, 48.8566)], crs=4326).to_crs(3857)
    df = di.read_table("p.gpkg", _gpkg(pts))
    assert df["lon"].iloc[0] == pytest.approx(2.3522, abs=1e-6)
    assert df["lat"].iloc[0] == pytest.approx(48.8566, abs=1e-6)


def test_multipoints_are_exploded():
    g = gpd.GeoDataFrame({"k": [1, 2]}, geometry=[MultiPoint([(0, 0), (1, 1), (2, 2)]), Point(5, 5)], crs=4326)
    df = di.read_table("p.geojson", g.to_json().encode())
    assert len(df) == 4
    np.testing.assert_allclose(np.sort(df["lon"].to_numpy()), [0, 1, 2, 5])


USER_SCRIPT = """
import pandas as pd
import streamlit as st
from psdviz.ui import data_input as di
df = pd.DataFrame({"lon": [1.0, 2.0, 3.0], "lat": [1.0, 2.0, 3.0], "person": ["a", "b", USER3]})
try:
    user, k = di.choose_user(df, list(df.columns), ("lon", "lat"))
    st.write(f"unit={'none' if user is None else list(user)}|k={k}")
except ValueError as exc:
    st.error(str(exc))
"""


@pytest.mark.parametrize("third,expect", [('"a"', "unit=['a', 'b', 'a']|k=3"), ("None", "empty values")])
def test_user_column_picker_gives_ids_and_k_or_an_error(third, expect):
    from streamlit.testing.v1 import AppTest
    at = AppTest.from_string(USER_SCRIPT.replace("USER3", third), default_timeout=60).run()
    assert at.markdown[0].value == "unit=none|k=None"       # no user column: point-level, as before
    at.selectbox(key="user_col").select("person").run()
    at.number_input(key="user_k").set_value(3).run()
    shown = (at.markdown[0].value if at.markdown else "") + "".join(e.value for e in at.error)
    assert expect in shown


def test_empty_and_binary_files_say_what_to_fix():
    with pytest.raises(ValueError, match="is empty: upload a table with a header row"):
        di.read_table("e.csv", b"  \n")
    garbage = bytes(np.random.default_rng(0).integers(0, 256, 4000, dtype=np.uint8))
    with pytest.raises(ValueError, match="is not UTF-8 text"):
        di.read_table("g.csv", garbage)
    assert len(di.read_table("ok.csv", b"lon,lat\n1,2\n")) == 1


def test_only_an_empty_field_is_missing_na_is_namibia():
    df = di.read_table("p.csv", b"lon,lat,country,user\n17.1,-22.6,NA,NA\n2.3,48.9,FR,null\n1.0,,,u3\n")
    assert df["country"].tolist()[:2] == ["NA", "FR"] and df["user"].tolist() == ["NA", "null", "u3"]
    xy, bad = di.pick_points(df, "lon", "lat")
    assert np.isnan(xy[2, 1]) and bad == 0          # the empty latitude is missing, not a non-number


DOMAIN_SCRIPT = """
import streamlit as st
from psdviz.ui import data_input as di
if st.session_state.get("draw", True):
    d, src = di._choose_domain(None, "upload")
    st.write(f"{d.xmin:g},{d.ymin:g},{d.xmax:g},{d.ymax:g}|{src}")
"""


def test_typed_bounds_and_presets_survive_a_run_that_does_not_draw_them():
    from streamlit.testing.v1 import AppTest
    at = AppTest.from_string(DOMAIN_SCRIPT, default_timeout=60).run()
    assert at.markdown[0].value == "-180,-90,180,90|world"
    at.radio(key="upload_domain").set_value("typed bounds").run()
    at.number_input(key="upload_xmin").set_value(-10.0).run()
    at.number_input(key="upload_ymax").set_value(60.0).run()
    assert at.markdown[0].value == "-10,-90,180,60|typed bounds"
    at.session_state["draw"] = False          # a failed upload: the domain widgets are not drawn in this run
    at.run()
    at.session_state["draw"] = True
    at.run()
    assert at.markdown[0].value == "-10,-90,180,60|typed bounds"
    at.radio(key="upload_domain").set_value(di.PRESET).run()
    assert at.markdown[0].value == "-124.74,24.51,-66.98,49.39|USA: the lower 48 states and DC"
    at.selectbox(key="upload_preset").set_value("Country: Namibia").run()
    xmin, ymin, xmax, ymax = map(float, at.markdown[0].value.split("|")[0].split(","))
    assert 11 < xmin < 12 and -30 < ymin < -28 and 25 < xmax < 26 and -17.5 < ymax < -16.5   # Namibia
