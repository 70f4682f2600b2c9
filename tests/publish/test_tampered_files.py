"""A corpus of tampered release files: every one is refused with a ValueError that names what is
wrong (never a TypeError, KeyError, IndexError, MemoryError or a traceback from ``psdviz info``),
before anything the size of an edited field is allocated."""
from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import psdviz as pv
from psdviz.cli import main
from psdviz.publish.release_file import META_KEY

DOM = pv.Domain(0.0, 0.0, 1.0, 1.0)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("tamper")
    pts = np.random.default_rng(5).random((4000, 2)) ** 2
    out = {}
    # the quadtree pruned after OLS: its query model is the complete tree's (fanout, full_height, var)
    for name, method, kw in [("quad", "quadtree", {"height": 6, "prune": 20, "pruning": "after_ols"}), ("ug", "ug", {}),
                             ("ag", "ag", {}), ("htree", "htree", {}), ("privtree", "privtree", {})]:
        out[name] = pv.build(pts, DOM, method, 1.0, resolution=12, **kw).save(d / f"{name}.parquet")
    return d, out


def _write(src, out, meta=None, table=None, raw_meta: bytes | None = None):
    t = pq.read_table(src)
    md = dict(t.schema.metadata)
    if raw_meta is not None:
        md[META_KEY] = raw_meta
    elif meta is not None:
        doc = json.loads(md[META_KEY])
        meta(doc)
        md[META_KEY] = json.dumps(doc).encode()
    if table is not None:
        t = table(t)
    pq.write_table(t.replace_schema_metadata(md), out)
    return out


def _set(path: str, value):
    def edit(doc):
        *keys, last = path.split(".")
        node = doc
        for k in keys:
            node = node[int(k)] if isinstance(node, list) else node[k]
        if value is DELETE:
            del node[last]
        elif isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value
    return edit


DELETE = object()


def _col(name: str, fn):
    def edit(t: pa.Table) -> pa.Table:
        i = t.schema.get_field_index(name)
        return t.set_column(i, name, pa.array(fn(t.column(name).to_numpy(zero_copy_only=False).copy())))
    return edit


def _drop(name: str):
    return lambda t: t.drop_columns([name])


def _first(value):
    def fn(a):
        a[0 if a.size < 3 else 2] = value
        return a
    return fn


META_CASES = [
    ("quad", _set("ledger.0.epsilon", -0.5), "epsilon >= 0"),
    ("quad", _set("ledger.0.epsilon", "0.1"), "epsilon >= 0"),
    ("quad", _set("ledger.0.hack", 1), "only Spend's fields"),
    ("quad", _set("ledger", DELETE), "no 'ledger'"),
    ("quad", _set("ledger", {"a": 1}), "'ledger' is not a list"),
    ("quad", _set("epsilon", "abc"), "'epsilon' is not a float"),
    ("quad", _set("epsilon", float("nan")), "epsilon must be finite"),
    ("quad", _set("epsilon_spent", 0.1), "is not the ledger's total"),
    ("quad", _set("delta", 8.0), "is not the ledger's total"),
    ("quad", _set("resolution", 31), "resolution must be an integer in"),
    ("quad", _set("resolution", "20"), "'resolution' is not a int"),
    ("quad", _set("resolution", 5), "off the public grid"),
    ("quad", _set("domain", [0, 0, 1]), "four finite numbers"),
    ("quad", _set("domain", [1, 0, 0, 1]), "xmin < xmax"),
    ("quad", _set("domain", [0, 0, 1.3, 1]), "off the public grid"),
    ("quad", _set("randomness", "trust me"), "unknown randomness"),
    ("quad", _set("privacy_unit", "nobody"), "unknown privacy unit"),
    ("quad", _set("method", "evil'); DROP TABLE --"), "unknown method"),
    ("quad", _set("parameters", {"x": {"nested": 1}}), "plain values"),
    ("quad", _set("notes", [1, 2]), "notes must be text"),
    ("quad", _set("consistent", "yes"), "'consistent' is not a bool"),
    ("quad", _set("input_handling", {}), "input_handling"),
    ("quad", _set("query_model.full_height", 12), "above 6,000,000"),
    ("quad", _set("query_model.full_height", 30), "above 6,000,000"),
    ("quad", _set("query_model.full_height", 10 ** 9), "full_height in"),
    ("quad", _set("query_model.full_height", 2), "full_height in"),
    ("quad", _set("query_model.fanout", 1), "fanout in"),
    ("quad", _set("query_model.var", [1.0]), "one per depth"),
    ("quad", _set("query_model.answer", "magic"), "unknown query model"),
    ("ug", _set("query_model.levels", [0, 99]), "pyramid levels"),
    ("ag", _set("query_model.edges1", list(range(0, 4097))), "edges1"),
    ("ag", _set("query_model.edges1", [0, 5, 3, 4096]), "edges1"),
    ("quad", _set("query_model", []), "'query_model' is not a dict"),
    ("quad", _set("query_model.data_cuts", 99), "data_cuts must be a depth"),
    ("quad", _set("query_model.data_cuts", "all"), "data_cuts must be a depth"),
]

