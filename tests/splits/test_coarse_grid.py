"""Splits on a coarser public grid first (psdviz.splits.coarse_grid): where the splits go, what the inner
rule is handed, the law of a wrapped private median and its D vs D' ratio, and the hybrid tree built with it."""
from __future__ import annotations

import numpy as np
import pytest

import psdviz as pv
from psdviz.core.ledger import Ledger
from psdviz.core.rng import make_randomness
from psdviz.lab.synthetic import zero_inflated
from psdviz.methods.kdtree import median_chooser
from psdviz.splits.coarse_grid import coarse_first
from psdviz.splits.medians import em_position_probabilities
from psdviz.splits.quantile import merge_keys

BITS, COARSE = 12, 8
CELL = 1 << (BITS - COARSE)            # 16 release-grid steps per coarse cell
SIZE = 1 << BITS


def midpoint(t, axis, vals, offsets, rect, weights):
    return (rect[:, axis] + rect[:, axis + 2]) // 2


def test_wide_nodes_split_on_the_coarse_grid_narrow_ones_hold_then_split_finely():
    rect = np.array([[0, 0, SIZE, SIZE],                    # wide: the coarse midpoint
                     [3 * CELL, 0, 4 * CELL, SIZE],          # one coarse cell wide, tall: not cut along x
                     [3 * CELL, 5 * CELL, 4 * CELL, 6 * CELL],   # one coarse cell: split finely
                     [3 * CELL, 5 * CELL, 3 * CELL + 5, 6 * CELL],   # inside a coarse cell: finely
                     [0, 0, 3 * CELL, SIZE]])                # three cells wide: a coarse position
    empty = np.zeros(0, np.int64)
    out = coarse_first(midpoint, BITS, COARSE)(0, 0, empty, np.zeros(rect.shape[0] + 1, np.int64), rect, empty)
    assert out.tolist() == [SIZE // 2, 3 * CELL, 3 * CELL + CELL // 2, 3 * CELL + 2, CELL]
    assert coarse_first(midpoint, BITS, None) is midpoint and coarse_first(midpoint, BITS, BITS) is midpoint


def test_the_inner_rule_gets_the_keys_rounded_to_coarse_cells_with_their_counts_summed():
    seen = {}

    def record(t, axis, vals, offsets, rect, weights):
        seen.update(vals=vals.tolist(), offsets=offsets.tolist(), rect=rect.tolist(), weights=weights.tolist())
        return rect[:, axis] + 1

    vals = np.array([1, 5, 17, 40,    3, 4])                  # node 0 (wide) then node 1 (inside one cell)
    weights = np.array([2, 1, 4, 1,    1, 3])
    rect = np.array([[0, 0, SIZE, SIZE], [0, 0, CELL, CELL]])
    out = coarse_first(record, BITS, COARSE)(0, 0, vals, np.array([0, 4, 6]), rect, weights)
    assert seen["vals"] == [0, 1, 2, 3, 4] and seen["weights"] == [3, 4, 1, 1, 3] and seen["offsets"] == [0, 3, 5]
    assert seen["rect"][0] == [0, 0, SIZE >> 4, SIZE] and seen["rect"][1] == [0, 0, CELL, CELL]
    assert out.tolist() == [CELL, 1]                          # coarse answer scaled back; fine one as is
    keys, offs, w = merge_keys(np.array([1, 1, 2, 2, 2]), np.array([0, 2, 5]), np.array([1, 2, 3, 4, 5]))
    assert keys.tolist() == [1, 2] and offs.tolist() == [0, 1, 2] and w.tolist() == [3, 12]
    assert merge_keys(np.array([1, 1, 2, 2, 2]), np.array([0, 2, 5]))[2].tolist() == [2, 3]


def _wrapped_median_draws(keys: np.ndarray, eps: float, trials: int, seed: int) -> np.ndarray:
    """``trials`` draws of the wrapped EM median of one wide node (one vectorised call on tiled copies)."""
    vals, counts = np.unique(keys, return_counts=True)
    ledger = Ledger(100.0)
    inner = median_chooser(make_randomness(seed), ledger, eps, 1, "em", 1.0, 0.0)
    rect = np.tile([0, 0, SIZE, SIZE], (trials, 1))
    out = coarse_first(inner, BITS, COARSE)(0, 0, np.tile(vals, trials), np.arange(trials + 1) * vals.size, rect,
                                            np.tile(counts, trials))
    assert ledger.spends[0].epsilon == eps                    # the median's cost is unchanged by the rounding
    return out


def _law(keys: np.ndarray, eps: float) -> np.ndarray:
    """Exact law of the wrapped median over the coarse positions 1 .. 255 (the EM on rounded keys)."""
    return em_position_probabilities(np.sort(keys) >> (BITS - COARSE), 0, 1 << COARSE, eps)


@pytest.fixture(scope="module")
def neighbours():
    rng = np.random.default_rng(4)
    d = np.sort(rng.integers(0, SIZE, 9))
    return d, np.sort(np.r_[d, 2 * CELL + 3])                # D' adds one point


def test_wrapped_median_follows_the_mechanism_on_rounded_keys(neighbours):
    d, _ = neighbours
    eps, trials = 0.8, 40_000
    out = _wrapped_median_draws(d, eps, trials, 3)
    assert np.all(out % CELL == 0)                            # every released split is on the coarse grid
    freq = np.bincount(out // CELL - 1, minlength=255) / trials
    p = _law(d, eps)
    se = np.sqrt(p * (1 - p) / trials)
    assert np.all(np.abs(freq - p) <= 5 * se + 1e-4)


def test_wrapped_median_d_vs_d_prime_ratio_within_e_eps(neighbours):
    """The exact laws for D and D' (one point more) differ by at most e^eps at every coarse position, and the
    drawn frequencies agree with both (5 binomial standard errors); with three times the epsilon the laws
    break the e^eps bound, so the check can fail."""
    d, d2 = neighbours
    eps, trials = 0.8, 40_000
    p, p2 = _law(d, eps), _law(d2, eps)
    assert np.max(np.abs(np.log(p / p2))) <= eps + 1e-9
    f, f2 = (np.bincount(_wrapped_median_draws(x, eps, trials, s) // CELL - 1, minlength=255) / trials
             for x, s in ((d, 5), (d2, 6)))
    for freq, law in ((f, p), (f2, p2)):
        assert np.all(np.abs(freq - law) <= 5 * np.sqrt(law * (1 - law) / trials) + 1e-4)
    assert np.max(np.abs(np.log(_law(d, 3 * eps) / _law(d2, 3 * eps)))) > eps


DOM = pv.Domain(0, 0, 256, 256)


@pytest.fixture(scope="module")
def spread_atom():
    """DPBench's placement of an atom histogram: points uniform inside their 256-grid cells."""
    return zero_inflated(20_000, DOM, np.random.default_rng(2), atom=0.87, lines=0.13, corner=True)


def test_hybrid_on_the_coarse_grid_cuts_out_the_atom_cell_and_every_path_costs_epsilon(spread_atom):
    rel = pv.build(spread_atom, DOM, "hybrid", 1.0, seed=3, split_grid=256, nonnegative=True)
    assert rel.grid.bits == 20 and rel.params["split_grid"] == 256
    tree = rel.tree
    assert np.any(np.all(np.isclose(tree.rect, [0, 0, 1, 1]), axis=1))    # the atom's cell is a node
    w, h = tree.rect[:, 2] - tree.rect[:, 0], tree.rect[:, 3] - tree.rect[:, 1]
    wide = (w >= 2) & (h >= 2)                        # nodes spanning two coarse cells both ways: on its lines
    assert np.allclose(tree.rect[wide], np.round(tree.rect[wide]))
    assert rel.ledger.total() == pytest.approx(1.0)
    np.testing.assert_allclose(tree.path_epsilons().max(), 1.0)


def test_at_the_coarse_resolution_the_split_grid_changes_nothing(spread_atom):
    a = pv.build(spread_atom, DOM, "hybrid", 1.0, seed=7, resolution=8, split_grid=256)
    b = pv.build(spread_atom, DOM, "hybrid", 1.0, seed=7, resolution=8)
    np.testing.assert_array_equal(a.tree.rect, b.tree.rect)
    np.testing.assert_array_equal(a.tree.noisy, b.tree.noisy)


@pytest.mark.parametrize("bad, msg", [(100, "power of two"), (1, r"split_grid must be an integer >= 2"),
                                      (2.5, "whole number")])
def test_split_grid_must_be_a_power_of_two(spread_atom, bad, msg):
    with pytest.raises(ValueError, match=msg):
        pv.build(spread_atom[:100], DOM, "hybrid", 1.0, split_grid=bad)
