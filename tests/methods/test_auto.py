"""method="auto": two to four noisy facts, a rule table, the rest of epsilon to the chosen method."""
import dataclasses
import math

import numpy as np
import pytest

import psdviz as pv
from psdviz.core.domain import Domain, prepare_points
from psdviz.core.lattice import REAL_BITS, statistic_steps
from psdviz.core.ledger import Ledger
from psdviz.core.noise import geometric_variance
from psdviz.core.rng import make_randomness
from psdviz.inference.tree_nnls import nnls_estimate
from psdviz.lab.synthetic import zero_inflated
from psdviz.methods import auto
from psdviz.splits.keyers import even_cells

DOM = Domain(0, 0, 256, 256)


def _spread(n, rng):
    return rng.uniform(0, 256, (n, 2))


def _concentrated(n, rng):
    return np.clip(rng.normal([60, 70], 4, (n, 2)), 0, 255.9)


def _atom(n, rng):
    return zero_inflated(n, DOM, rng, atom=0.6, lines=0.3, corner=True)


def _interior_atom(n, rng):
    return zero_inflated(n, DOM, rng, atom=0.6, lines=0.3, corner=False)


@pytest.mark.parametrize("make, eps, expect, label", [(_spread, 0.5, "ag", "ag"),
                                                      (_concentrated, 0.2, "privtree", "privtree"),
                                                      (_concentrated, 1.0, "quadtree", "quadtree"),
                                                      (_atom, 0.5, "hybrid", "hybrid+nnls"),
                                                      (_interior_atom, 0.2, "lines", "lines")])
def test_picks_by_the_facts_and_records_what_it_cost(make, eps, expect, label):
    pts = make(200_000, np.random.default_rng(0))
    rel = pv.build(pts, DOM, "auto", eps, seed=3, resolution=8)
    assert rel.method == "auto" and rel.params["chosen"] == expect
    assert rel.params["nonnegative"] == (label != expect)
    whats = [s.what for s in rel.ledger.spends]
    assert whats[:3] == ["auto feature: N", "auto feature: occupied cells", "auto feature: largest corner cell"]
    assert sum(s.epsilon for s in rel.ledger.spends[:3]) == pytest.approx(auto.FEATURE_FRACTION * eps)
    line = [s.epsilon for s in rel.ledger.spends if s.what == "auto feature: fullest line of cells"]
    bought = label != "hybrid+nnls" and _noisy_n(rel) * eps < auto.LINES_N_EPS_MAX   # read from released values
    assert line == ([pytest.approx(_eps_cells(eps))] if bought else [])
    cost = auto.FEATURE_FRACTION * eps + sum(line)       # the line fact as much again as a cell fact
    assert rel.ledger.total() == pytest.approx(eps) and rel.epsilon == eps
    np.testing.assert_allclose(rel.tree.path_epsilons().max(), eps)
    assert rel.notes[0].startswith(f"auto chose {label}: ") and "N estimate" not in whats   # N bought once
    assert rel.notes[1].startswith(f"What auto measured, for epsilon {rel.params['choice_epsilon']:g}: ")
    assert rel.params["choice_epsilon"] == pytest.approx(cost)


def _noisy_n(rel) -> float:
    """The N the rule read: the noisy count the note states ("about 123,456 points")."""
    import re
    return float(re.search(r"about ([\d,]+) points", rel.notes[1]).group(1).replace(",", ""))


def test_public_n_puts_the_whole_slice_on_the_cell_facts():
    pts = _spread(50_000, np.random.default_rng(1))
    rel = pv.build(pts, DOM, "auto", 1.0, seed=0, resolution=8, n_public=50_000)
    cells = [s.epsilon for s in rel.ledger.spends if s.what.startswith("auto feature: ")]
    assert cells == [pytest.approx(0.02 / auto.CELL_FACTS)] * (auto.CELL_FACTS + 1)    # and the line fact
    assert "auto feature: N" not in {s.what for s in rel.ledger.spends}
    assert rel.params["chosen"] == "ag" and "declared public" in rel.notes[1]


def _eps_cells(eps, facts=auto.CELL_FACTS):
    return auto.FEATURE_FRACTION * eps / 2 / facts


def test_spread_is_near_one_for_uniform_points_within_its_noise():
    """Uniform points occupy about C (1 - exp(-N/C)) cells; the noisy fact's error is the geometric noise
    (variance known) plus the binomial spread of the occupancy, both bounded here at 6 sd."""
    rng = np.random.default_rng(4)
    n, eps = 40_000, 1.0
    ps = prepare_points(_spread(n, rng), DOM, resolution=8)
    facts, pop = auto.measure_facts(ps, eps, make_randomness(5), Ledger(eps), None)
    expected = auto.uniform_occupancy(n, 256 * 256)
    sd_noise = np.sqrt(geometric_variance(_eps_cells(eps)))
    sd_occ = np.sqrt(expected * np.exp(-n / 65536))     # at most the variance of the occupied count
    assert abs(facts.spread * auto.uniform_occupancy(pop.value, 65536) - expected) < 6 * (sd_noise + sd_occ)
    assert abs(pop.value - n) < 6 * np.sqrt(geometric_variance(auto.FEATURE_FRACTION * eps / 2))
    assert facts.corner_share == 0.0   # a uniform corner cell (a point or two) is far below 3 noise scales


@pytest.mark.parametrize("corner, expect", [((0.5, 0.5), 0.4), ((255.5, 0.5), 0.4), ((255.5, 255.5), 0.4),
                                            ((0.5, 255.5), 0.4), ((1.5, 0.5), 0.0), ((10.5, 10.5), 0.0)])
def test_corner_share_is_a_lower_bound_read_from_the_four_corner_cells_only(corner, expect):
    """(noisy largest corner count - 3 / eps_cells) / noisy N: an atom of 40 % of N in any corner cell
    gives 0.4 less three noise scales (within 6 sd: the count's geometric noise and the noisy N's share);
    one cell away from the corner it gives 0."""
    n, eps = 100_000, 1.0
    pts = np.vstack([np.tile(corner, (40_000, 1)), _spread(n - 40_000, np.random.default_rng(8))])
    facts, pop = auto.measure_facts(prepare_points(pts, DOM, resolution=8), eps, make_randomness(9), Ledger(eps), None)
    e = _eps_cells(eps)
    sd = (np.sqrt(geometric_variance(e)) + 0.4 * np.sqrt(geometric_variance(auto.FEATURE_FRACTION * eps / 2))) / n
    want = expect - 3 / (e * n) if expect else 0.0
    assert abs(facts.corner_share - want) < 6 * sd and facts.corner_share < 0.4


