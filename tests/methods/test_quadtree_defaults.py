"""Quadtree defaults: quad-opt with the height chosen from N and epsilon."""
from __future__ import annotations

import numpy as np
import pytest

import psdviz as pv
from psdviz.methods.quadtree import quad_height

DOM = pv.Domain(0.0, 0.0, 1.0, 1.0)


@pytest.mark.parametrize("n,eps,h", [(19_435, 0.1, 4), (19_435, 1.0, 6), (464_040, 1.0, 8), (10, 0.1, 1),
                                     (10 ** 9, 1.0, 11)])
def test_height_rule(n, eps, h):
    assert quad_height(n, eps) == h == min(11, max(1, int(np.ceil(np.log(max(n * eps / 10, 1)) / np.log(4)))))


def test_default_is_quad_opt_with_a_noisy_n_accounted():
    pts = np.random.default_rng(0).random((20_000, 2))
    rel = pv.build(pts, DOM, "quadtree", 1.0, seed=1)
    spends = {s.what: s.epsilon for s in rel.ledger.spends}
    assert spends["N estimate"] == pytest.approx(0.05)
    assert rel.params["prune"] == 32 and rel.params["postprocess"] and rel.params["budget"] == "geometric"
    assert rel.params["height"] in (6, 7)        # noisy N around 20,000 at epsilon 0.95: ceil(log4(1900)) = 6
    assert rel.tree.path_epsilons().max() == pytest.approx(1.0)
    public = pv.build(pts, DOM, "quadtree", 1.0, seed=1, n_public=20_000)
    assert "N estimate" not in {s.what for s in public.ledger.spends} and public.params["height"] == 6
    given = pv.build(pts, DOM, "quadtree", 1.0, seed=1, height=5)
    assert given.params["height"] == 5 and given.params["N"].startswith("not needed")
    assert given.ledger.total() == pytest.approx(1.0) and "N estimate" not in {s.what for s in given.ledger.spends}
