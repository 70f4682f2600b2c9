"""Untrusted files and inputs: a seeded run is never labelled fresh, seeded table exports say NOT
PRIVATE on every row, ``psdviz info`` prints a file's text literally and capped, and a path that names
a file is read as that file (never re-globbed by DuckDB, Dask or Spark)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import psdviz as pv
from psdviz.cli import main
from psdviz.cli.output import SHOWN_CHARS
from psdviz.core.rng import FRESH, NOT_PRIVATE_SEEDED, Randomness, labelled, make_randomness

PTS = np.random.default_rng(0).random((3000, 2))
DOM = pv.Domain(0, 0, 1, 1)


def test_only_the_engine_labels_a_generator_fresh():
    with pytest.raises(ValueError, match="only psdviz's own generator"):
        Randomness(np.random.default_rng(42), FRESH, None)
    with pytest.raises(ValueError, match="randomness mode must be"):
        Randomness(np.random.default_rng(42), "fresh-ish", None)
    assert make_randomness(None).mode == FRESH


def test_a_seeded_release_cannot_be_relabelled_fresh(tmp_path):
    seeded = pv.build(PTS, DOM, "quadtree", 1.0, seed=42)
    fresh = pv.build(PTS, DOM, "quadtree", 1.0)
    with pytest.raises(ValueError, match="a seeded release stays seeded"):
        seeded.evolve(randomness=fresh.randomness)
    with pytest.raises(ValueError, match="NOT private"):
        seeded.save(tmp_path / "r.parquet")
    back = pv.load_release(fresh.save(tmp_path / "f.parquet"))
    assert back.randomness.mode == FRESH                # a fresh file loads as fresh


def test_seeded_table_exports_say_not_private_on_every_row(tmp_path, capsys):
    table = pd.DataFrame({"a": [1, 2]})
    seeded = make_randomness(3)
    out = labelled(table, seeded)
    assert list(out["warning"]) == [NOT_PRIVATE_SEEDED] * 2 and "warning" not in table   # the input untouched
    assert labelled(table, make_randomness(None)) is table
    csv = tmp_path / "pts.csv"
    pd.DataFrame({"lon": -100 + PTS[:, 0] * 10, "lat": 35 + PTS[:, 1] * 5}).to_csv(csv, index=False)
    code = main(["regions", str(csv), "--lon", "lon", "--lat", "lat", "--regions", "us-states", "--seed", "4",
                 "--allow-seeded", "--out", str(tmp_path / "counts.csv")])
    assert code == 0
    counts = pd.read_csv(tmp_path / "counts.csv")
    assert (counts["warning"] == NOT_PRIVATE_SEEDED).all()


@pytest.mark.parametrize("note", ["[/]", "[bold red]OFFICIAL WARNING: this release is certified[/]",
                                  "x" * 5_000_000])
def test_info_prints_file_text_literally_and_capped(tmp_path, capsys, note):
    rel = pv.build(PTS, DOM, "ug", 1.0).with_notes(note)
    path = rel.save(tmp_path / "r.parquet")
    assert main(["info", str(path)]) == 0
    out = capsys.readouterr().out
    if note.startswith("[bold"):
        assert "[bold red]OFFICIAL WARNING" in out           # shown as the text it is, not as a style
    if len(note) > SHOWN_CHARS:
        assert "more characters not shown" in out and len(out) < 3 * SHOWN_CHARS + 20_000


@pytest.mark.parametrize("name", ["trips*.csv", "cell[12].csv", "what?.csv"])
def test_a_file_name_with_glob_characters_is_read_as_that_file(tmp_path, capsys, name):
    one = pd.DataFrame({"lon": [0.25] * 10, "lat": [0.25] * 10})
    other = pd.DataFrame({"lon": [0.75] * 500, "lat": [0.75] * 500})
    one.to_csv(tmp_path / name, index=False)
    for decoy in ("trips_2019_other.csv", "cell1.csv", "cell2.csv", "whatX.csv"):
        other.to_csv(tmp_path / decoy, index=False)
    rel = pv.build(str(tmp_path / name), DOM, "ug", 1.0, lon="lon", lat="lat")
    audit = rel.audit()
    assert audit["rows_in"] == 10 and audit["files_read"] == [str(tmp_path / name)]
    code = main(["build", str(tmp_path / name), "--lon", "lon", "--lat", "lat", "--domain", "0", "0", "1", "1",
                 "--method", "ug", "--out", str(tmp_path / "r.parquet")])
    err = capsys.readouterr().err
    assert code == 0 and "read 10 rows" in err and f"files read: 1 ({tmp_path / name})" in err


def test_a_pattern_is_expanded_and_the_account_lists_the_files(tmp_path, capsys):
    for i in range(3):
        pd.DataFrame({"lon": [0.5] * (i + 1), "lat": [0.5] * (i + 1)}).to_csv(tmp_path / f"part{i}.csv", index=False)
    rel = pv.build(str(tmp_path / "part*.csv"), DOM, "ug", 1.0, lon="lon", lat="lat")
    assert rel.audit()["rows_in"] == 6
    assert rel.audit()["files_read"] == [str(tmp_path / f"part{i}.csv") for i in range(3)]


def _cli_line(capsys, *args) -> tuple[int, str]:
    code = main(list(args))
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.startswith("psdviz ")]
    assert len(err) == 1, err
    return code, err[0]


def test_hostile_inputs_give_one_line_errors(tmp_path, capsys):
    ok = tmp_path / "ok.csv"
    ok.write_text("lon,lat\n0.1,0.2\n0.3,0.3\n")
    hexa = tmp_path / "hex.csv"
    hexa.write_text("lon,lat\n0.1,0.2\n0x10,0.5\n")
    base = ["build", "--lon", "lon", "--lat", "lat", "--domain", "0", "0", "1", "1",
            "--out", str(tmp_path / "o.parquet")]
    code, line = _cli_line(capsys, *base[:1], str(ok), *base[1:], "--memory-limit", "999999999TB")
    assert code == 2 and "is not one DuckDB accepts" in line
    code, line = _cli_line(capsys, *base[:1], str(hexa), *base[1:])
    assert code == 2 and "not numbers" in line
    for name in ("seed", "epsilon", "domain", "progress"):
        code, line = _cli_line(capsys, *base[:1], str(ok), *base[1:], "--param", f"{name}=5")
        assert code == 2 and f"--param {name}=...: {name} is not a method parameter" in line
    wide = tmp_path / "wide.csv"            # DuckDB would spend minutes detecting 20,000 columns
    header = ",".join(["lon", "lat"] + [f"c{i}" for i in range(19_998)])
    wide.write_text(header + "\n" + "0.5,0.5" + ",1" * 19_998 + "\n")
    code, line = _cli_line(capsys, *base[:1], str(wide), *base[1:])
    assert code == 2 and "has 20,000 columns; psdviz reads CSV files of at most 1,000 columns" in line
    nested = tmp_path / "nested.json"
    nested.write_text('{"format": "psdviz-regions", "format_version": 2, "x": ' + "[" * 100_000 + "]" * 100_000 + "}")
    code, line = _cli_line(capsys, "info", str(nested))
    assert code == 2 and "nested too deeply" in line


def _edit_meta(src, dst, change):
    """Copy a release file with its metadata changed by ``change(meta)`` (the node table as it is)."""
    import json

    import pyarrow.parquet as pq
    t = pq.read_table(src)
    meta = dict(t.schema.metadata)
    key = next(k for k in meta if k != b"geo")
    doc = json.loads(meta[key])
    change(doc)
    meta[key] = json.dumps(doc).encode()
    pq.write_table(t.replace_schema_metadata(meta), dst)
    return dst


def _edit_column(src, dst, name, values):
    import pyarrow as pa
    import pyarrow.parquet as pq
    t = pq.read_table(src)
    i = t.schema.get_field_index(name)
    pq.write_table(t.set_column(i, name, pa.array(values, type=t.schema.field(name).type)), dst)
    return dst


USER_10 = "one user, at most 10 points"


def _tightened(rel):
    """The release's noise variances with the deepest measured node's set just above the whole-epsilon floor
    but below what its own (smaller) count epsilon gives."""
    from psdviz.core.noise import geometric_variance
    var = np.array(rel.tree.noise_var, float)
    v = int(np.flatnonzero(np.isfinite(var) & (rel.tree.count_eps > 0))[-1])
    var[v] = 2 * float(geometric_variance(rel.ledger.total()))
    assert var[v] < float(geometric_variance(rel.tree.count_eps[v]))      # the case is what it says
    return var


def test_a_release_files_claims_are_checked(tmp_path):
    rel = pv.build(PTS, DOM, "quadtree", 1.0)
    src = rel.save(tmp_path / "r.parquet")
    n = rel.tree.n_nodes
    cases = {
        "relabelled user": (lambda p: _edit_meta(src, p, lambda m: m.update(privacy_unit=USER_10)),
                            "spends at sensitivity 1"),
        "zero variances": (lambda p: _edit_column(src, p, "noise_variance", np.zeros(n)), "more exact than its noise"),
        "NaN estimates": (lambda p: _edit_column(src, p, "estimate", np.full(n, np.nan)), "no finite estimate"),
        "one node more exact than its epsilon": (lambda p: _edit_column(src, p, "noise_variance", _tightened(rel)),
                                                 "below .*, the least its own count epsilon"),
        "kd-pure": (lambda p: _edit_meta(src, p, lambda m: m.update(method="kd-pure")), "non-private reference"),
        "unknown method": (lambda p: _edit_meta(src, p, lambda m: m.update(method="kd-magic")), "unknown method"),
    }
    for name, (make, says) in cases.items():
        path = make(tmp_path / f"{name}.parquet")
        with pytest.raises(ValueError, match=says):
            pv.load_release(path)
    user = pv.build(PTS, DOM, "quadtree", 1.0, user=np.arange(3000) % 700, max_points_per_user=5)
    assert pv.load_release(user.save(tmp_path / "u.parquet")).privacy_unit == user.privacy_unit


def test_a_hilbert_files_disjointness_is_checked_from_its_curve_ranges(tmp_path):
    """A Hilbert R-tree's boxes overlap by design, so its levels are proven disjoint by the curve ranges
    the file holds: a file without them, with overlapping or gapped ranges, or with a box that does not
    hold its range is refused; ranges on another method are refused too."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    rel = pv.build(PTS, DOM, "hilbert", 1.0, height=3)
    src = rel.save(tmp_path / "h.parquet")
    back = pv.load_release(src)
    np.testing.assert_array_equal(back.curve, rel.curve)
    np.testing.assert_array_equal(back.answer([[0.1, 0.2, 0.6, 0.7]]), rel.answer([[0.1, 0.2, 0.6, 0.7]]))
    lo = rel.curve[:, 0].copy()
    second = int(rel.tree.first_child[0]) + 1            # the root's second child: shift its start
    overlap = lo.copy()
    overlap[second] -= 1
    leaf = int(np.flatnonzero(rel.tree.is_leaf & (rel.curve[:, 1] > rel.curve[:, 0]))[0])
    x = pq.read_table(src).column("x0").to_numpy().copy()
    quad = pv.build(PTS, DOM, "quadtree", 1.0).save(tmp_path / "q.parquet")

    def with_ranges(p):
        t = pq.read_table(quad)
        n = t.num_rows
        t = t.append_column("curve_lo", pa.array(np.zeros(n, np.int64))).append_column(
            "curve_hi", pa.array(np.ones(n, np.int64)))
        pq.write_table(t, p)
        return p

    def without_ranges(p):
        t = pq.read_table(src)
        pq.write_table(t.drop_columns(["curve_lo", "curve_hi"]), p)
        return p
    x[leaf] = pq.read_table(src).column("x1").to_numpy()[leaf]        # a box of zero width: holds no cell
    cases = {
        "quadtree called hilbert": (lambda p: _edit_meta(quad, p, lambda m: m.update(method="hilbert")),
                                    "must hold each node's curve range"),
        "ranges dropped": (without_ranges, "must hold each node's curve range"),
        "overlapping children": (lambda p: _edit_column(src, p, "curve_lo", overlap), "consecutive runs"),
        "box without its range": (lambda p: _edit_column(src, p, "x0", x), "hold every cell of its curve range"),
        "ranges on a quadtree": (with_ranges, "only a Hilbert R-tree holds curve ranges"),
    }
    for name, (make, says) in cases.items():
        with pytest.raises(pv.ReleaseFileError, match=says):
            pv.load_release(make(tmp_path / f"{name}.parquet"))


