"""A depth cap the user did not ask for is not a note: PrivTree's unset max_depth (None) means "as deep as the
grid allows"; a max_depth given above the resolution is capped and said, whatever its value."""
from __future__ import annotations

import numpy as np
import pytest

import psdviz as pv
from psdviz.methods.param_info import parameter_info
from psdviz.methods.privtree import MAX_DEPTH

PTS = np.random.default_rng(0).random((2000, 2))
DOM = pv.Domain(0, 0, 1, 1)


def test_the_default_depth_is_capped_silently_and_a_given_one_with_a_note():
    quiet = pv.build(PTS, DOM, "privtree", 1.0, seed=1, resolution=10)
    assert not any("capped" in n for n in quiet.notes)
    said = pv.build(PTS, DOM, "privtree", 1.0, seed=1, resolution=10, max_depth=16)
    assert any("max_depth 16 capped to 10" in n for n in said.notes)
    assert np.array_equal(quiet.tree.rect, said.tree.rect)        # the same tree: the cap is the grid's


@pytest.mark.parametrize("given", [MAX_DEPTH, 40])
def test_a_given_depth_is_said_when_capped_even_at_the_old_default(given):
    said = pv.build(PTS, DOM, "privtree", 1.0, seed=1, resolution=10, max_depth=given)
    assert any(f"max_depth {given} capped to 10" in n for n in said.notes)
    assert said.params["max_depth"] == 10


def test_unset_means_the_grid_and_a_given_depth_within_it_is_kept_silently():
    info = parameter_info("privtree")["max_depth"]
    assert info.default is None and info.optional and "grid" in info.when_none
    unset = pv.build(PTS, DOM, "privtree", 1.0, seed=1, resolution=10, max_depth=None)
    assert unset.params["max_depth"] == 10 and not any("capped" in n for n in unset.notes)
    kept = pv.build(PTS, DOM, "privtree", 1.0, seed=1, resolution=10, max_depth=4)
    assert kept.params["max_depth"] == 4 and not any("capped" in n for n in kept.notes)
    fine = pv.build(PTS, DOM, "privtree", 1.0, seed=1, resolution=30)
    assert fine.params["max_depth"] == MAX_DEPTH and not any("capped" in n for n in fine.notes)