@pytest.mark.parametrize("atom, expect", [("point", 0.4), ("cell", 0.0)])
def test_corner_fact_reads_the_corner_positions_of_the_release_grid(atom, expect):
    """At resolution 12 a 40 % atom at exactly (0, 0) is a corner atom; the same points spread over the
    256 x 256 grid's corner cell [0, 1)^2 (16 x 16 positions at this resolution) are not. Both are in
    that coarse corner cell, which the fourth fact reads, bought on top of the slice with the epsilon of
    one cell fact (the other facts keep their resolution-8 noise)."""
    n, eps = 100_000, 1.0
    rng = np.random.default_rng(8)
    corner = np.zeros((40_000, 2)) if atom == "point" else rng.uniform(0, 1, (40_000, 2))
    ps = prepare_points(np.vstack([corner, _spread(n - 40_000, rng)]), DOM, resolution=12)
    ledger = Ledger(eps)
    facts, _ = auto.measure_facts(ps, eps, make_randomness(9), ledger, None)
    e = _eps_cells(eps)
    sd = (np.sqrt(geometric_variance(e)) + 0.4 * np.sqrt(geometric_variance(auto.FEATURE_FRACTION * eps / 2))) / n
    want = expect - 3 / (e * n) if expect else 0.0
    assert abs(facts.corner_share - want) < 6 * sd
    assert abs(facts.coarse_corner_share - (0.4 - 3 / (e * n))) < 6 * sd
    assert [s.what for s in ledger.spends][-1] == "auto feature: largest coarse corner cell"
    assert [s.epsilon for s in ledger.spends][1:] == [pytest.approx(e)] * 3
    assert ledger.total() == pytest.approx(auto.FEATURE_FRACTION * eps + e)


def test_coarse_corner_is_the_corner_fact_itself_at_256_cells_or_coarser():
    """At resolution 8 the release grid is the 256 x 256 grid: no fourth fact is bought, the coarse share
    is the corner share."""
    pts = zero_inflated(20_000, DOM, np.random.default_rng(5), atom=0.6, lines=0.3, corner=True)
    ledger = Ledger(1.0)
    facts, _ = auto.measure_facts(prepare_points(pts, DOM, resolution=8), 1.0, make_randomness(2), ledger, None)
    assert facts.coarse_corner_share == facts.corner_share > 0.4
    assert len(ledger.spends) == 1 + auto.CELL_FACTS


@pytest.mark.parametrize("resolution, corner_facts", [(8, 1), (12, 2)])
def test_below_n_eps_10_4_the_spread_is_not_bought_and_its_share_goes_to_the_corner_facts(resolution, corner_facts):
    """N eps = 6,000 (noisy N): no rule reads the spread there, so there is no "occupied cells" line, the
    spread is NaN, and each corner fact has (1 + 1 / corner facts) times a cell fact's epsilon; the facts
    cost what they cost above the threshold; the corner share keeps its law (a 40 % atom at (0, 0) read
    as 0.4 less three of the larger fact's noise scales, within 6 sd)."""
    n, eps = 60_000, 0.1
    rng = np.random.default_rng(3)
    pts = np.vstack([np.zeros((24_000, 2)), _spread(n - 24_000, rng)])
    ledger = Ledger(eps)
    facts, pop = auto.measure_facts(prepare_points(pts, DOM, resolution=resolution), eps, make_randomness(4), ledger,
                                    None)
    assert pop.value * eps < auto.N_EPS_MIN and np.isnan(facts.spread)
    whats = [s.what for s in ledger.spends]
    assert "auto feature: occupied cells" not in whats and len(whats) == 1 + corner_facts
    e = _eps_cells(eps) * (1 + 1 / corner_facts)
    assert [s.epsilon for s in ledger.spends][1:] == [pytest.approx(e)] * corner_facts
    bought = auto.FEATURE_FRACTION * eps + (_eps_cells(eps) if corner_facts == 2 else 0.0)
    assert ledger.total() == pytest.approx(bought)
    sd = (np.sqrt(geometric_variance(e)) + 0.4 * np.sqrt(geometric_variance(auto.FEATURE_FRACTION * eps / 2))) / n
    assert abs(facts.corner_share - (0.4 - 3 / (e * n))) < 6 * sd


def test_a_release_without_the_spread_says_so_and_saves(tmp_path):
    """The note says the spread was not measured, params record it as None, the file round-trips, and
    every root-to-leaf path still sums to epsilon."""
    pts = _concentrated(3_000, np.random.default_rng(2))
    rel = pv.build(pts, DOM, "auto", 0.5, seed=1, resolution=8)
    assert rel.params["spread"] is None and rel.params["chosen"] == "privtree"
    assert "was not measured, as no rule reads it" in rel.notes[1]
    np.testing.assert_allclose(rel.tree.path_epsilons().max(), 0.5)
    assert rel.ledger.total() == pytest.approx(0.5)
    back = pv.load_release(rel.save(tmp_path / "r.json", allow_seeded=True))
    assert back.params["spread"] is None and back.notes[:2] == rel.notes[:2]


def test_an_atom_spread_inside_a_coarse_corner_cell_gets_the_hybrid_on_the_coarse_grid():
    """DPBench's way of turning a histogram into points (uniform inside the 256-grid cells) at the default
    resolution: the release grid's corner position is nearly empty, the 256-grid's corner cell holds the
    atom; the second row picks the hybrid with NNLS splitting on the 256 x 256 grid first, every path still
    sums to epsilon."""
    pts = zero_inflated(30_000, DOM, np.random.default_rng(2), atom=0.87, lines=0.13, corner=True)
    rel = pv.build(pts, DOM, "auto", 1.0, seed=4)
    assert rel.grid.bits == 20 and rel.params["chosen"] == "hybrid" and rel.params["nonnegative"]
    assert rel.params["split_grid"] == 256 and "hybrid+nnls/256" in rel.notes[0]
    assert rel.params["stop_sds"] == auto.NNLS_STOP_SDS == 2.0         # NNLS keeps a false split's noise
    assert rel.params["corner_share"] == 0.0 and rel.params["coarse_corner_share"] > 0.8
    whats = [s.what for s in rel.ledger.spends]
    assert whats[:4] == ["auto feature: N", "auto feature: occupied cells", "auto feature: largest corner cell",
                         "auto feature: largest coarse corner cell"]
    assert "256 x 256 grid holds at least" in rel.notes[1]
    assert rel.ledger.total() == pytest.approx(1.0)
    np.testing.assert_allclose(rel.tree.path_epsilons().max(), 1.0)


