"""Synthetic points from a release: post-processing of the released cells and a seed only, counts that
match the release's answers within the sampling error, the CLI, and the notebook views."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import psdviz as pv
from psdviz.cli import main

PTS = np.random.default_rng(0).normal([0.3, 0.6], 0.12, (20_000, 2)).clip(0, 1)
DOM = pv.Domain(0, 0, 1, 1)


@pytest.fixture(scope="module")
def rel():
    return pv.build(PTS, DOM, "quadtree", 1.0, height=4, prune=None)


def test_the_draw_depends_only_on_the_release_and_the_seed(rel, tmp_path):
    back = pv.load_release(rel.save(tmp_path / "r.parquet"))
    a, b = rel.sample_points(seed=5), back.sample_points(seed=5)
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(rel.sample_points(seed=6))
    assert len(a) == round(float(np.maximum(rel.tree.est[rel.tree.leaf_index()], 0).sum()))


def test_rectangle_counts_match_the_answers_within_the_sampling_error(rel):
    n = 200_000
    pts = rel.sample_points(n, seed=1).to_numpy()
    rects = np.array([[0, 0, 0.5, 0.5], [0.25, 0.5, 0.75, 1.0], [0, 0, 1, 0.25]])      # whole cells (height 4)
    leaves = rel.tree.leaf_index()
    total = float(np.maximum(rel.tree.est[leaves], 0).sum())
    kept = np.maximum(rel.tree.est, 0)                   # the draw's weights: the non-negative estimates
    r = rel.tree.rect[leaves]
    for q in rects:
        inside = (r[:, 0] >= q[0]) & (r[:, 2] <= q[2]) & (r[:, 1] >= q[1]) & (r[:, 3] <= q[3])
        p = kept[leaves][inside].sum() / total
        got = pv.true_answer(pts, q[None, :])[0]
        assert abs(got - n * p) <= 4 * np.sqrt(n * p * (1 - p)), (q, got, n * p)
        negative = abs(np.minimum(rel.tree.est[leaves][inside], 0).sum())   # the draw drops negative estimates
        assert abs(p * total - rel.answer(q[None, :])[0]) <= 1e-6 * total + negative


def test_the_cli_writes_synthetic_points(rel, tmp_path, capsys):
    path = rel.save(tmp_path / "r.parquet")
    assert main(["sample", str(path), "--out", str(tmp_path / "s.csv"), "--n", "500", "--seed", "3"]) == 0
    assert "no real point" in capsys.readouterr().out
    assert pd.read_csv(tmp_path / "s.csv").shape == (500, 2)
    assert main(["sample", str(path), "--out", str(tmp_path / "s.txt")]) == 2


def test_a_release_as_a_geodataframe_and_a_folium_map(rel):
    gdf = rel.to_geodataframe(crs="EPSG:4326")
    assert len(gdf) == rel.tree.is_leaf.sum() and str(gdf.crs) == "EPSG:4326"
    shown = gdf["estimate"].clip(lower=0)            # the interval is held at 0 like the count it bounds
    assert (gdf["low_95"] >= 0).all() and (gdf["low_95"] <= shown).all() and (shown <= gdf["high_95"]).all()
    m = pv.explore(rel)
    html = m.get_root().render()
    assert "not distinguishable from zero" in html and "low_95" in html
    cells = next(c for c in m._children.values() if type(c).__name__ == "GeoJson").data["features"]
    for f in cells:                                   # the tooltip's numbers rounded as the app rounds counts
        for k in ("estimate", "low_95", "high_95"):
            v = f["properties"][k]
            assert v == (round(v) if abs(v) >= 100 else round(v, 1)), (k, v)


def test_the_notebook_example_runs(tmp_path):
    import subprocess
    import sys
    from pathlib import Path
    script = Path(__file__).resolve().parents[2] / "docs" / "examples" / "notebook.py"
    run = subprocess.run([sys.executable, str(script), str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "synthetic points" in run.stdout and "# Privacy statement: auto" in run.stdout
    assert (tmp_path / "cells.html").stat().st_size > 10_000 and (tmp_path / "states.html").stat().st_size > 10_000
