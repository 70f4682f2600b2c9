"""A depth cap the user did not ask for is not a note: PrivTree's default max_depth means "as deep as the grid
allows"; a max_depth given above the resolution is capped and said."""
from __future__ import annotations

import numpy as np

import psdviz as pv

PTS = np.random.default_rng(0).random((2000, 2))
DOM = pv.Domain(0, 0, 1, 1)


def test_the_default_depth_is_capped_silently_and_a_given_one_with_a_note():
    quiet = pv.build(PTS, DOM, "privtree", 1.0, seed=1, resolution=10)
    assert not any("capped" in n for n in quiet.notes)
    said = pv.build(PTS, DOM, "privtree", 1.0, seed=1, resolution=10, max_depth=16)
    assert any("max_depth 16 capped to 10" in n for n in said.notes)
    assert np.array_equal(quiet.tree.rect, said.tree.rect)        # the same tree: the cap is the grid's
