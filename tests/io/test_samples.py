"""The bundled GeoNames sample and the sample registry (psdviz.io.samples)."""
import numpy as np
import pytest

import psdviz as pv
from psdviz.io.samples import SAMPLES, Sample, get_sample, load_sample, register_sample, sample_points


def test_geonames_sample_shape_and_columns():
    df = load_sample("geonames")
    assert list(df.columns) == ["lon", "lat", "country_code", "admin1"]
    assert 140_000 <= len(df) <= 150_000
    assert df[["lon", "lat"]].notna().all().all()


def test_geonames_text_columns_keep_namibia_and_blanks():
    df = load_sample("geonames")
    assert (df["country_code"] == "NA").sum() > 0          # Namibia is not a missing value
    assert df["country_code"].isna().sum() == 0
    assert df["country_code"].str.len().eq(2).all()


def test_geonames_points_inside_declared_world_domain():
    s = SAMPLES["geonames"]
    assert s.domain == pv.Domain.world()
    xy = sample_points("geonames")
    assert xy.shape[1] == 2 and xy.dtype == np.float64
    assert s.domain.contains(xy).all()


def test_unknown_sample_and_duplicate_registration_are_refused():
    with pytest.raises(ValueError, match="unknown sample"):
        get_sample("nope")
    with pytest.raises(ValueError, match="already registered"):
        register_sample(Sample(name="geonames", filename="x.csv", description="dup"))
