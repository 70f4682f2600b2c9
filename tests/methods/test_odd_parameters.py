"""The audit of odd parameters: every
parameter of every method, fed values of the wrong type or out of range, either builds or raises a
ValueError that names the parameter (or the memory cap), before any work starts; Python and numpy
numbers are accepted alike."""
from __future__ import annotations

import numpy as np
import pytest

import psdviz as pv
from psdviz.methods.param_info import parameter_info

DOM = pv.Domain(0.0, 0.0, 1.0, 1.0)
PTS = np.random.default_rng(0).random((200, 2))
ODD = ["8", None, float("nan"), float("inf"), -1, 0, 1e12, [1], 2 + 0j, True, np.int64(3), np.float32(0.5)]


def _cases():
    for m in pv.METHODS:
        for name in parameter_info(m):
            for v in ODD:
                yield m, name, v


@pytest.mark.parametrize("method,name,value", list(_cases()), ids=lambda x: repr(x)[:20])
def test_odd_value_builds_or_names_the_parameter(method, name, value):
    try:
        rel = pv.build(PTS, DOM, method, 1.0, seed=1, **{name: value})
    except ValueError as exc:
        msg = str(exc)
        assert name in msg or "memory cap" in msg, msg
        return
    assert rel.ledger.total() <= 1.0 + 1e-9
    assert np.isfinite(rel.answer([[0.1, 0.1, 0.6, 0.7]])).all()


@pytest.mark.parametrize("kw,needle", [
    ({"epsilon": "0.5"}, "epsilon"), ({"epsilon": True}, "epsilon"), ({"epsilon": np.float64(0.5)}, None),
    ({"method": ["quadtree"]}, "method"), ({"resolution": "8"}, "resolution"), ({"resolution": 0}, "resolution"),
    ({"resolution": np.int64(8)}, None),
])
def test_top_level_arguments(kw, needle):
    args = {"method": "quadtree", "epsilon": 0.5, **kw}
    if needle is None:
        assert pv.build(PTS, DOM, seed=1, **args).epsilon == 0.5
    else:
        with pytest.raises(ValueError, match=needle):
            pv.build(PTS, DOM, seed=1, **args)


def test_complex_points_are_refused_not_truncated():
    with pytest.raises(ValueError, match="complex"):
        pv.build(PTS + 1j, DOM, "quadtree", 0.5, seed=1)


def test_domains_whose_width_overflows_are_refused():
    with pytest.raises(ValueError, match="width"):
        pv.Domain(-1e308, -1e308, 1e308, 1e308)
    with pytest.raises(ValueError, match="area"):
        pv.Domain(0, 0, 1e200, 1e200)
