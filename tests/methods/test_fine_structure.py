"""The structure test (methods/fine_structure.py) and the quadtree that uses it: the statistic's law with
and without structure, its sensitivity, when it is bought, the ledger, and the height it keeps."""
import numpy as np
import pytest
from scipy.stats import binom

import psdviz as pv
from psdviz.core.domain import Domain
from psdviz.core.ledger import Ledger
from psdviz.core.rng import make_randomness
from psdviz.methods import fine_structure as fs

DOM = Domain(0, 0, 256, 256)
RUNS = 400


def _mad(n: np.ndarray) -> np.ndarray:
    """E|2B - n|, B ~ Bin(n, 1/2), per element."""
    out = []
    for k in n:
        x = np.arange(k + 1)
        out.append((binom.pmf(x, k, 0.5) * np.abs(2 * x - k)).sum())
    return np.array(out)


def test_no_structure_inside_the_parents_gives_mean_zero_within_its_sd_bound():
    rng = np.random.default_rng(3)
    parents = rng.integers(0, 60, 4 ** 4)
    draws = [fs.excess_imbalance(rng.multinomial(parents, [0.25] * 4).ravel(), rng) for _ in range(RUNS)]
    sd_bound = np.sqrt(8 * parents.sum())              # module docstring: Var <= 8 N without structure
    assert np.std(draws) <= sd_bound
    assert abs(np.mean(draws)) <= 4 * sd_bound / np.sqrt(RUNS)


def test_every_point_in_one_quarter_gives_four_n_less_the_coins():
    """d = e = n in every cell: S = 2 N over the cells and 2 N over the blocks (4 blocks of 64 cells)."""
    rng = np.random.default_rng(4)
    parents = rng.integers(0, 40, 4 ** 4)
    children = np.zeros((parents.size, 4), np.int64)
    children[:, 3] = parents                            # upper right quarter: x1 = y1 = n, x0 = y0 = 0
    draws = [fs.excess_imbalance(children.ravel(), rng) for _ in range(RUNS)]
    blocks = parents.reshape(-1, fs.BLOCK_CELLS).sum(1)
    expected = 4 * parents.sum() - 2 * _mad(parents).sum() - 2 * _mad(blocks).sum()
    sd = 2 * np.sqrt(parents.sum())                     # only the coins vary: Var <= (sqrt N + sqrt N)^2
    assert abs(np.mean(draws) - expected) <= 4 * sd / np.sqrt(RUNS)
    assert expected > 3 * parents.sum()


def test_one_point_moves_the_statistic_by_at_most_the_sensitivity_for_every_coin_draw():
    """S by 1 per axis in the cell and in its block; R, with the new point's own coins, likewise: D by at most
    8 (R from explicit coins here, summed per cell and per block of BLOCK_CELLS cells)."""
    rng = np.random.default_rng(5)
    cells = 2 * fs.BLOCK_CELLS

    def r_of(coins):
        signed = np.array([2 * c.sum(0) - len(c) for c in coins])        # per cell, both axes
        return int(np.abs(signed).sum() + np.abs(signed.reshape(-1, fs.BLOCK_CELLS, 2).sum(1)).sum())

    for _ in range(200):
        children = rng.integers(0, 4, (cells, 4))
        cell, child = rng.integers(cells), rng.integers(4)
        more = children.copy()
        more[cell, child] += 1
        s, parents = fs.half_imbalance(children.ravel())
        s2, _ = fs.half_imbalance(more.ravel())
        assert abs(s2 - s) <= 4 and (s2 - s) % 2 == 0
        coins = [rng.integers(0, 2, (n, 2)) for n in parents]          # one coin per point and axis
        r = r_of(coins)
        coins[cell] = np.vstack([coins[cell], rng.integers(0, 2, (1, 2))])
        assert abs(r_of(coins) - r) <= 4
        assert abs((s2 - r_of(coins)) - (s - r)) <= fs.SENSITIVITY


def test_bought_only_where_three_noise_scales_are_at_most_one_percent_of_n():
    eps = 1.0
    edge = fs.Z * fs.noise_scale(eps) / fs.POWER_SHARE
    assert edge == pytest.approx(720_000)
    assert fs.worth_testing(edge * 1.01, eps, 8) and not fs.worth_testing(edge * 0.99, eps, 8)
    assert not fs.worth_testing(1e9, eps, fs.TESTED_LEVELS)       # the tree must keep a level below the root


