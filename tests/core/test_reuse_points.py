"""Points prepared once (pv.prepare_points) and given to several builds (the app's bundled samples, shared by
every session) build the same release as the array, bit for bit, for every method and reference; the shared
arrays are read-only and stay as they were; points prepared for another domain, resolution or rule are
refused in words."""
import numpy as np
import pytest

import psdviz as pv
from psdviz.core.domain import reuse_points

DOM = pv.Domain(0, 0, 1, 1)
RNG = np.random.default_rng(4)
POINTS = np.clip(np.vstack([RNG.normal([[0.3, 0.6]], 0.05, (3000, 2)), RNG.random((2000, 2))]), -0.1, 1.1)
POINTS[::97] = np.nan


def _same(a, b) -> None:
    ta, tb = a.tree, b.tree
    for name, v in vars(ta).items():
        w = vars(tb)[name]
        if isinstance(v, np.ndarray):
            assert np.array_equal(v, w, equal_nan=True), name
    assert a.ledger.records() == b.ledger.records() and a.params == b.params
    assert a.input_report == b.input_report and a.notes == b.notes


@pytest.mark.parametrize("method", pv.METHODS + pv.REFERENCES)
def test_prepared_points_build_the_same_release_as_the_array(method):
    ps = pv.prepare_points(POINTS, DOM, outside="drop", nonfinite="drop", resolution=8)
    kw = {"outside": "drop", "nonfinite": "drop", "resolution": 8}
    _same(pv.build(POINTS, DOM, method, 0.8, seed=5, **kw), pv.build(ps, DOM, method, 0.8, seed=5, **kw))


def test_the_shared_arrays_are_read_only_and_unchanged_and_every_build_starts_afresh():
    ps = pv.prepare_points(POINTS, DOM, outside="drop", nonfinite="drop", resolution=10)
    xy, keys = ps.xy.copy(), ps.keys.copy()
    for m in ("auto", "kdtree", "privtree", "htree", "hilbert"):
        first = pv.build(ps, DOM, m, 0.5, seed=1, nonfinite="drop", resolution=10)
        _same(pv.build(ps, DOM, m, 0.5, seed=1, nonfinite="drop", resolution=10), first)   # the keyers' memo is new
    assert np.array_equal(ps.xy, xy) and np.array_equal(ps.keys, keys)
    assert not ps.xy.flags.writeable and not ps.keys.flags.writeable
    fresh = reuse_points(ps, DOM, "drop", "drop", 10)
    assert fresh.keys is ps.keys and fresh.memo is not ps.memo


@pytest.mark.parametrize("change,words", [({"resolution": 9}, "domain and resolution"),
                                           ({"outside": "clip"}, "outside"),
                                           ({"nonfinite": "error"}, "nonfinite")])
def test_points_prepared_otherwise_are_refused(change, words):
    ps = pv.prepare_points(POINTS, DOM, outside="drop", nonfinite="drop", resolution=8)
    kw = {"outside": "drop", "nonfinite": "drop", "resolution": 8} | change
    with pytest.raises(ValueError, match=words):
        pv.build(ps, DOM, "quadtree", 0.5, **kw)
    with pytest.raises(ValueError, match="domain and resolution"):
        pv.build(ps, pv.Domain(0, 0, 2, 2), "quadtree", 0.5, outside="drop", nonfinite="drop", resolution=8)
    with pytest.raises(ValueError, match="user-level"):
        pv.build(ps, DOM, "quadtree", 0.5, outside="drop", nonfinite="drop", resolution=12,
                 user=np.arange(len(POINTS)), max_points_per_user=2)