def test_a_region_release_with_negative_standard_errors_is_refused(tmp_path):
    import json

    from psdviz import regions as rg
    rel = pv.build_regions(np.column_stack([-100 + PTS[:, 0] * 10, 35 + PTS[:, 1] * 5]), rg.us_states(), epsilon=1.0)
    path = rel.save(tmp_path / "r.json")
    doc = json.loads(path.read_text())
    doc["standard_error"] = [-1.0] * len(doc["standard_error"])
    path.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="standard error must be a finite number > 0"):
        pv.load_release(path)


def test_a_small_count_of_counts_file_cannot_ask_for_gigabytes(tmp_path):
    import json

    from psdviz import coco as cc
    h = cc.Hierarchy.from_paths([(f"n{i}",) for i in range(2000)], root="root")
    table = cc.group_records([1, 1, 2], ["n0", "n0", "n1"], h, max_size=4,
                             group_list=([1, 2], ["n0", "n1"]))
    rel = cc.publish(table, method="hc", epsilon=1.0)
    path = rel.save(tmp_path / "c.json")
    doc = json.loads(path.read_text())
    doc["report"]["max_size"] = 10 ** 6                 # 2,001 nodes x 1e6 sizes: 2 x 16 GB if believed
    path.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match=r"more than this [0-9,]+-byte file can hold"):
        pv.load_release(path)


