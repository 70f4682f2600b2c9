"""One release protocol for every product line (spatial releases, regions, count of counts, sparse summaries,
counts over time): one header, build, report, save, load, answer; and a release cannot be changed after it is
built."""
from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

import psdviz as pv
from psdviz import coco, sparse
from psdviz.core.privacy_unit import PrivacyUnit
from psdviz.kernel.protocol import PrivateRelease

RNG = np.random.default_rng(8)
PTS = RNG.random((3000, 2))
RECTS = np.array([[0.1, 0.1, 0.6, 0.5], [0.0, 0.0, 1.0, 1.0]])


def _spatial():
    return pv.build(PTS, pv.Domain(0, 0, 1, 1), method="quadtree", epsilon=0.5, height=4)


def _coco():
    h = coco.Hierarchy.from_paths([("NY", "JFK"), ("NY", "LGA"), ("FL", "MIA")], root="USA")
    groups = RNG.integers(0, 300, 2000)
    where = np.array(["JFK", "LGA", "MIA"])[groups % 3]
    return coco.publish(coco.group_records(groups, where, h, max_size=20), h, method="hc", epsilon=[0.3, 0.3, 0.4])


def _sparse():
    cells = np.sort(RNG.choice(10_000, 300, replace=False))
    return sparse.summarize(sparse.make_table(cells, RNG.integers(1, 50, 300), 10_000), method="filter-priority",
                            epsilon=1.0)


def _answer(rel):
    if isinstance(rel, pv.Release):
        return rel.answer(RECTS)
    if isinstance(rel, coco.CocoRelease):
        return rel.histograms
    return rel.range_sums([0, 100], [10_000, 5_000])


@pytest.mark.parametrize("make", [_spatial, _coco, _sparse], ids=["spatial", "coco", "sparse"])
def test_every_product_line_answers_the_protocol(make, tmp_path):
    rel = make()
    assert isinstance(rel, PrivateRelease) and isinstance(rel.privacy_unit, PrivacyUnit)
    assert rel.epsilon == pytest.approx(rel.ledger.total())
    rep = rel.report()
    text = json.dumps(rep, default=str)
    assert rep["epsilon"] == rel.epsilon and str(rel.privacy_unit) == rep["privacy_unit"]
    audit = rel.audit()
    assert "not differentially private" in audit["note"]
    owner_key = {pv.Release: "rows_used", coco.CocoRelease: "records", sparse.SparseRelease: "nonzero_cells"}
    assert owner_key[type(rel)] in audit and f'"{owner_key[type(rel)]}"' not in text   # never in the report
    path = rel.save(tmp_path / f"r{'.parquet' if isinstance(rel, pv.Release) else '.json'}")
    back = pv.load_release(path)
    assert type(back) is type(rel) and back.report()["ledger"] == rep["ledger"]
    np.testing.assert_array_equal(_answer(back), _answer(rel))
    assert "not available" in str(back.audit())                                # files never hold the audit


@pytest.mark.parametrize("make", [_spatial, _coco, _sparse], ids=["spatial", "coco", "sparse"])
def test_a_release_cannot_be_changed_after_it_is_built(make):
    rel = make()
    with pytest.raises(dataclasses.FrozenInstanceError):
        rel.notes = ("edited",)
    with pytest.raises(TypeError, match="cannot be changed"):
        rel.params["x"] = 1
    with pytest.raises(AttributeError):
        rel.notes.append("edited")
    with pytest.raises(ValueError, match="belongs to a built release"):
        rel.ledger.spend("more", 0.0, "geometric")
    with pytest.raises(AttributeError, match="cannot be changed"):
        rel.ledger.budget = 99.0
    arrays = ([rel.tree.noisy, rel.tree.est, rel.tree.count_eps] if isinstance(rel, pv.Release)
              else [rel.histograms, rel.groups] if isinstance(rel, coco.CocoRelease) else [rel.values, rel.weights])
    for arr in arrays:
        with pytest.raises(ValueError, match="read-only"):
            arr[0] = 12345


def test_a_spatial_release_tree_cannot_be_reassigned_and_changes_make_new_releases():
    rel = _spatial()
    with pytest.raises(AttributeError, match="released tree cannot be changed"):
        rel.tree.est = rel.tree.noisy
    noted = rel.with_notes("a teaching remark")
    assert noted is not rel and noted.notes[-1] == "a teaching remark" and "a teaching remark" not in rel.notes
    np.testing.assert_array_equal(noted.answer(RECTS), rel.answer(RECTS))


def test_user_level_conversion_goes_through_the_ledger():
    users = np.arange(PTS.shape[0]) % 700
    rel = pv.build(PTS, pv.Domain(0, 0, 1, 1), "quadtree", 1.0, height=3, user=users, max_points_per_user=3)
    assert rel.privacy_unit == PrivacyUnit("user", 3) == "one user, at most 3 points"
    assert rel.ledger.total() == pytest.approx(1.0)
    assert all(s["sensitivity"] == 3 and "per user: 3 points" in s["note"] for s in rel.ledger.records())
    assert rel.tree.path_epsilons().max() == pytest.approx(1.0)


def test_load_release_refuses_what_is_not_a_release(tmp_path):
    (tmp_path / "x.json").write_text('{"format": "someone-else", "a": 1}')
    with pytest.raises(ValueError, match="format 'someone-else'"):
        pv.load_release(tmp_path / "x.json")
    (tmp_path / "y.txt").write_text("hello")
    with pytest.raises(ValueError, match="not a psdviz release file"):
        pv.load_release(tmp_path / "y.txt")
    with pytest.raises(ValueError, match="cannot read"):
        pv.load_release(tmp_path / "missing.parquet")
    bad = json.loads(_coco().save(tmp_path / "c.json").read_text())
    bad["histograms"]["count"][0] = -5
    (tmp_path / "c.json").write_text(json.dumps(bad))
    with pytest.raises(ValueError, match="damaged or was altered"):
        pv.load_release(tmp_path / "c.json")