def test_feature_pass_gives_the_coarse_grid_and_the_four_corner_positions():
    pts = np.vstack([_spread(5000, np.random.default_rng(1)), [[0, 0], [0, 0], [255.99, 0], [0, 255.99],
                                                                  [255.99, 255.99], [0.5, 0.5]]])
    ps = prepare_points(pts, DOM, resolution=10)
    coarse, corners = auto.feature_counts(ps, 256)
    np.testing.assert_array_equal(coarse, ps.counts(even_cells(ps.grid.size, 256), 256 * 256))
    k = ps.grid.keys(pts)
    last = ps.grid.size - 1
    want = [np.sum((k[:, 0] == x) & (k[:, 1] == y)) for x, y in ((0, 0), (last, 0), (0, last), (last, last))]
    np.testing.assert_array_equal(corners, want)
    assert corners[0] >= 2 and corners[1:].min() >= 1


def test_a_cluster_in_the_corner_of_a_wide_domain_is_cut_out_then_split_finely():
    """Data filling [0, 0.3]^2 of a public domain [0, 100]^2 fill the 256 x 256 grid's corner cell, but no
    corner position of the release grid: the coarse-corner row, whose hybrid cuts that cell out on the 256
    grid and then splits inside it on the release grid (within 1.0-1.5x of PrivTree on such clusters,
    docs/decisions/auto-rule.md)."""
    wide = Domain(0, 0, 100, 100)
    pts = np.random.default_rng(3).uniform(0, 0.3, (50_000, 2))
    rel = pv.build(pts, wide, "auto", 1.0, seed=2)
    assert rel.params["chosen"] == "hybrid" and rel.params["split_grid"] == 256 and rel.params["corner_share"] == 0.0
    cell = 100 / 256
    rect = rel.tree.rect
    assert np.any(np.all(np.isclose(rect, [0, 0, cell, cell]), axis=1))     # the coarse cell is a node
    inside = rel.tree.is_leaf & (rect[:, 2] <= cell) & (rect[:, 3] <= cell) & (rect[:, 2] > rect[:, 0])
    assert inside.sum() >= 64                                              # and it is split finely


def test_rule_table_reads_top_to_bottom():
    f = auto.Facts(epsilon=0.1, resolution=8, n=1e6, spread=0.8)
    assert auto.choose(f).method == "ag"
    assert auto.choose(auto.Facts(0.1, 8, 1e6, 0.3)).method == "quadtree"     # N eps = 10^5: many points
    assert auto.choose(auto.Facts(0.1, 8, 9.9e5, 0.3)).method == "privtree"   # just below
    assert auto.choose(auto.Facts(0.1, 8, 5e4, 0.9)).method == "privtree"     # N eps = 5,000 < 10^4
    corner = auto.choose(auto.Facts(0.1, 8, 1e6, 0.8, corner_share=0.5))      # the corner row first
    assert (corner.method, corner.nonnegative, corner.label) == ("hybrid", True, "hybrid+nnls")
    assert corner.stop_sds == 2.0 and auto.choose(auto.Facts(0.1, 8, 1e6, 0.3)).stop_sds is None
    assert auto.choose(auto.Facts(1.0, 8, 3e3, 0.1, corner_share=0.2)).label == "hybrid+nnls"
    assert auto.choose(auto.Facts(0.1, 8, 1e6, 0.8, corner_share=0.19)).method == "ag"
    assert auto.choose(auto.Facts(0.1, 8, 3e4, 0.1, corner_share=0.1)).method == "privtree"
    coarse = auto.Facts(1.0, 20, 3e4, 0.1, corner_share=0.0, coarse_corner_share=0.2)   # the second row
    assert auto.choose(coarse).label == "hybrid+nnls/256" and auto.choose(coarse).split_grid == 256
    both = auto.Facts(1.0, 20, 3e4, 0.1, corner_share=0.3, coarse_corner_share=0.5)     # the position first
    assert auto.choose(both).label == "hybrid+nnls"
    assert auto.choose(auto.Facts(1.0, 20, 3e4, 0.1, coarse_corner_share=0.19)).method == "privtree"
    lines = auto.Facts(1.0, 8, 3e4, 0.1, line_share=0.3)                                 # the lines row
    assert auto.choose(lines).method == "lines"
    assert auto.choose(dataclasses.replace(lines, n=1e5)).method != "lines"              # N eps = 10^5: not
    assert auto.choose(dataclasses.replace(lines, line_share=0.29)).method == "privtree"
    assert auto.choose(dataclasses.replace(lines, corner_share=0.3)).label == "hybrid+nnls"   # atoms first
    assert not auto.RULES[-1].nonnegative and auto.RULES[-1].applies(f)       # the last row always applies


def test_uniform_occupancy():
    assert auto.uniform_occupancy(0, 100) == 0
    assert auto.uniform_occupancy(1, 100) == pytest.approx(1.0, rel=1e-2)
    assert auto.uniform_occupancy(1e9, 100) == pytest.approx(100)


def test_corner_atom_gets_the_hybrid_tree_with_nnls():
    """The corner row: the chosen hybrid's estimates are the non-negative least squares of its own released
    counts (post-processing: the ledger still sums to epsilon on every path, nothing else is spent)."""
    pts = zero_inflated(30_000, DOM, np.random.default_rng(2), atom=0.87, lines=0.13, corner=True)
    rel = pv.build(pts, DOM, "auto", 0.1, seed=4, resolution=8)
    assert (rel.params["chosen"], rel.params["nonnegative"]) == ("hybrid", True)
    assert rel.notes[0].startswith("auto chose hybrid+nnls") and rel.query_model.inference == "nnls"
    tree = rel.tree
    assert tree.noisy[np.isfinite(tree.noisy)].min() < 0 <= tree.est.min() + 1e-9   # the bound was active
    np.testing.assert_allclose(tree.est, nnls_estimate(tree, tree.noisy, tree.noise_var))
    assert rel.ledger.total() == pytest.approx(0.1)
    np.testing.assert_allclose(tree.path_epsilons().max(), 0.1)


