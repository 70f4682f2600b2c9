"""method="auto" (issue 16.2): three noisy facts, a rule table, the rest of epsilon to the chosen method."""
import numpy as np
import pytest

import psdviz as pv
from psdviz.core.domain import Domain, prepare_points
from psdviz.core.noise import geometric_variance
from psdviz.core.rng import make_randomness
from psdviz.core.ledger import Ledger
from psdviz.methods import auto
from psdviz.lab.synthetic import zero_inflated

DOM = Domain(0, 0, 256, 256)


def _spread(n, rng):
    return rng.uniform(0, 256, (n, 2))


def _concentrated(n, rng):
    return np.clip(rng.normal([60, 70], 4, (n, 2)), 0, 255.9)


def _atom(n, rng):
    return zero_inflated(n, DOM, rng, atom=0.6, lines=0.3, corner=True)


@pytest.mark.parametrize("make, expect", [(_spread, "ag"), (_concentrated, "privtree"), (_atom, "kd-privtree")])
def test_picks_by_spread_and_records_what_it_cost(make, expect):
    pts = make(200_000, np.random.default_rng(0))
    rel = pv.build(pts, DOM, "auto", 0.5, seed=3, resolution=8)
    assert rel.method == "auto" and rel.params["chosen"] == expect
    whats = [s.what for s in rel.ledger.spends]
    assert whats[:3] == ["auto feature: N", "auto feature: occupied cells", "auto feature: largest cell"]
    assert sum(s.epsilon for s in rel.ledger.spends[:3]) == pytest.approx(auto.FEATURE_FRACTION * 0.5)
    assert rel.ledger.total() == pytest.approx(0.5) and rel.epsilon == 0.5
    np.testing.assert_allclose(rel.tree.path_epsilons().max(), 0.5)
    assert rel.notes[0].startswith(f"auto chose {expect}") and "N estimate" not in whats   # N bought once
    assert rel.params["choice_epsilon"] == pytest.approx(0.01)


def test_public_n_puts_the_whole_slice_on_the_cell_facts():
    pts = _spread(50_000, np.random.default_rng(1))
    rel = pv.build(pts, DOM, "auto", 1.0, seed=0, resolution=8, n_public=50_000)
    cells = [s.epsilon for s in rel.ledger.spends if s.what.startswith("auto feature: ")]
    assert cells == [pytest.approx(0.01), pytest.approx(0.01)]
    assert "auto feature: N" not in {s.what for s in rel.ledger.spends}
    assert rel.params["chosen"] == "ag" and "declared public" in rel.notes[0]


def test_spread_is_near_one_for_uniform_points_within_its_noise():
    """Uniform points occupy about C (1 - exp(-N/C)) cells; the noisy fact's error is the geometric noise
    (variance known) plus the binomial spread of the occupancy, both bounded here at 6 sd."""
    rng = np.random.default_rng(4)
    n, eps = 40_000, 1.0
    ps = prepare_points(_spread(n, rng), DOM, resolution=8)
    facts, pop = auto.measure_facts(ps, eps, make_randomness(5), Ledger(eps), None)
    expected = auto.uniform_occupancy(n, 256 * 256)
    sd_noise = np.sqrt(geometric_variance(auto.FEATURE_FRACTION * eps / 4))
    sd_occ = np.sqrt(expected * np.exp(-n / 65536))     # at most the variance of the occupied count
    assert abs(facts.spread * auto.uniform_occupancy(pop.value, 65536) - expected) < 6 * (sd_noise + sd_occ)
    assert abs(pop.value - n) < 6 * np.sqrt(geometric_variance(auto.FEATURE_FRACTION * eps / 2))
    assert facts.top_share == 0.0    # the largest uniform cell (a few points) is far below 3 noise scales


def test_top_share_is_a_lower_bound_of_the_atom_share():
    """(noisy max - 3 / eps_cells) / noisy N: below the true share except with the small probability that
    the geometric noise exceeds 3 scales; here within 6 sd of share - 3 / (eps_cells N)."""
    n, eps = 30_000, 1.0
    pts = np.vstack([np.full((12_000, 2), 10.5), _spread(n - 12_000, np.random.default_rng(6))])
    ps = prepare_points(pts, DOM, resolution=8)
    facts, pop = auto.measure_facts(ps, eps, make_randomness(7), Ledger(eps), None)
    eps_cells = auto.FEATURE_FRACTION * eps / 4
    want = (12_000 - 3 / eps_cells) / n
    sd = np.sqrt(geometric_variance(eps_cells)) / n + 0.4 * np.sqrt(geometric_variance(2 * eps_cells)) / n
    assert abs(facts.top_share - want) < 6 * sd and facts.top_share < 0.4


def test_rule_table_reads_top_to_bottom():
    f = auto.Facts(epsilon=0.1, resolution=8, n=1e6, spread=0.8)
    assert auto.choose(f).method == "ag"
    assert auto.choose(auto.Facts(0.1, 8, 1e6, 0.3)).method == "privtree"
    assert auto.choose(auto.Facts(0.1, 8, 5e4, 0.9)).method == "privtree"     # N eps = 5,000 < 10^4
    assert auto.choose(auto.Facts(0.1, 8, 1e6, 0.8, top_share=0.5)).method == "kd-privtree"   # the atom row first
    assert auto.choose(auto.Facts(0.1, 8, 1e6, 0.8, top_share=0.1)).method == "ag"
    assert auto.RULES[-1].applies(f)                                           # the last row always applies


def test_uniform_occupancy():
    assert auto.uniform_occupancy(0, 100) == 0
    assert auto.uniform_occupancy(1, 100) == pytest.approx(1.0, rel=1e-2)
    assert auto.uniform_occupancy(1e9, 100) == pytest.approx(100)
