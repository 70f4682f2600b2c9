"""kd-privtree's depth cap follows PrivTree's rule: unset, it is as deep as the grid allows and silent; a
max_depth given above that depth is capped and said, and no tree is cut by the grid's cap."""
from __future__ import annotations

import numpy as np
import pytest

import psdviz as pv
from psdviz.methods.kd_privtree import MAX_DEPTH, deepest_depth
from psdviz.methods.param_info import parameter_info

PTS = np.vstack([np.random.default_rng(0).random((2000, 2)), np.full((2000, 2), 0.001)])
DOM = pv.Domain(0, 0, 1, 1)


def test_unset_means_the_grid_capped_silently():
    info = parameter_info("kd-privtree")["max_depth"]
    assert info.default is None and info.optional and "grid" in info.when_none
    quiet = pv.build(PTS, DOM, "kd-privtree", 1.0, seed=1, resolution=10)
    assert quiet.params["max_depth"] == deepest_depth(10, 8) == 28
    assert not any("capped" in n for n in quiet.notes)
    fine = pv.build(PTS, DOM, "kd-privtree", 1.0, seed=1, resolution=20)
    assert fine.params["max_depth"] == MAX_DEPTH and not any("capped" in n for n in fine.notes)


@pytest.mark.parametrize("given", [29, MAX_DEPTH, 64])
def test_a_given_depth_above_the_grid_is_capped_with_a_note(given):
    said = pv.build(PTS, DOM, "kd-privtree", 1.0, seed=1, resolution=10, max_depth=given)
    assert any(f"max_depth {given} capped to 28: resolution 10" in n for n in said.notes)
    assert said.params["max_depth"] == 28
    quiet = pv.build(PTS, DOM, "kd-privtree", 1.0, seed=1, resolution=10)
    assert np.array_equal(quiet.tree.rect, said.tree.rect)        # the same tree: the cap is the grid's


def test_a_given_depth_within_the_grid_is_kept_silently():
    kept = pv.build(PTS, DOM, "kd-privtree", 1.0, seed=1, resolution=10, max_depth=6)
    assert kept.params["max_depth"] == 6 and kept.tree.height <= 6
    assert not any("capped" in n for n in kept.notes)


@pytest.mark.parametrize("bits", [2, 3, 5])
def test_no_tree_reaches_below_the_deepest_depth(bits):
    """With a huge epsilon every non-empty cell splits while it can: the tree still ends at the bound."""
    for levels in (1, 8, 64):
        rel = pv.build(PTS, DOM, "kd-privtree", 1e4, seed=3, resolution=bits, split_levels=levels, max_depth=64)
        assert rel.tree.height <= deepest_depth(bits, levels) == rel.params["max_depth"]