def test_levels_ledger_and_the_height_kept():
    """Leaves at level 5 structured down to level 3 and even inside level-3 cells: levels 5 and 4 show
    nothing, level 3 does, so height 3 is kept; three ledger lines of a third of 1 % of epsilon."""
    rng = np.random.default_rng(6)
    coarse = np.zeros(4 ** 3, np.int64)
    coarse[rng.choice(coarse.size, 12, replace=False)] = 40_000        # structure between level-3 cells
    leaves = rng.multinomial(coarse, [1 / 16] * 16).ravel()            # even inside them (Morton order)
    levels = [leaves]
    for _ in range(5):
        levels.append(levels[-1].reshape(-1, 4).sum(1))
    levels = levels[::-1]
    eps = 1.0
    ledger = Ledger(eps)
    kept, tests = fs.test_levels(levels, 5, float(coarse.sum()), eps, make_randomness(1), ledger)
    assert kept == 3 and [t.level for t in tests] == [5, 4, 3]
    assert [t.structured for t in tests] == [False, False, True]
    assert [s.what for s in ledger.spends] == [f"structure test: level {k}" for k in (5, 4, 3)]
    np.testing.assert_allclose([s.epsilon for s in ledger.spends], fs.STRUCTURE_FRACTION * eps / 3)
    assert all(s.sensitivity == fs.SENSITIVITY for s in ledger.spends)
    assert "cut to 3" in fs.cut_note(5, kept, tests)


def _coarse_points(n: int, side: int, seed: int) -> np.ndarray:
    """Clustered counts on a side x side grid of [0, 256)^2, each point uniform inside its cell (DPBench's
    placement at a coarser precision)."""
    rng = np.random.default_rng(seed)
    centre = rng.normal([90, 150], 25, (n, 2)).clip(0, 255.99)
    w = 256 / side
    return (np.floor(centre / w) + rng.random((n, 2))) * w


def test_the_quadtree_stops_at_the_data_precision_and_every_path_costs_epsilon():
    """400,000 points at the precision of level 7, epsilon 2: the rule's height is 9, levels 9 and 8 show
    nothing, 7 does."""
    pts = _coarse_points(400_000, 128, 0)
    rel = pv.build(pts, DOM, "quadtree", 2.0, seed=2, resolution=12)
    assert rel.params["height"] == 7 and rel.params["structure_test"] is True
    assert any("cut to 7" in note for note in rel.notes)
    lines = [s for s in rel.ledger.spends if s.what.startswith("structure test")]
    assert [s.what for s in lines] == [f"structure test: level {k}" for k in (9, 8, 7)]
    np.testing.assert_allclose(rel.tree.path_epsilons(), 2.0)
    assert rel.ledger.total() == pytest.approx(2.0)
    off = pv.build(pts, DOM, "quadtree", 2.0, seed=2, resolution=12, structure_test=False)
    assert off.params["height"] == 9 and not any(s.what.startswith("structure") for s in off.ledger.spends)


def test_tight_clusters_keep_the_rule_height():
    rng = np.random.default_rng(1)
    centres = rng.uniform(20, 230, (20, 2))
    pts = (centres[rng.integers(0, 20, 400_000)] + rng.normal(0, 0.5, (400_000, 2))).clip(0, 255.99)
    rel = pv.build(pts, DOM, "quadtree", 2.0, seed=2, resolution=12)
    assert rel.params["height"] == 9 and not any("cut to" in note for note in rel.notes)
    assert len([s for s in rel.ledger.spends if s.what.startswith("structure test")]) == 3


def test_below_the_power_condition_nothing_is_bought():
    rel = pv.build(_coarse_points(300_000, 64, 1), DOM, "quadtree", 2.0, seed=2, resolution=12)
    assert not any(s.what.startswith("structure") for s in rel.ledger.spends)
    np.testing.assert_allclose(rel.tree.path_epsilons(), 2.0)


def test_a_saved_release_keeps_the_parameter(tmp_path):
    rel = pv.build(_coarse_points(20_000, 64, 2), DOM, "quadtree", 1.0, resolution=10, structure_test=False)
    path = tmp_path / "q.psd.json"
    rel.save(path)
    assert pv.load_release(path).params["structure_test"] is False
