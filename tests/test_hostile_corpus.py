"""A corpus of hostile files, generated here, against every reader: release files of all four kinds
(spatial GeoParquet, region, count-of-counts and sparse JSON), region layers (GeoJSON and TopoJSON) and
point files (CSV). Each starts from a valid file and is edited: every JSON value replaced by a wrong
type, a negative, a huge or a non-finite number, a long list or a deep nesting, or removed; the bytes
truncated or flipped; the node table's columns filled with NaN, negatives or huge values.

Every case must end, within 30 s and with at most 1 GB of Python allocations, either loaded (and then
answering, reporting and printing without error) or refused with a named error of psdviz.errors (a release
file: ReleaseFileError, whatever the kind);
the CLI's ``psdviz info`` / ``regions`` / ``build`` must end with exit 0 or 2 and one line on stderr,
never the catch-all exit 1 of an unexpected exception."""
from __future__ import annotations

import copy
import json
import time
import tracemalloc
import warnings

import numpy as np
import pytest

import psdviz as pv
from psdviz import coco, sparse
from psdviz.cli import main
from psdviz.errors import ReleaseFileError
from psdviz.regions import Regions

pytestmark = pytest.mark.slow
RNG = np.random.default_rng(11)
PTS = RNG.random((2000, 2))
DOM = pv.Domain(0, 0, 1, 1)
LIMIT_S, LIMIT_BYTES = 30.0, 1 << 30
BAD_VALUES = [None, "x", -1, 0, 1e308, float("nan"), [], {}, [1] * 5000, True]


def _valid_files(tmp_path) -> dict[str, object]:
    """One valid file of each kind, written by psdviz itself."""
    gpd = pytest.importorskip("geopandas")
    shapely = pytest.importorskip("shapely")
    out = {}
    out["spatial"] = pv.build(PTS, DOM, "quadtree", 1.0, height=3).save(tmp_path / "q.parquet")
    out["hilbert"] = pv.build(PTS, DOM, "hilbert", 1.0, height=2).save(tmp_path / "h.parquet")
    h = coco.Hierarchy.from_paths([("A", "a1"), ("A", "a2"), ("B", "b1")], root="all")
    g = RNG.integers(0, 200, 1500)
    out["coco"] = coco.publish(coco.group_records(g, np.array(["a1", "a2", "b1"])[g % 3], h, max_size=10), h,
                               method="hc", epsilon=[0.3, 0.3, 0.4]).save(tmp_path / "c.json")
    cells = np.sort(RNG.choice(5000, 200, replace=False))
    out["sparse"] = sparse.summarize(sparse.make_table(cells, RNG.integers(1, 40, 200), 5000),
                                     method="filter-priority", epsilon=1.0).save(tmp_path / "s.json")
    boxes = [shapely.box(0, 0, 0.5, 1), shapely.box(0.5, 0, 1, 0.5), shapely.box(0.5, 0.5, 1, 1)]
    layer = gpd.GeoDataFrame({"id": ["w", "se", "ne"], "parent": [None, "e", "e"]}, geometry=boxes)
    parents = gpd.GeoDataFrame({"id": ["e"], "parent": [None]}, geometry=[shapely.box(0.5, 0, 1, 1)])
    full = gpd.GeoDataFrame(__import__("pandas").concat([parents, layer], ignore_index=True), geometry="geometry")
    out["layer"] = tmp_path / "layer.geojson"
    full.to_file(out["layer"], driver="GeoJSON")
    regions = Regions.from_file(out["layer"], id="id", parent="parent", crs=None)
    out["regions"] = pv.build_regions(PTS, regions, epsilon=1.0, domain=DOM).save(tmp_path / "r.json")
    out["topojson"] = tmp_path / "t.json"
    out["topojson"].write_text(json.dumps({
        "type": "Topology", "arcs": [[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]],
        "objects": {"one": {"type": "GeometryCollection",
                            "geometries": [{"type": "Polygon", "arcs": [[0]], "properties": {"id": "sq"}}]}}}))
    out["csv"] = tmp_path / "p.csv"
    out["csv"].write_text("lon,lat\n" + "\n".join(f"{x:.4f},{y:.4f}" for x, y in PTS[:300]) + "\n")
    return out