def _small_squares(pts, k=300, side=4, seed=2):
    rng = np.random.default_rng(seed)
    c = np.floor(pts[rng.integers(0, len(pts), k)])
    lo = np.clip(c - side // 2, 0, 256 - side)
    return np.column_stack([lo, lo + side])


def test_a_workload_of_small_queries_over_full_cells_goes_to_the_strategy():
    """The workload row: small squares over cells holding many noise scales of points -> the strategy, whose
    ledger follows the facts and whose every path costs epsilon once; without the workload, or with large
    rectangles, the other rows decide; on a 2 % sample at a tenth of epsilon (under one noise scale) the row does
    not apply."""
    from psdviz.lab.synthetic import gaussian_mixture
    dom = pv.Domain(0, 0, 256, 256)
    pts = gaussian_mixture(200_000, dom, np.random.default_rng(1), k=5, spread=0.05)
    small = _small_squares(pts)
    rel = pv.build(pts, dom, "auto", 1.0, seed=1, resolution=8, workload=small)
    assert rel.params["chosen"] == "strategy" and rel.params["cell_snr"] >= auto.CELL_SNR_MIN
    assert [s.what for s in rel.ledger.spends] == [                   # read first, the row applied: nothing else
        "auto feature: points in the workload's cells", "strategy answers"]
    assert rel.ledger.spends[0].epsilon == pytest.approx(0.0025)       # half a cell fact, as beside the spread
    assert rel.params["corner_share"] is None and rel.params["spread"] is None
    assert "N was not measured" in rel.notes[1] and "corner cells were not measured" in rel.notes[1]
    assert rel.ledger.total() == pytest.approx(1.0) and rel.tree.path_epsilons().max() == pytest.approx(1.0)
    assert rel.params["workload"] == small.tolist()
    big = np.array([[0, 0, 200, 150], [10, 20, 250, 256], [30, 0, 100, 90]], float)
    assert pv.build(pts, dom, "auto", 1.0, seed=1, resolution=8, workload=big).params["chosen"] == "quadtree"
    assert pv.build(pts, dom, "auto", 1.0, seed=1, resolution=8).params["chosen"] == "quadtree"
    sparse = pts[np.random.default_rng(4).random(len(pts)) < 0.02]      # 4,000 points: few per cell at eps 0.1
    assert pv.build(sparse, dom, "auto", 0.1, seed=1, resolution=8,
                    workload=_small_squares(sparse)).params["chosen"] != "strategy"


def test_the_workload_row_reads_noisy_facts_and_the_public_workload_only():
    f = auto.Facts(1.0, 8, 2e5, 0.2, workload_side=4.0, workload_density=5.0)   # 5 points a cell x eps 1
    assert auto.choose(f).method == "strategy"
    assert auto.choose(auto.Facts(1.0, 8, 2e5, 0.2, workload_side=17.0, workload_density=5.0)).method != "strategy"
    assert auto.choose(auto.Facts(0.99, 8, 2e5, 0.2, workload_side=4.0, workload_density=5.0)).method != "strategy"
    assert auto.choose(auto.Facts(1.0, 8, 2e5, 0.2)).method != "strategy"      # no workload


def _row_prefixes(k, rng):
    i, j = rng.integers(0, 256, k), rng.integers(1, 257, k)
    return np.column_stack([np.zeros(k), i, j, i + 1]).astype(float)


def test_the_thin_row_reads_the_spread_n_eps_and_the_workload_shape():
    """Long thin queries (shorter side <= 2 cells, longer > 16) over a spread whose lower bound (three noise
    scales below) is >= 0.3, from N eps = 1.5 x 10^5: the strategy; each condition alone missing leaves the pick to
    the other rows."""
    thin = {"workload_side": 128.0, "workload_thin": 1.0}
    f = auto.Facts(1.0, 8, 2e5, 0.5, spread_floor=0.45, **thin)
    assert auto.choose(f).method == "strategy"
    assert auto.choose(dataclasses.replace(f, spread_floor=0.29)).method != "strategy"   # the bound decides
    assert auto.choose(dataclasses.replace(f, n=1.4e5)).method != "strategy"             # N eps below
    assert auto.choose(dataclasses.replace(f, workload_thin=3.0)).method != "strategy"
    assert auto.choose(dataclasses.replace(f, workload_side=16.0)).method != "strategy"
    assert auto.choose(dataclasses.replace(f, spread=float("nan"), spread_floor=float("nan"))).method != "strategy"


def test_the_spread_floor_is_three_noise_scales_below_the_noisy_spread():
    """The thin row reads the spread's lower bound: the noisy occupied cells less three noise scales, over the
    cells an even spread would occupy (at epsilon 0.1 and a public N, 0.046 below the noisy spread here; a noisy
    spread of 0.34 on a file whose true spread is 0.19 was seen to reach the row without it)."""
    ps = prepare_points(np.random.default_rng(3).uniform(0, 256, (300_000, 2)), DOM, resolution=8)
    ledger = Ledger(0.1)
    facts, _ = auto.measure_facts(ps, 0.1, make_randomness(5), ledger, 300_000)
    eps_spread = next(s.epsilon for s in ledger.spends if s.what == "auto feature: occupied cells")
    even = auto.uniform_occupancy(300_000, 256 * 256)
    assert facts.spread - facts.spread_floor == pytest.approx(3 / eps_spread / even, rel=1e-9)
    assert 3 / eps_spread / even == pytest.approx(0.046, abs=0.001)


def test_row_prefixes_over_spread_data_go_to_the_strategy_with_the_same_facts():
    """End to end: 300,000 spread points and 1,000 row prefixes at epsilon 1 go to the strategy; the facts are
    the ones bought without a workload up to the row that applies (no fact is added for thin queries, and the
    corner fact no later row would read is not bought), every path spends epsilon, the release records the
    queries; random rectangles on the same data do not go there."""
    rng = np.random.default_rng(9)
    pts = rng.uniform(0, 256, (300_000, 2))
    w = _row_prefixes(1000, rng)
    assert auto.workload_cells(w, prepare_points(pts, DOM, resolution=8), 256)[1] == 1.0
    rel = pv.build(pts, DOM, "auto", 1.0, seed=2, resolution=8, workload=w)
    plain = pv.build(pts, DOM, "auto", 1.0, seed=2, resolution=8)
    assert rel.params["chosen"] == "strategy" and plain.params["chosen"] != "strategy"
    assert "nan" not in rel.notes[1] and "cell_snr" not in rel.params   # no density is bought for thin queries
    facts = [s.what for s in rel.ledger.spends if s.what.startswith("auto feature")]
    assert facts == ["auto feature: N", "auto feature: occupied cells"]
    assert facts + ["auto feature: largest corner cell"] == [s.what for s in plain.ledger.spends
                                                              if s.what.startswith("auto feature")]
    assert rel.ledger.total() == pytest.approx(1.0) and rel.tree.path_epsilons().max() == pytest.approx(1.0)
    assert np.allclose(rel.params["workload"], w)
    corners = np.sort(rng.uniform(0, 256, (200, 2, 2)), axis=1)
    rects = np.column_stack([corners[:, 0], corners[:, 1]])
    assert pv.build(pts, DOM, "auto", 1.0, seed=2, resolution=8, workload=rects).params["chosen"] != "strategy"


def test_the_fine_row_reads_the_excess_variation_spread_n_eps_and_the_workload_shape():
    """Long thin queries over excess variation >= 0.15 of N (a lower bound), spread >= 0.02 (its lower bound), from
    N eps = 10^6: the strategy; each condition alone missing leaves the pick to the other rows."""
    f = auto.Facts(1.0, 8, 2e6, 0.2, spread_floor=0.19, workload_side=128.0, workload_thin=1.0, fine_floor=0.3)
    rule = auto.choose(f)
    assert rule.method == "strategy" and rule.when.startswith("a workload of long thin queries over structure")
    assert auto.choose(dataclasses.replace(f, fine_floor=0.14)).method != "strategy"
    assert auto.choose(dataclasses.replace(f, fine_floor=float("nan"))).method != "strategy"
    assert auto.choose(dataclasses.replace(f, spread_floor=0.019)).method != "strategy"
    assert auto.choose(dataclasses.replace(f, n=0.99e6)).method != "strategy"
    assert auto.choose(dataclasses.replace(f, workload_thin=3.0)).method != "strategy"


def test_the_middle_fine_row_reads_the_excess_spread_fullest_line_n_eps_and_the_workload_shape():
    """Long thin queries over excess variation >= 0.15 of N (a lower bound), spread >= 0.02 (its lower bound), no
    row or column of cells above 0.2 of N (an upper bound), 10^5 <= N eps < 10^6: the strategy; each condition alone
    missing leaves the pick to the other rows (from 10^6 the fine row reads no line)."""
    f = auto.Facts(1.0, 8, 2e5, 0.2, spread_floor=0.19, workload_side=128.0, workload_thin=1.0, fine_floor=0.3,
                   line_ceiling=0.05)
    rule = auto.choose(f)
    assert rule.name == "thin-fine-mid" and rule.method == "strategy" and rule.workload_row
    for change in ({"fine_floor": 0.14}, {"fine_floor": math.nan}, {"spread_floor": 0.019},
                   {"line_ceiling": 0.21}, {"line_ceiling": math.nan}, {"n": 0.99e5}, {"workload_thin": 3.0}):
        assert auto.choose(dataclasses.replace(f, **change)) is not rule, change
    assert auto.choose(dataclasses.replace(f, n=1e6, line_ceiling=math.nan)).name == "thin-fine"


def test_row_prefixes_between_the_rows_buy_the_line_only_where_the_excess_reads_high():
    """End to end at N eps = 2 x 10^5 (200,000 points, epsilon 1): row prefixes over the blob rounded to every third
    row go to the strategy, N, the occupied cells, the fine fact and the fullest line in the ledger (the line a cell
    fact's epsilon), every path spending epsilon; over the smooth blob the fine fact reads about 0, no line is bought
    and the other rows decide; one line of cells holding most points (the few-lines family, one line) is kept out
    by its fullest line."""
    from psdviz.lab.synthetic import few_lines
    rng = np.random.default_rng(13)
    smooth, striped = _rounded_rows(200_000, rng)
    w = _row_prefixes(1000, rng)
    rel = pv.build(striped, DOM, "auto", 1.0, seed=5, resolution=8, workload=w)
    assert rel.params["chosen"] == "strategy" and rel.params["line_ceiling"] < auto.FINE_LINE_MAX
    spent = [(s.what, s.epsilon) for s in rel.ledger.spends]
    assert [w_ for w_, _ in spent] == ["auto feature: N", "auto feature: occupied cells",
                                       "auto feature: fine structure across the queries",
                                       "auto feature: fullest line of cells", "strategy answers"]
    line, occupied = dict(spent)["auto feature: fullest line of cells"], dict(spent)["auto feature: occupied cells"]
    assert line == pytest.approx(occupied)
    assert rel.ledger.total() == pytest.approx(1.0) and rel.tree.path_epsilons().max() == pytest.approx(1.0)
    plain = pv.build(smooth, DOM, "auto", 1.0, seed=5, resolution=8, workload=w)
    assert plain.params["chosen"] != "strategy" and abs(plain.params["fine_structure"]) < 0.05
    assert "line_ceiling" not in plain.params
    assert "auto feature: fullest line of cells" not in {s.what for s in plain.ledger.spends}
    one = few_lines(200_000, DOM, np.random.default_rng(5), lines=1, share=0.95, profile="spiky")
    kept = pv.build(one, DOM, "auto", 1.0, seed=5, resolution=8, workload=w)
    assert kept.params["fine_structure"] >= auto.FINE_MIN and kept.params["line_ceiling"] > auto.FINE_LINE_MAX
    assert kept.params["chosen"] != "strategy"


def _rounded_rows(n, rng, step=3.0):
    """A smooth blob (spread about 0.1) with y rounded down to every ``step`` cells: structure across rows."""
    pts = np.clip(rng.normal(128, 25, (n, 2)), 0, 255.99)
    striped = pts.copy()
    striped[:, 1] = np.floor(pts[:, 1] / step) * step + 0.5
    return pts, striped


def test_row_prefixes_over_rows_that_differ_go_to_the_strategy_with_the_fine_fact_in_the_ledger():
    """End to end at N eps = 2 x 10^6: 1,000 row prefixes over the rounded blob go to the strategy, the fine fact
    bought with a cell fact's epsilon and listed in the ledger (the corner fact, which no later row reads then, not
    bought), every path spending epsilon; over the smooth blob the fact is bought, reads about 0 and the other
    rows decide (the corner fact bought after it); column prefixes over the rounded blob (smooth across them) do
    not go there; below N eps = 10^6 the middle row takes them (with the fullest line). Its epsilon is a cell
    fact's or less: what puts its three-scale margin at 1 % of N (here about 6 / (0.01 N), N 2 x 10^5)."""
    rng = np.random.default_rng(11)
    smooth, striped = _rounded_rows(200_000, rng)
    w = _row_prefixes(1000, rng)
    rel = pv.build(striped, DOM, "auto", 10.0, seed=4, resolution=8, workload=w)
    whats = [s.what for s in rel.ledger.spends]
    assert rel.params["chosen"] == "strategy" and rel.params["fine_structure"] > 0.5
    assert "nan" not in rel.notes[1] and "differ beyond chance for at least" in rel.notes[1]
    fine = next(s for s in rel.ledger.spends if s.what == "auto feature: fine structure across the queries")
    occupied = next(s for s in rel.ledger.spends if s.what == "auto feature: occupied cells")
    scale = statistic_steps(2) / 2 ** REAL_BITS          # sensitivity 2 on the lattice of 2^-6
    assert fine.mechanism == "geometric"
    assert fine.epsilon == pytest.approx(3 * scale / (auto.FINE_MARGIN * 200_000), rel=0.01)
    assert fine.epsilon < occupied.epsilon
    assert [s.epsilon / 10.0 for s in rel.ledger.spends[:2]] == pytest.approx([0.0025, 0.005])   # N: a quarter
    assert whats == ["auto feature: N", "auto feature: occupied cells",
                     "auto feature: fine structure across the queries", "strategy answers"]   # no corner fact
    assert rel.ledger.total() == pytest.approx(10.0) and rel.tree.path_epsilons().max() == pytest.approx(10.0)
    plain = pv.build(smooth, DOM, "auto", 10.0, seed=4, resolution=8, workload=w)
    assert plain.params["chosen"] != "strategy" and abs(plain.params["fine_structure"]) < 0.05
    assert [s.what for s in plain.ledger.spends][2:4] == ["auto feature: fine structure across the queries",
                                                         "auto feature: largest corner cell"]
    across = pv.build(striped, DOM, "auto", 10.0, seed=4, resolution=8, workload=w[:, [1, 0, 3, 2]])
    assert across.params["chosen"] != "strategy" and abs(across.params["fine_structure"]) < 0.05
    low = pv.build(striped, DOM, "auto", 4.0, seed=4, resolution=8, workload=w)          # N eps 8 x 10^5
    assert low.params["chosen"] == "strategy" and "no row or column" in low.params["rule"]   # the middle row


def test_small_queries_buy_their_fact_first_and_the_others_follow_in_the_order_the_rows_read_them():
    """The points in the workload's cells come first (half a cell fact); when the row does not apply, N (a quarter
    of its share given a workload: 0.25 %), between N eps = 10^4 and 10^5 over cells holding a noise scale the fine
    fact across both sides (a cell fact), then the occupied cells (from N eps = 10^4, the other half) and the corner
    cell, below N eps = 10^5 the fullest line of cells; below N eps = 10^4 the corner cell takes what the unbought
    spread leaves and no fine fact is bought."""
    from psdviz.lab.synthetic import gaussian_mixture
    dom = pv.Domain(0, 0, 256, 256)
    pts = gaussian_mixture(200_000, dom, np.random.default_rng(1), k=5, spread=0.05)
    eps = 0.06                                            # about 4.4 noise scales a cell, N eps 1.2 x 10^4
    rel = pv.build(pts, dom, "auto", eps, seed=1, resolution=8, workload=_small_squares(pts))
    assert rel.params["chosen"] != "strategy" and rel.params["cell_snr"] < auto.CELL_SNR_MIN
    assert rel.params["fine_structure"] < auto.ROUGH_MIN and "line_ceiling" not in rel.params   # smooth: not read
    spent = [(s.what, s.epsilon / eps) for s in rel.ledger.spends if s.what.startswith("auto feature")]
    assert [w for w, _ in spent] == ["auto feature: points in the workload's cells", "auto feature: N",
                                     "auto feature: fine structure across the queries",
                                     "auto feature: occupied cells", "auto feature: largest corner cell",
                                     "auto feature: fullest line of cells"]
    assert [f for _, f in spent] == pytest.approx([0.0025, 0.0025, 0.005, 0.0025, 0.005, 0.005])
    assert rel.ledger.total() == pytest.approx(eps) and rel.tree.path_epsilons().max() == pytest.approx(eps)
    few = pts[np.random.default_rng(4).random(len(pts)) < 0.02]
    low = pv.build(few, dom, "auto", 0.1, seed=1, resolution=8, workload=_small_squares(few))
    spent = [(s.what, s.epsilon / 0.1) for s in low.ledger.spends if s.what.startswith("auto feature")]
    assert [w for w, _ in spent] == ["auto feature: points in the workload's cells", "auto feature: N",
                                     "auto feature: largest corner cell", "auto feature: fullest line of cells"]
    assert [f for _, f in spent] == pytest.approx([0.0025, 0.0025, 0.0075, 0.005])


def test_the_rough_row_reads_the_excess_the_fullest_line_n_eps_and_the_workload_shape():
    """Small queries over cells holding >= 1 noise scale or long thin ones, excess variation >= 0.6 of N (a lower
    bound), no line of cells above 0.25 of N (an upper bound), 10^4 <= N eps < 10^5: the strategy; each condition
    alone missing leaves the pick to the other rows."""
    thin = auto.Facts(1.0, 8, 2e4, math.nan, workload_side=128.0, workload_thin=1.0, fine_floor=0.7,
                      line_ceiling=0.2)
    rule = auto.choose(thin)
    assert rule.method == "strategy" and rule.when.startswith("a workload of small queries over cells holding >= 1")
    small = dataclasses.replace(thin, workload_side=4.0, workload_thin=4.0, workload_density=2.0)   # snr 2
    assert auto.choose(small) is rule
    for change in ({"fine_floor": 0.59}, {"fine_floor": math.nan}, {"line_ceiling": 0.26},
                   {"line_ceiling": math.nan}, {"n": 0.99e4}, {"n": 1e5}):
        assert auto.choose(dataclasses.replace(thin, **change)).method != "strategy", change
    assert auto.choose(dataclasses.replace(small, workload_density=0.99)).method != "strategy"
    assert auto.choose(dataclasses.replace(thin, workload_thin=3.0)).method != "strategy"


EPS_ROUGH = 0.4


def test_rows_every_few_cells_at_low_n_eps_go_to_the_strategy_and_atoms_and_lines_do_not():
    """End to end at N eps = 2 x 10^4 (50,000 points, epsilon 0.4): 1,000 row prefixes over the blob rounded to
    every third row go to the strategy with N (0.25 %), the fine fact and the fullest line (a cell fact each) in the
    ledger and nothing else (the spread, which this row does not read, is not bought), every path spending epsilon;
    squares of 4 cells over it (1-5 noise scales a cell) too, the fact across both sides; over the smooth blob the
    fine fact reads about 0, the line is not bought for this row and the other rows decide; an atom in a corner with
    lines along its edges (excess near N) is kept out by its fullest line; at N eps = 10^5 the middle fine row takes
    the rounded blob instead."""
    rng = np.random.default_rng(12)
    smooth, striped = _rounded_rows(50_000, rng)
    w = _row_prefixes(1000, rng)
    rel = pv.build(striped, DOM, "auto", EPS_ROUGH, seed=4, resolution=8, workload=w)
    assert rel.params["chosen"] == "strategy" and rel.params["rule"].startswith("a workload of small queries over")
    assert rel.params["fine_structure"] > 0.7 and rel.params["line_ceiling"] < 0.1
    assert [(s.what, s.epsilon / EPS_ROUGH) for s in rel.ledger.spends] == [
        ("auto feature: N", pytest.approx(0.0025)), ("auto feature: fine structure across the queries",
                                                     pytest.approx(0.005)),
        ("auto feature: fullest line of cells", pytest.approx(0.005)), ("strategy answers", pytest.approx(0.9875))]
    assert rel.ledger.total() == pytest.approx(EPS_ROUGH)
    assert rel.tree.path_epsilons().max() == pytest.approx(EPS_ROUGH)
    assert "no row or column of cells holds more than" in rel.notes[1] and "nan" not in rel.notes[1]
    squares = _small_squares(striped)
    sq = pv.build(striped, DOM, "auto", EPS_ROUGH, seed=4, resolution=8, workload=squares)
    assert 1 <= sq.params["cell_snr"] < auto.CELL_SNR_MIN and sq.params["chosen"] == "strategy"
    assert "both sides summed" in sq.notes[1]
    fine = next(s for s in sq.ledger.spends if s.what == "auto feature: fine structure across the queries")
    assert "(sensitivity 4)" in fine.note
    plain = pv.build(smooth, DOM, "auto", EPS_ROUGH, seed=4, resolution=8, workload=w)
    assert plain.params["chosen"] != "strategy" and abs(plain.params["fine_structure"]) < 0.1
    assert "line_ceiling" not in plain.params
    assert [s.what for s in plain.ledger.spends][1:3] == ["auto feature: fine structure across the queries",
                                                         "auto feature: occupied cells"]
    atom = zero_inflated(50_000, DOM, np.random.default_rng(3), 0.8, 0.18, corner=True)
    kept = pv.build(atom, DOM, "auto", EPS_ROUGH, seed=4, resolution=8, workload=w)
    assert kept.params["fine_structure"] >= auto.ROUGH_MIN and kept.params["line_ceiling"] > auto.ROUGH_LINE_MAX
    assert kept.params["chosen"] != "strategy"
    assert [s.what for s in kept.ledger.spends].count("auto feature: fullest line of cells") == 1   # bought once
    high = pv.build(striped, DOM, "auto", 2.0, seed=4, resolution=8, workload=w)          # N eps 10^5
    assert high.params["chosen"] == "strategy" and not high.params["rule"].startswith("a workload of small")


def test_the_corner_row_for_thin_queries_reads_the_corner_shares_n_eps_and_the_workload_shape():
    """Long thin queries, a corner cell of either grid >= 0.2 of N (a lower bound), N eps >= 1.5 x 10^5: PrivTree;
    below that N eps, or with other queries, the hybrid of the corner rows."""
    f = auto.Facts(1.0, 8, 2e5, 0.1, corner_share=0.8, coarse_corner_share=0.8, workload_side=128.0,
                   workload_thin=1.0, spread_floor=0.09)
    rule = auto.choose(f)
    assert rule.method == "privtree" and rule.workload_row and rule.when.startswith("a workload of long thin")
    assert auto.choose(dataclasses.replace(f, corner_share=0.1)) is rule            # the coarse corner's atom
    assert auto.choose(dataclasses.replace(f, corner_share=0.1, coarse_corner_share=0.19)).method != "privtree"
    assert auto.choose(dataclasses.replace(f, n=1.49e5)).method == "hybrid"
    assert auto.choose(dataclasses.replace(f, workload_thin=4.0, workload_side=4.0)).method == "hybrid"
    assert auto.choose(dataclasses.replace(f, workload_thin=math.nan, workload_side=math.nan)).method == "hybrid"


def test_row_prefixes_over_a_corner_atom_go_to_privtree_with_many_points_for_the_budget():
    """End to end: an atom in a corner with lines along its edges (200,000 points), 1,000 row prefixes at
    epsilon 1 (N eps 2 x 10^5): PrivTree, after N, the occupied cells and the corner cell (nothing else: the fine
    fact, which only rows over spread data read, is not bought at a spread below 0.02); every path spends epsilon;
    the note says the queries chose PrivTree and that it has no plan to set, and the release records them. At
    epsilon 0.5 (N eps 10^5) the corner rows' hybrid, planned for the queries."""
    rng = np.random.default_rng(21)
    pts = zero_inflated(200_000, DOM, rng, 0.87, 0.13, corner=True)
    w = _row_prefixes(1000, rng)
    rel = pv.build(pts, DOM, "auto", 1.0, seed=6, resolution=8, workload=w)
    assert rel.params["chosen"] == "privtree"
    facts = [s.what for s in rel.ledger.spends if s.what.startswith("auto feature")]
    assert rel.params["spread"] < auto.FINE_SPREAD_MIN              # no fine row can apply: its fact is not bought
    assert facts == ["auto feature: N", "auto feature: occupied cells", "auto feature: largest corner cell"]
    assert rel.ledger.total() == pytest.approx(1.0) and rel.tree.path_epsilons().max() == pytest.approx(1.0)
    assert any(n.startswith("The workload chose privtree but was not used by it") for n in rel.notes)
    assert np.allclose(rel.params["workload"], w)
    low = pv.build(pts, DOM, "auto", 0.5, seed=6, resolution=8, workload=w)
    assert low.params["chosen"] == "hybrid" and not any("not used" in n for n in low.notes)


def test_the_heaped_row_reads_the_edge_fact_the_corner_shares_n_eps_and_the_workload_shape():
    """Long thin queries, a corner cell of either grid >= 0.2 of N, excess variation along a corner's edges >= 0.01
    of N (a lower bound), 5 x 10^3 <= N eps < 1.5 x 10^5: PrivTree; each condition alone missing leaves the pick to
    the other rows (from 1.5 x 10^5 the corner row for thin queries takes PrivTree without the fact)."""
    f = auto.Facts(1.0, 8, 2e4, 0.02, corner_share=0.8, coarse_corner_share=0.8, workload_side=128.0,
                   workload_thin=1.0, spread_floor=0.01, edge_floor=0.02)
    rule = auto.choose(f)
    assert rule.method == "privtree" and rule.workload_row and "heaped" in rule.when
    assert auto.choose(dataclasses.replace(f, corner_share=0.1)) is rule            # the coarse corner's atom
    for change in ({"edge_floor": 0.0099}, {"edge_floor": math.nan}, {"corner_share": 0.1, "coarse_corner_share": 0.19},
                   {"n": 4.9e3}, {"workload_thin": 4.0, "workload_side": 4.0}, {"workload_thin": math.nan}):
        assert auto.choose(dataclasses.replace(f, **change)) is not rule, change
    assert auto.choose(dataclasses.replace(f, n=1.5e5, edge_floor=math.nan)).method == "privtree"   # the corner row
    assert auto.reads_heaped(f) and not auto.reads_heaped(dataclasses.replace(f, n=1.5e5))


def test_row_prefixes_over_heaped_lines_from_a_corner_atom_go_to_privtree_and_smooth_lines_do_not():
    """End to end at N eps = 2 x 10^4 (20,000 points, epsilon 1): an atom in a corner whose lines sit on 5 values
    each goes to PrivTree with the edge fact (a cell fact's epsilon, Laplace, sensitivity 2) last in the ledger and
    every path spending epsilon, the note saying so; the same shares on smooth lines read about 0 and keep the
    hybrid; at N eps = 4 x 10^3 the fact is not bought."""
    rng = np.random.default_rng(21)
    w = _row_prefixes(1000, rng)
    heaped = zero_inflated(20_000, DOM, np.random.default_rng(8), 0.85, 0.15, True, heaps=5)
    rel = pv.build(heaped, DOM, "auto", 1.0, seed=6, resolution=8, workload=w)
    assert rel.params["chosen"] == "privtree" and "heaped" in rel.params["rule"]
    assert rel.params["heaped_edges"] >= auto.HEAPED_MIN
    facts = [s for s in rel.ledger.spends if s.what.startswith("auto feature")]
    assert facts[-1].what == "auto feature: heaped edges through a corner"
    assert facts[-1].epsilon == pytest.approx(0.005) and "(sensitivity 2)" in facts[-1].note
    assert rel.ledger.total() == pytest.approx(1.0) and rel.tree.path_epsilons().max() == pytest.approx(1.0)
    assert "along the edges through a corner" in rel.notes[1]
    assert any(n.startswith("The workload chose privtree but was not used by it") for n in rel.notes)
    smooth = zero_inflated(20_000, DOM, np.random.default_rng(8), 0.85, 0.15, True)
    kept = pv.build(smooth, DOM, "auto", 1.0, seed=6, resolution=8, workload=w)
    assert kept.params["chosen"] == "hybrid" and kept.params["heaped_edges"] < auto.HEAPED_MIN
    assert "auto feature: heaped edges through a corner" in [s.what for s in kept.ledger.spends]
    low = pv.build(heaped, DOM, "auto", 0.2, seed=6, resolution=8, workload=w)
    assert low.params["chosen"] == "hybrid" and "heaped_edges" not in low.params
    assert "auto feature: heaped edges through a corner" not in [s.what for s in low.ledger.spends]


FIGURE_TALLY = r"\b\d[\d,]*\s+(?:of|in|out of)\s+(?:the\s+)?\d[\d,]*\b|\b\d+(?:\.\d+)?x\b"
PATH = r"\.(?:md|py|json)\b|\b(?:docs|research|benchmarks|psdviz|tests)/"


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _strings(v)


@pytest.mark.parametrize("make, eps, workload", [(_spread, 0.5, None), (_concentrated, 0.2, None),
                                                 (_atom, 0.5, None), (_interior_atom, 0.2, None),
                                                 (_spread, 1.0, "prefixes"), (_atom, 1.0, "prefixes")])
def test_a_release_says_what_was_chosen_and_why_without_figures_or_paths(make, eps, workload):
    """The first note is one plain sentence (what auto chose and why); no note and no string in the params carries
    a tally of benchmark cells ("26 of 27 such cells", "1.8x") or a path into the repository: the evidence is
    linked from the rule's declaration, not shipped in releases."""
    import re
    pts = make(50_000, np.random.default_rng(0))
    kw = {"workload": _row_prefixes(200, np.random.default_rng(1))} if workload else {}
    rel = pv.build(pts, DOM, "auto", eps, seed=3, resolution=8, **kw)
    first = rel.notes[0]
    assert first.startswith(f"auto chose {rel.params['chosen']}") and first.count(". ") == 0 and first.endswith(".")
    assert rel.params["why"] in first
    for text in [*rel.notes, *_strings(rel.params)]:
        assert not re.search(FIGURE_TALLY, text), text
        assert not re.search(PATH, text), text


def test_the_tally_and_path_checks_can_fail():
    import re
    assert re.search(FIGURE_TALLY, "it beats the pick of the other rows in 26 of 27 such cells")
    assert re.search(FIGURE_TALLY, "1.8x behind")
    assert re.search(PATH, "(docs/decisions/workload-strategy.md)") and re.search(PATH, "see few-lines.md")
    assert not re.search(PATH, "auto chose hybrid+nnls/256: the hybrid tree on the 256 x 256 grid")
    assert not re.search(FIGURE_TALLY, "about 19,435 points; they fill 15% of the cells an even spread would")


def test_every_rule_is_declared_with_its_facts_pick_and_evidence():
    """Each rule names the facts it reads (fields of Facts), its pick (a registered method), one plain sentence and
    a link to the study that measured it (a file of the repository)."""
    from pathlib import Path
    root = Path(auto.__file__).resolve().parents[2]
    fields = {f.name for f in dataclasses.fields(auto.Facts)}
    assert len({r.name for r in auto.RULES}) == len(auto.RULES)
    for rule in auto.RULES:
        assert set(rule.reads) <= fields, rule.name
        assert rule.method in pv.METHODS and rule.plain.endswith(".") and rule.plain.count(". ") == 0
        assert (root / rule.evidence.split("#")[0]).exists(), rule.evidence
    assert set(auto.candidates()) == {r.label for r in auto.RULES}
