"""method="auto" (issue 16.2): two noisy facts, a rule table, the rest of epsilon to the chosen method."""
import numpy as np
import pytest

import psdviz as pv
from psdviz.core.domain import Domain, prepare_points
from psdviz.core.noise import geometric_variance
from psdviz.core.rng import make_randomness
from psdviz.core.ledger import Ledger
from psdviz.methods import auto

DOM = Domain(0, 0, 256, 256)


def _spread(n, rng):
    return rng.uniform(0, 256, (n, 2))


def _concentrated(n, rng):
    return np.clip(rng.normal([60, 70], 4, (n, 2)), 0, 255.9)


@pytest.mark.parametrize("make, expect", [(_spread, "ag"), (_concentrated, "privtree")])
def test_picks_by_spread_and_records_what_it_cost(make, expect):
    pts = make(200_000, np.random.default_rng(0))
    rel = pv.build(pts, DOM, "auto", 0.5, seed=3, resolution=8)
    assert rel.method == "auto" and rel.params["chosen"] == expect
    whats = [s.what for s in rel.ledger.spends]
    assert whats[:2] == ["auto feature: N", "auto feature: occupied cells"]
    assert sum(s.epsilon for s in rel.ledger.spends[:2]) == pytest.approx(auto.FEATURE_FRACTION * 0.5)
    assert rel.ledger.total() == pytest.approx(0.5) and rel.epsilon == 0.5
    np.testing.assert_allclose(rel.tree.path_epsilons().max(), 0.5)
    assert rel.notes[0].startswith(f"auto chose {expect}") and "N estimate" not in whats   # N bought once
    assert rel.params["choice_epsilon"] == pytest.approx(0.01)


def test_public_n_puts_the_whole_slice_on_the_occupied_cells():
    pts = _spread(50_000, np.random.default_rng(1))
    rel = pv.build(pts, DOM, "auto", 1.0, seed=0, resolution=8, n_public=50_000)
    occ = [s for s in rel.ledger.spends if s.what == "auto feature: occupied cells"]
    assert [s.epsilon for s in occ] == [pytest.approx(0.02)]
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
    sd_noise = np.sqrt(geometric_variance(auto.FEATURE_FRACTION * eps / 2))
    sd_occ = np.sqrt(expected * np.exp(-n / 65536))     # at most the variance of the occupied count
    assert abs(facts.spread * auto.uniform_occupancy(pop.value, 65536) - expected) < 6 * (sd_noise + sd_occ)
    assert abs(pop.value - n) < 6 * sd_noise


def test_rule_table_reads_top_to_bottom():
    f = auto.Facts(epsilon=0.1, resolution=8, n=1e6, spread=0.8)
    assert auto.choose(f).method == "ag"
    assert auto.choose(auto.Facts(0.1, 8, 1e6, 0.3)).method == "privtree"
    assert auto.choose(auto.Facts(0.1, 8, 5e4, 0.9)).method == "privtree"     # N eps = 5,000 < 10^4
    assert auto.RULES[-1].applies(f)                                           # the last row always applies


def test_uniform_occupancy():
    assert auto.uniform_occupancy(0, 100) == 0
    assert auto.uniform_occupancy(1, 100) == pytest.approx(1.0, rel=1e-2)
    assert auto.uniform_occupancy(1e9, 100) == pytest.approx(100)