TABLE_CASES = [
    ("quad", _col("node", lambda a: a[::-1]), "node ids"),
    ("quad", _col("parent", _first(5000)), "earlier parent"),
    ("quad", _col("depth", _first(3)), "level by level"),
    ("quad", _col("n_children", _first(7)), "n_children"),
    ("quad", _col("first_child", _first(1)), "children must be stored together"),
    ("quad", _col("is_leaf", lambda a: ~a), "is_leaf"),
    ("quad", _col("count_epsilon", lambda a: a * 0), "the nodes record epsilon"),
    ("privtree", _col("count_epsilon", lambda a: a * 0), "the nodes record epsilon"),
    ("quad", _col("count_epsilon", _first(-1.0)), "finite and >= 0"),
    ("quad", _col("x0", _first(np.nan)), "finite with x0 <= x1"),
    ("quad", _col("x1", _first(-3.0)), "finite with x0 <= x1"),
    ("quad", _col("y0", lambda a: a + 1e-4), "off the public grid"),
    ("quad", _col("noise_variance", _first(np.nan)), "noise variances"),
    ("quad", _col("noisy", _first(np.inf)), "noisy must be finite"),
    ("quad", _col("full_index", lambda a: a + 10 ** 7), "full_index"),
    ("quad", _drop("noisy"), "no column 'noisy'"),
    ("quad", lambda t: t.set_column(t.schema.get_field_index("depth"), "depth",
                                    pa.array([str(v) for v in t.column("depth").to_pylist()])), "not numbers"),
    ("quad", lambda t: t.set_column(t.schema.get_field_index("noisy"), "noisy",
                                    pa.array([None] + t.column("noisy").to_pylist()[1:], pa.float64())),
                                    "missing values"),
    ("htree", _col("depth", _first(0)), "level by level"),
    ("ug", _col("x1", lambda a: np.r_[a[:1], a[0], a[2:]]), "not proven disjoint"),   # a cell widened over others
    ("quad", _col("y1", lambda a: np.r_[a[:1], a[0], a[2:]]), "not proven disjoint"),
    ("quad", lambda t: t.slice(0, 0), "declares 0 nodes"),
    # estimates are derived from the noisy counts: set to 0 (the noisy counts untouched) they once answered 0
    ("quad", _col("estimate", lambda a: a * 0), "estimates are not derived from the released counts"),
    ("ug", _col("estimate", lambda a: a * 0), "estimates are not derived from the released counts"),
    ("privtree", _col("estimate", lambda a: a + 500), "estimates are not derived from the released counts"),
    ("quad", _col("noisy", lambda a: np.full(a.size, np.nan)), "a released count must be a finite number"),
    ("htree", _col("noisy", _first(np.nan)), "a released count must be a finite number"),
]


def _cases():
    for i, (base, edit, msg) in enumerate(META_CASES):
        yield pytest.param(base, edit, None, msg, id=f"meta{i}-{msg[:20]}")
    for i, (base, edit, msg) in enumerate(TABLE_CASES):
        yield pytest.param(base, None, edit, msg, id=f"table{i}-{msg[:20]}")


@pytest.mark.parametrize("base, meta, table, message", list(_cases()))
def test_tampered_file_is_refused_with_a_named_reason(files, tmp_path, base, meta, table, message):
    _, paths = files
    bad = _write(paths[base], tmp_path / "bad.parquet", meta=meta, table=table)
    with pytest.raises(ValueError, match=r"damaged or was altered|format|resolution|xmin") as err:
        pv.load_release(bad)
    assert message in str(err.value)


def test_the_corpus_is_large_and_every_base_file_loads(files):
    assert len(META_CASES) + len(TABLE_CASES) >= 30
    for path in files[1].values():
        pv.load_release(path)


@pytest.mark.parametrize("raw", [b"\xff\xfe\x00garbage", b"{not json", b"[1, 2, 3]", b'"text"'])
def test_metadata_that_is_not_a_json_object(files, tmp_path, raw):
    bad = _write(files[1]["quad"], tmp_path / "bad.parquet", raw_meta=raw)
    with pytest.raises(ValueError, match=r"JSON|format"):
        pv.load_release(bad)


def test_a_compressed_row_bomb_is_refused_from_the_footer(files, tmp_path):
    """300,000 rows of zeros compress to a few kilobytes: more rows than bytes is refused before reading."""
    t = pq.read_table(files[1]["ug"])
    n = 300_000
    cols = {name: pa.array(np.zeros(n, dtype=t.schema.field(name).type.to_pandas_dtype()))
            for name in t.column_names if name != "geometry"}
    bomb = pa.table(cols).replace_schema_metadata(t.schema.metadata)
    path = tmp_path / "bomb.parquet"
    pq.write_table(bomb, path, compression="zstd")
    assert path.stat().st_size < n
    with pytest.raises(ValueError, match="declares 300,000 nodes"):
        pv.load_release(path)


def test_a_truncated_file_is_refused(files, tmp_path):
    data = files[1]["quad"].read_bytes()
    cut = tmp_path / "cut.parquet"
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match="not a readable Parquet file"):
        pv.load_release(cut)


def test_info_prints_one_line_and_exits_2_on_a_tampered_file(files, tmp_path, capsys):
    bad = _write(files[1]["quad"], tmp_path / "bad.parquet", meta=_set("query_model.full_height", 30))
    assert main(["info", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("psdviz info:") and "Traceback" not in err[0]
