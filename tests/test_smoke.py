"""End-to-end smoke checks of the public surface."""
import numpy as np

import psdviz as pv


def test_build_and_answer_every_method():
    rng = np.random.default_rng(0)
    pts = rng.uniform(0, 1, (2000, 2))
    dom = pv.Domain(0, 0, 1, 1)
    for m in pv.METHODS:
        rel = pv.build(pts, dom, method=m, epsilon=1.0, seed=1)
        a = rel.answer([[0, 0, 1, 1], [0.2, 0.2, 0.5, 0.6]])
        assert a.shape == (2,) and np.isfinite(a).all()
        assert rel.ledger.total() <= 1.0 + 1e-9