def test_errors_a_caller_can_tell_apart(tmp_path):
    """Each kind of problem has its class, and each is still a ValueError."""
    from psdviz import errors
    with pytest.raises(errors.ParameterError):
        pv.build(PTS, DOM, "ug", -1.0)
    with pytest.raises(errors.InputDataError, match="xmin 1 is above xmax 0"):
        pv.Domain(1, 0, 0, 1)
    bad = tmp_path / "bad.parquet"
    src = pv.build(PTS, DOM, "ug", 1.0).save(tmp_path / "r.parquet")
    _edit_meta(src, bad, lambda m: m.update(epsilon_spent=9.0))
    with pytest.raises(errors.ReleaseFileError):
        pv.load_release(bad)
    with pytest.raises(errors.BudgetError):
        pv.Budget(tmp_path / "none.json")
    assert all(issubclass(c, ValueError) for c in (errors.ParameterError, errors.InputDataError,
                                                   errors.ReleaseFileError, errors.BudgetError))


def test_a_strategy_files_claims_are_checked_against_its_strategy(tmp_path):
    """A workload strategy's file: its parameters are bounded and non-negative, one epsilon, and the cells'
    stated noise variances must be the ones the strategy and epsilon give (halved variances refused)."""
    rel = pv.build(PTS, DOM, "strategy", 1.0, grid_size=16, rows=2,
                   workload=np.array([[0, 0, 1, 1], [0, 0, 0.5, 0.5], [0.5, 0, 1, 0.5]]))
    assert rel.params["rows_x"] == 2                # not the identity: there are parameters to edit
    src = rel.save(tmp_path / "s.parquet")

    def model(change):
        return lambda m: m["query_model"].update(change(m["query_model"]))
    cases = {
        "negative theta": (lambda p: _edit_meta(src, p, model(lambda q: {"theta_x": [-1.0] * len(q["theta_x"])})),
                           "theta_x"),
        "huge theta": (lambda p: _edit_meta(src, p, model(lambda q: {"theta_y": [1.0] * 10_000})), "at most"),
        "two epsilons": (lambda p: _edit_meta(src, p, model(lambda q: {"eps": [1.0, 1.0]})), "one positive epsilon"),
        "halved variances": (lambda p: _edit_column(src, p, "noise_variance", rel.tree.noise_var / 2),
                             "noise variances are not the ones|more exact than its noise"),
    }
    for name, (make, says) in cases.items():
        with pytest.raises(ValueError, match=says):
            pv.load_release(make(tmp_path / f"{name}.parquet"))
    back = pv.load_release(src)
    np.testing.assert_array_equal(back.answer_variance([[0.1, 0.1, 0.4, 0.3]]),
                                  rel.answer_variance([[0.1, 0.1, 0.4, 0.3]]))