def _paths(doc, prefix=(), depth=0):
    """Key paths of a JSON document (lists: their first element), up to 4 deep."""
    if depth > 4:
        return
    items = doc.items() if isinstance(doc, dict) else ([(0, doc[0])] if isinstance(doc, list) and doc else [])
    for k, v in items:
        yield prefix + (k,)
        yield from _paths(v, prefix + (k,), depth + 1)


def _set(doc, path, value, remove=False):
    out = copy.deepcopy(doc)
    node = out
    for k in path[:-1]:
        node = node[k]
    if remove and isinstance(node, dict):
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return out


def _json_cases(src, tmp_path, name, per_path: int) -> list:
    doc = json.loads(src.read_text())
    paths = list(_paths(doc))
    cases = []
    for i, p in enumerate(paths):
        values = [BAD_VALUES[(i + j) % len(BAD_VALUES)] for j in range(per_path)]
        for j, v in enumerate(values):
            f = tmp_path / f"{name}_{i}_{j}.json"
            f.write_text(json.dumps(_set(doc, p, v)))
            cases.append((f"{name} {'/'.join(map(str, p))} = {str(v)[:20]}", f))
        f = tmp_path / f"{name}_{i}_del.json"
        f.write_text(json.dumps(_set(doc, p, None, remove=True)))
        cases.append((f"{name} {'/'.join(map(str, p))} removed", f))
    return cases + _byte_cases(src, tmp_path, name)


def _byte_cases(src, tmp_path, name) -> list:
    data = src.read_bytes()
    cases = []
    for k, cut in enumerate(np.linspace(0, len(data) - 1, 6).astype(int)):
        f = tmp_path / f"{name}_cut{k}{src.suffix}"
        f.write_bytes(data[:cut])
        cases.append((f"{name} truncated at {cut}", f))
    for k in range(6):
        b = bytearray(data)
        at = RNG.integers(0, len(b), 8)
        for a in at:
            b[a] = int(RNG.integers(0, 256))
        f = tmp_path / f"{name}_flip{k}{src.suffix}"
        f.write_bytes(bytes(b))
        cases.append((f"{name} bytes flipped at {sorted(at.tolist())}", f))
    return cases


def _parquet_cases(src, tmp_path, name) -> list:
    import pyarrow as pa
    import pyarrow.parquet as pq
    table = pq.read_table(src)
    meta = dict(table.schema.metadata)
    doc = json.loads(meta[b"psdviz"])
    cases = []
    for i, p in enumerate(_paths(doc)):
        v = BAD_VALUES[i % len(BAD_VALUES)]
        m = dict(meta)
        m[b"psdviz"] = json.dumps(_set(doc, p, v)).encode()
        f = tmp_path / f"{name}_m{i}.parquet"
        pq.write_table(table.replace_schema_metadata(m), f)
        cases.append((f"{name} metadata {'/'.join(map(str, p))} = {str(v)[:20]}", f))
    for col in table.column_names:
        if col == "geometry":
            continue
        typ = table.schema.field(col).type
        for k, fill in enumerate((np.nan, -1.0, 1e300, 2.0 ** 62)):
            vals = np.full(table.num_rows, fill)
            try:
                arr = pa.array(vals).cast(typ, safe=False)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                continue
            f = tmp_path / f"{name}_c_{col}_{k}.parquet"
            pq.write_table(table.set_column(table.schema.get_field_index(col), col, arr), f)
            cases.append((f"{name} column {col} = {fill}", f))
        f = tmp_path / f"{name}_drop_{col}.parquet"
        pq.write_table(table.drop_columns([col]), f)
        cases.append((f"{name} column {col} dropped", f))
    return cases + _byte_cases(src, tmp_path, name)


