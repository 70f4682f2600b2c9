"""The DPBench protocol in the lab: histogram points, the fixed queries, exact truth, the preset."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import psdviz as pv
from psdviz.lab import compare as C
from psdviz.lab.dpbench import check_histogram, histogram_domain, histogram_points, histogram_truth, protocol_queries
from psdviz.lab.presets import PRESETS, resolve

SHARED = Path(__file__).resolve().parents[3] / "shared" / "dpbench"


def test_points_fall_in_their_cells_and_truth_is_exact():
    h = np.zeros((8, 6))
    h[2, 3], h[7, 0], h[0, 5] = 5, 2, 1
    xy = histogram_points(h, np.random.default_rng(1))
    assert xy.shape == (8, 2)
    cells = np.floor(xy).astype(int)
    np.testing.assert_array_equal(np.bincount(cells[:, 0] * 6 + cells[:, 1], minlength=48).reshape(8, 6), h)
    q = protocol_queries(8, 6, 50)
    assert (q[:, 0] < q[:, 2]).all() and (q[:, 1] < q[:, 3]).all() and q.max() <= 8
    np.testing.assert_array_equal(histogram_truth(h, q), pv.true_answer(xy, q))


def test_protocol_queries_are_fixed_and_grid_aligned():
    a, b = protocol_queries(), protocol_queries()
    np.testing.assert_array_equal(a, b)
    assert a.shape == (200, 4) and np.array_equal(a, np.round(a))


def test_bad_histograms_are_refused():
    for bad, msg in ((np.zeros(5), "2-D"), (-np.ones((3, 3)), "non-negative"), (np.full((3, 3), np.nan), "finite")):
        with pytest.raises(ValueError, match=msg):
            check_histogram(bad)


@pytest.mark.skipif(not SHARED.exists(), reason="../shared/dpbench is not beside the project")
def test_preset_runs_the_protocol_on_a_dpbench_file():
    h = check_histogram(np.load(SHARED / "Stroke_2D_256_256.npy"))
    dom = histogram_domain(h)
    xy = histogram_points(h, np.random.default_rng(0))
    p = PRESETS["dpbench"]
    variants, notes = resolve(p)
    assert not notes and {v.method for v in variants} >= {"auto", "privtree", "ag", "quadtree"}
    qs = C.make_queries(xy, dom, p.workload(dom), seed=None)       # the protocol's queries whatever the seed
    np.testing.assert_array_equal(qs.rects, protocol_queries())
    np.testing.assert_array_equal(qs.truth, histogram_truth(h, protocol_queries()))
    df = C.run_cell(xy, dom, variants[0], 1.0, qs, trials=1, seed=3)
    assert len(df) == 200 and df.rel_error.mean() < 1.0
