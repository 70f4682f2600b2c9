"""Releases stay bit-identical across refactors: every method, reference and kind, built with a fixed seed
on fixed data, must give the same report and the same answers as the recorded fingerprints.

A change that means to alter releases (a new rule, a fixed leak) rewrites the fingerprints on purpose:
``PSDVIZ_WRITE_FINGERPRINTS=1 python -m pytest -n 0 tests/test_release_fingerprints.py`` and says why in its
commit. Values are hashed after rounding to 9 significant digits, so the last bit of a float sum that a
different CPU's vector unit may order differently does not count as a change.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np
import pytest

import psdviz as pv
from psdviz import coco, sparse

FILE = Path(__file__).parent / "data" / "release_fingerprints.json"
WRITE = os.environ.get("PSDVIZ_WRITE_FINGERPRINTS") == "1"
DOM = pv.Domain(0, 0, 1, 1)
QUERIES = np.random.default_rng(3).random((40, 4))
RECTS = np.column_stack([np.minimum(QUERIES[:, 0], QUERIES[:, 2]), np.minimum(QUERIES[:, 1], QUERIES[:, 3]),
                         np.maximum(QUERIES[:, 0], QUERIES[:, 2]), np.maximum(QUERIES[:, 1], QUERIES[:, 3])])


def _points() -> np.ndarray:
    rng = np.random.default_rng(11)
    blobs = rng.normal([[0.3, 0.6]], 0.05, (3000, 2))
    return np.clip(np.vstack([blobs, rng.random((2000, 2))]), 0, 1)


def _rounded(x):
    if isinstance(x, dict):
        return {str(k): _rounded(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_rounded(v) for v in x]
    if isinstance(x, (float, np.floating)):
        return float(f"{float(x):.9g}") if np.isfinite(x) else str(x)
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.ndarray):
        return _rounded(x.tolist())
    return x


def _digest(*parts) -> str:
    text = json.dumps(_rounded(list(parts)), sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


SPATIAL = {m: {} for m in pv.METHODS} | {
    "quadtree+workload": {"method": "quadtree", "workload": RECTS[:10]},
    "hybrid+workload": {"method": "hybrid", "workload": RECTS[:10]},
    "kdtree/smooth": {"method": "kdtree", "median": "smooth", "delta": 1e-6},
    "quadtree/after_ols": {"method": "quadtree", "prune": 5.0, "pruning": "after_ols"},
    "htree/composite": {"method": "htree", "variant": "composite"},
    "user-level": {"method": "quadtree", "user": np.arange(5000) % 1500, "max_points_per_user": 3},
} | {f"reference {r}": {} for r in pv.REFERENCES}


def _spatial(case: str):
    kwargs = dict(SPATIAL[case])
    method = kwargs.pop("method", case.removeprefix("reference "))
    rel = pv.build(_points(), DOM, method=method, epsilon=1.0, seed=5, resolution=12, **kwargs)
    return rel.report(), rel.nodes(), rel.answer(RECTS), rel.answer_variance(RECTS)


def _regions():
    gpd = pytest.importorskip("geopandas")
    shapely = pytest.importorskip("shapely")
    from psdviz.regions import Regions
    boxes = [shapely.box(x, y, x + 0.25, y + 0.5) for x in (0, 0.25, 0.5, 0.75) for y in (0, 0.5)]
    layer = Regions.from_frame(gpd.GeoDataFrame({"id": [f"r{i}" for i in range(8)]}, geometry=boxes),
                               id="id", crs=None)
    rel = pv.build_regions(_points(), layer, epsilon=1.0, seed=5, domain=DOM, resolution=12)
    return rel.report(), rel.table.drop(columns="geometry", errors="ignore").to_dict("list")


def _coco():
    h = coco.Hierarchy.from_paths([("NY", "JFK"), ("NY", "LGA"), ("FL", "MIA")], root="USA")
    rng = np.random.default_rng(2)
    groups = rng.integers(0, 300, 2000)
    where = np.array(["JFK", "LGA", "MIA"])[groups % 3]
    rel = coco.publish(coco.group_records(groups, where, h, max_size=20), h, method="hc", epsilon=[0.3, 0.3, 0.4],
                       seed=5)
    return (rel.report(),)


def _sparse():
    rng = np.random.default_rng(2)
    cells = np.sort(rng.choice(10_000, 300, replace=False))
    rel = sparse.summarize(sparse.make_table(cells, rng.integers(1, 50, 300), 10_000), method="filter-priority",
                           epsilon=1.0, seed=5)
    return (rel.report(),)


CASES = {f"spatial {c}": (lambda c=c: _spatial(c)) for c in SPATIAL} | {
    "regions": _regions, "count-of-counts": _coco, "sparse": _sparse}


def _recorded() -> dict:
    return json.loads(FILE.read_text()) if FILE.is_file() else {}


@pytest.mark.parametrize("case", list(CASES))
def test_seeded_release_is_unchanged(case):
    digest = _digest(*CASES[case]())
    if WRITE:
        table = _recorded() | {case: digest}
        FILE.parent.mkdir(exist_ok=True)
        FILE.write_text(json.dumps(dict(sorted(table.items())), indent=1) + "\n")
        return
    recorded = _recorded()
    assert case in recorded, f"no fingerprint for {case!r}: write them with PSDVIZ_WRITE_FINGERPRINTS=1"
    assert digest == recorded[case], f"the seeded {case} release changed"


def test_every_case_is_recorded():
    assert set(_recorded()) == set(CASES)