def _exercise_release(path) -> None:
    rel = pv.load_release(path)
    rel.report()
    rel.report(format="markdown")
    if isinstance(rel, pv.Release):
        rel.answer([[0.1, 0.1, 0.6, 0.7]])
        rel.answer_interval([[0.1, 0.1, 0.6, 0.7]])
    elif hasattr(rel, "counts"):
        rel.counts()
    elif hasattr(rel, "to_frame"):
        rel.to_frame()


def _exercise_layer(path) -> None:
    Regions.from_file(path, id="id", parent="parent" if path.suffix == ".geojson" else None, crs=None)


def _guarded(what, run, refusal: type[Exception] = ValueError) -> str | None:
    """None when ``run()`` ended well (loaded, or refused with ``refusal``) within the limits, else why."""
    tracemalloc.start()
    t = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            run()
    except refusal:
        pass
    except (Exception, RecursionError) as exc:     # what the case is for: anything else is a finding
        return f"{what}: {type(exc).__name__}: {str(exc)[:160]}"
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    took = time.perf_counter() - t
    if took > LIMIT_S or peak > LIMIT_BYTES:
        return f"{what}: {took:.1f} s, {peak / 2 ** 20:.0f} MiB"
    return None


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("hostile")
    files = _valid_files(tmp)
    cases = {"release": [], "layer": [], "points": []}
    for name in ("spatial", "hilbert"):
        cases["release"] += _parquet_cases(files[name], tmp, name)
    for name in ("coco", "sparse", "regions"):
        cases["release"] += _json_cases(files[name], tmp, name, per_path=2)
    for name in ("layer", "topojson"):
        cases["layer"] += _json_cases(files[name], tmp, name, per_path=3)
    cases["points"] += _byte_cases(files["csv"], tmp, "csv")
    return files, cases


def test_the_corpus_is_large_and_starts_from_files_that_load(corpus):
    files, cases = corpus
    assert sum(map(len, cases.values())) >= 395
    for name in ("spatial", "hilbert", "coco", "sparse", "regions"):
        _exercise_release(files[name])
    _exercise_layer(files["layer"])


def test_every_hostile_release_file_loads_or_is_refused_in_words(corpus):
    _, cases = corpus
    found = [why for what, path in cases["release"]
             if (why := _guarded(what, lambda p=path: _exercise_release(p), ReleaseFileError))]
    assert not found, f"{len(found)} cases:\n" + "\n".join(found[:60])


def test_a_plain_value_error_from_a_release_reader_is_a_finding():
    """The guard the release cases run under tells a named refusal from a plain ValueError."""
    def plain():
        raise ValueError("no name")

    def named():
        raise ReleaseFileError("named")
    assert _guarded("toy", plain, ReleaseFileError).startswith("toy: ValueError")
    assert _guarded("toy", named, ReleaseFileError) is None


def test_every_hostile_region_layer_loads_or_is_refused_in_words(corpus):
    _, cases = corpus
    found = [why for what, path in cases["layer"] if (why := _guarded(what, lambda p=path: _exercise_layer(p)))]
    assert not found, f"{len(found)} cases:\n" + "\n".join(found[:60])


def test_the_command_line_answers_every_hostile_file_in_one_line(corpus, capsys, tmp_path):
    files, cases = corpus
    runs = [("info", str(p)) for _, p in cases["release"][::3]]
    runs += [("regions", str(p), "--release", str(files["spatial"]), "--regions", str(p), "--id", "id",
              "--out", str(tmp_path / "o.csv")) for _, p in cases["layer"][::4]]
    runs += [("build", str(p), "--lon", "lon", "--lat", "lat", "--domain", "0", "0", "1", "1", "--out",
              str(tmp_path / "o.parquet")) for _, p in cases["points"]]
    bad = []
    for argv in runs:
        capsys.readouterr()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            code = main(list(argv))
        err = capsys.readouterr().err.strip()
        lines = [x for x in err.splitlines() if x.startswith("psdviz ")]
        if code not in (0, 2) or (code == 2 and len(lines) != 1) or "Traceback" in err:
            bad.append(f"{' '.join(argv[:2])}: exit {code}: {err[:200]}")
    assert not bad, "\n".join(bad[:20])