def _regions():
    gpd = pytest.importorskip("geopandas")
    shapely = pytest.importorskip("shapely")
    from psdviz.regions import Regions
    layer = Regions.from_frame(gpd.GeoDataFrame({"id": ["w", "e"]}, geometry=[shapely.box(0, 0, 0.5, 1),
                                                                            shapely.box(0.5, 0, 1, 1)]),
                               id="id", crs=None)
    return pv.build_regions(PTS, layer, epsilon=1.0, domain=pv.Domain(0, 0, 1, 1))


def _over_time():
    times = np.datetime64("2021-01-01") + (RNG.random(PTS.shape[0]) * 20 * 86400).astype("timedelta64[s]")
    return pv.build_over_time(PTS, pv.Domain(0, 0, 1, 1), time=times, span=("2021-01-01", "2021-01-21"), window="1d",
                              epsilon=1.0, grid_level=2)


KINDS = {"spatial": _spatial, "regions": _regions, "count-of-counts": _coco, "sparse": _sparse, "over-time": _over_time}


@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_holds_one_header_type_that_writes_its_report_head(kind):
    """One type, ReleaseHeader, states what every kind shares, under one name each, and writes the head of every
    kind's report: the same keys, in the same order, with the same types; each kind's own facts come after it."""
    from psdviz.kernel.header import HEADER, ReleaseHeader
    rel = KINDS[kind]()
    head = rel.header
    assert isinstance(head, ReleaseHeader) and head.kind == rel.kind == kind
    for fact in ("method", "private", "epsilon", "ledger", "randomness", "privacy_unit", "notes"):
        assert getattr(head, fact) == getattr(rel, fact), fact                 # one name for each fact
    rep = rel.report()
    assert tuple(rep)[:len(HEADER)] == HEADER and {k: rep[k] for k in HEADER} == head.report()
    assert isinstance(rep["method"], str) and rep["private"] is True
    assert isinstance(rep["parameters"], dict) and isinstance(rep["ledger"], list)
    assert "params" not in rep and "points_report" not in rep and "input_report" not in rep
    assert isinstance(rel, PrivateRelease) and rel.input_report    # one name for the owner's counts
    with pytest.raises(dataclasses.FrozenInstanceError):
        head.method = "other"                                        # type: ignore[misc]


def test_a_spatial_release_keeps_points_report_as_the_old_name_of_input_report():
    rel = _spatial()
    with pytest.warns(DeprecationWarning, match="input_report"):
        old = rel.points_report
    assert old == rel.input_report and rel.input_report["rows_in"] == PTS.shape[0]
    assert "input_report" in {f.name for f in dataclasses.fields(rel)}


@pytest.mark.parametrize("kind", ["regions", "count-of-counts", "sparse", "over-time"])
def test_a_json_file_written_with_params_still_loads(kind, tmp_path):
    """Files written before the report's key was ``parameters`` hold ``params``; every JSON kind reads them
    through the one header reader."""
    rel = KINDS[kind]()
    doc = json.loads(rel.save(tmp_path / "s.json", allow_seeded=True).read_text())
    doc["report"]["params"] = doc["report"].pop("parameters")           # the name files had before
    (tmp_path / "old.json").write_text(json.dumps(doc))
    back = pv.load_release(tmp_path / "old.json")
    assert back.header.report() == pv.load_release(tmp_path / "s.json").header.report()
    assert back.report()["parameters"] == rel.report()["parameters"]


def test_files_hold_the_privacy_unit_as_data_and_version_1_files_still_load(tmp_path):
    """Version 2 files carry the unit as {"kind", "limit"}; a version 1 file (its sentence) still loads, for
    the spatial release and the region release."""
    import pyarrow.parquet as pq

    from psdviz.core.privacy_unit import PrivacyUnit
    users = np.arange(PTS.shape[0]) % 700
    rel = pv.build(PTS, pv.Domain(0, 0, 1, 1), "quadtree", 1.0, height=3, user=users, max_points_per_user=3)
    path = rel.save(tmp_path / "u.parquet")
    table = pq.read_table(path)
    meta = dict(table.schema.metadata)
    doc = json.loads(meta[b"psdviz"])
    assert doc["format_version"] == 2 and doc["privacy_unit"] == {"kind": "user", "limit": 3}
    doc.update(format_version=1, privacy_unit="one user, at most 3 points")
    meta[b"psdviz"] = json.dumps(doc).encode()
    pq.write_table(table.replace_schema_metadata(meta), tmp_path / "v1.parquet")
    old = pv.load_release(tmp_path / "v1.parquet")
    assert old.privacy_unit == PrivacyUnit("user", 3)
    np.testing.assert_array_equal(old.answer(RECTS), rel.answer(RECTS))
    regions = _regions()
    doc = json.loads(regions.save(tmp_path / "r.json").read_text())
    assert doc["format_version"] == 2 and doc["privacy_unit"] == {"kind": "point", "limit": 1}
    doc.update(format_version=1, privacy_unit="one point")
    (tmp_path / "r1.json").write_text(json.dumps(doc))
    assert pv.load_release(tmp_path / "r1.json").privacy_unit == PrivacyUnit("point")
    for bad in ({"kind": "user", "limit": 2.5}, {"kind": "crowd", "limit": 1}, {"kind": "point"}, True):
        with pytest.raises(ValueError):
            PrivacyUnit.from_data(bad)
