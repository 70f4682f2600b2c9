"""auto's facts, D vs D': the coarse corner fact is one sensitivity-1 count with geometric noise (the fine fact,
on its lattice with sensitivity 2 an axis, on its two paths, below).

D has 100 points spread inside the 256 x 256 grid's corner cell [0, 1)^2 (no point at the release
grid's corner position) and some elsewhere; D' adds one point inside that cell, so N, the occupied cells
and the fine corner fact are the same for both (N declared public) and only the coarse corner count
moves by 1. With N public the released share is a one-to-one function of the noisy count above its
clamp, so the law of the share is the law of the noisy count: no value may be more likely under one
dataset than e^eps times under the other, eps the fact's own epsilon (5 binomial standard errors):
eps_cells when the spread is bought (N eps >= 10^4), 1.5 eps_cells when it is not and its share goes to
the two corner facts. Reading the count without noise, or with a third of the noise, fails it."""
from __future__ import annotations

import math

import numpy as np
import pytest

from psdviz.core.domain import Domain, prepare_points
from psdviz.core.ledger import Ledger
from psdviz.core.rng import make_randomness
from psdviz.methods import auto
from psdviz.methods.fine_structure import edge_excess, excess_variation

DOM = Domain(0, 0, 256, 256)
RUNS = 2000
Z = 5.0


def _points(extra: int) -> np.ndarray:
    rng = np.random.default_rng(0)
    inside = rng.uniform(0.05, 0.95, (100 + extra, 2))                 # the coarse corner cell, not its (0, 0)
    elsewhere = rng.uniform(10, 200, (50, 2))
    return np.vstack([inside[:100], elsewhere, inside[100:]])


def _shares(pts: np.ndarray, eps: float, seed0: int, n_public: int) -> np.ndarray:
    """RUNS releases of the fact (the feature pass is the same every time: counted once)."""
    ps = prepare_points(pts, DOM, resolution=12)
    counted = auto.feature_counts(ps, auto.FEATURE_SIDE)
    out = np.empty(RUNS)
    real = auto.feature_counts
    auto.feature_counts = lambda _ps, _side: counted
    try:
        for r in range(RUNS):
            facts, _ = auto.measure_facts(ps, eps, make_randomness(seed0 + r), Ledger(eps), n_public=n_public)
            out[r] = facts.coarse_corner_share
    finally:
        auto.feature_counts = real
    return out


def _ratio_ok(a: np.ndarray, b: np.ndarray, eps: float) -> bool:
    values = np.union1d(a, b)
    pa = np.array([(a == v).mean() for v in values])
    pb = np.array([(b == v).mean() for v in values])
    se = lambda p: np.sqrt(np.maximum(p * (1 - p), 1.0 / RUNS) / RUNS)
    bound = math.exp(eps)
    return bool(((pa <= bound * pb + Z * (se(pa) + bound * se(pb)))
                 & (pb <= bound * pa + Z * (se(pb) + bound * se(pa)))).all())


@pytest.fixture(scope="module", params=[(1000, 1.0), (150, 1.5)], ids=["spread bought", "spread not bought"])
def laws(request):
    """eps, the coarse fact's epsilon and its laws on D and D': N public 1,000 (N eps >= 10^4: the spread
    is bought) or 150 (below: its share goes to the corner facts)."""
    n_public, factor = request.param
    eps = 50.0                      # 2 % of it on the facts; N public: half of that per cell fact
    e_fact = factor * auto.FEATURE_FRACTION * eps / auto.CELL_FACTS
    assert auto.reads_spread(n_public, eps) == (factor == 1.0)
    return (eps, e_fact, n_public, _shares(_points(0), eps, 0, n_public),
            _shares(_points(1), eps, 10 * RUNS, n_public))


def test_coarse_corner_fact_law_within_e_eps(laws):
    eps, e_fact, _, d, d2 = laws
    assert d.min() > 0 and np.unique(d).size > 10        # above the clamp, many values: the test can see
    assert _ratio_ok(d, d2, e_fact)


def test_the_audit_sees_a_count_read_without_enough_noise(laws, monkeypatch):
    eps, e_fact, n_public = laws[:3]
    real = auto._noisy_fact

    def weak(value, epsilon, rnd, ledger, what, note):     # three times less noise on the coarse fact
        return real(value, epsilon * (3 if "coarse" in what else 1), rnd, ledger, what, note)

    monkeypatch.setattr(auto, "_noisy_fact", weak)
    d2_weak = _shares(_points(1), eps, 10 * RUNS, n_public)
    d_weak = _shares(_points(0), eps, 0, n_public)
    assert not _ratio_ok(d_weak, d2_weak, e_fact)


# The fine fact (excess variation across the queries, geometric noise on its lattice), on both of the paths that buy it:
# - long thin queries from N eps = 10^6 (across their thin side, sensitivity 2): D has a pair of cells across the
#   rows holding (2, 0); D' adds a point to the empty one, which moves the count by 1.5 (|a - b| by -1, E|S_m| from
#   1 to 1.5), its largest possible move but for 2. N public 1,000 at eps 1,000 (N eps 10^6), where the fact's
#   epsilon is what puts its margin at 1 % of N (0.6, below a cell fact's).
# - small queries between N eps = 10^4 and 10^5 over cells holding 1-5 noise scales (across both sides summed,
#   sensitivity 4): D also holds 2 points in the cell diagonal to the pair's, so the added point moves the pair
#   across the rows and the pair across the columns by 1.5 each (3.0 in all). N public 1,000 at eps 50; the fact
#   takes a cell fact's epsilon (0.5).
# The released share is binned by half a noise scale (post-processing).
PATHS = {"thin": (1000.0, 1), "small": (50.0, 2)}


def _fine_points(path: str, extra: int) -> np.ndarray:
    rng = np.random.default_rng(5)
    block = rng.uniform(20, 30, (940, 2))            # 100 cells: spread 0.1, the thin row (spread >= 0.3) waits
    queried = rng.uniform(100, 132, (56, 2))         # inside the small queries: about 3 noise scales a cell at 50
    diagonal = [[11.5, 11.5]] * 2 if path == "small" else [[40.5, 40.5]] * 2
    pair = [[10.5, 10.5], [10.5, 10.5]] + [[10.5, 11.5]] * extra          # x 10, y 10 twice (+ y 11)
    return np.vstack([block, queried, diagonal, pair])


def _fine_workload(path: str) -> np.ndarray:
    if path == "thin":
        return np.column_stack([np.zeros(50), np.arange(50), np.full(50, 200), np.arange(50) + 1]).astype(float)
    lo = np.array([(x, y) for x in range(100, 132, 4) for y in range(100, 132, 4)], float)
    return np.column_stack([lo, lo + 4])


def _statistic_shares(pts: np.ndarray, eps: float, workload: np.ndarray, n_public: int, field: str, seed0: int,
                    weaken: float = 1.0) -> np.ndarray:
    """RUNS releases of one real fact on its lattice (``field`` of the facts), its noise ``weaken`` times too small
    (the feature pass is the same every time: counted once)."""
    ps = prepare_points(pts, DOM, resolution=8)
    counted = auto.feature_counts(ps, auto.FEATURE_SIDE)
    shape = auto.workload_cells(workload, ps, auto.FEATURE_SIDE)
    real_counts, real_noise = auto.feature_counts, auto.noisy_statistic
    auto.feature_counts = lambda _ps, _side: counted
    auto.noisy_statistic = lambda value, s, e, rng: real_noise(value, s, e * weaken, rng)
    try:
        return np.array([getattr(auto.measure_facts(ps, eps, make_randomness(seed0 + r), Ledger(eps), n_public,
                                                    shape)[0], field) for r in range(RUNS)])
    finally:
        auto.feature_counts, auto.noisy_statistic = real_counts, real_noise


def _fine_shares(path: str, pts: np.ndarray, seed0: int, weaken: float = 1.0) -> np.ndarray:
    return _statistic_shares(pts, PATHS[path][0], _fine_workload(path), len(pts), "fine_floor", seed0, weaken)


@pytest.fixture(scope="module", params=sorted(PATHS))
def fine_laws(request):
    path = request.param
    eps, axes = PATHS[path]
    d, d2 = _fine_points(path, 0), _fine_points(path, 1)
    n = len(d)
    e_fact = auto.fine_epsilon(auto.FEATURE_FRACTION * eps / auto.CELL_FACTS, axes, n)
    assert (n * eps >= auto.FINE_N_EPS_MIN) if path == "thin" else (auto.N_EPS_MIN <= n * eps < auto.QUAD_N_EPS_MIN)
    assert len(d2) == n + 1 and e_fact == pytest.approx(0.609375 if path == "thin" else 0.5)   # 6.09375 / (0.01 N)
    grids = [auto.feature_counts(prepare_points(p, DOM, resolution=8), 256)[0].reshape(256, 256) for p in (d, d2)]
    move = sum(excess_variation(grids[0], a) - excess_variation(grids[1], a) for a in range(axes))
    assert move == pytest.approx(1.5 * axes)
    ledger = Ledger(eps)
    facts, _ = auto.measure_facts(prepare_points(d, DOM, resolution=8), eps, make_randomness(0), ledger, n,
                                  auto.workload_cells(_fine_workload(path), prepare_points(d, DOM, resolution=8), 256))
    fine = next(s for s in ledger.spends if s.what == "auto feature: fine structure across the queries")
    assert fine.epsilon == pytest.approx(e_fact)     # the fact is bought on this path, with this epsilon
    if path == "small":
        assert 1 <= facts.cell_snr < auto.CELL_SNR_MIN
    return path, e_fact, axes, n, d, d2


def _binned(shares: np.ndarray, n: int, scale: float) -> np.ndarray:
    return np.floor(shares * n / (0.5 * scale))


def test_fine_fact_law_within_e_eps(fine_laws):
    path, e_fact, axes, n, d, d2 = fine_laws
    scale = 2 * axes / e_fact
    a, b = _binned(_fine_shares(path, d, 0), n, scale), _binned(_fine_shares(path, d2, 10 * RUNS), n, scale)
    assert np.unique(a).size > 10                     # many bins: the test can see
    assert _ratio_ok(a, b, e_fact)


def test_the_audit_sees_the_fine_fact_read_with_a_third_of_its_noise(fine_laws):
    path, e_fact, axes, n, d, d2 = fine_laws
    scale = 2 * axes / e_fact
    a = _binned(_fine_shares(path, d, 0, weaken=3.0), n, scale)
    b = _binned(_fine_shares(path, d2, 10 * RUNS, weaken=3.0), n, scale)
    assert not _ratio_ok(a, b, e_fact)


# The edge fact (excess variation along a corner's edges, on its lattice, sensitivity 2), on the path that buys it: long
# thin queries over a corner atom at N eps in [5 x 10^3, 1.5 x 10^5). D holds an atom of 600 points in the corner
# cell, 2 points in the third cell of the first column (its pair with the fourth reads 2 - E|S_2| = 1), one point
# in each of the third and fourth cells of the last column (-1) and 394 points away from the border; D' adds a
# point to the first column's fourth cell, which moves its pair, and the largest corner's sum, by 1.5 (from 1 to
# -0.5). N public 1,000 at eps 50 (N eps 5 x 10^4): the fact takes a cell fact's epsilon (0.5).
EDGE_EPS = 50.0


def _edge_points(extra: int) -> np.ndarray:
    rng = np.random.default_rng(9)
    atom = np.full((600, 2), 0.5)
    inside = rng.uniform(40, 200, (394, 2))
    even = [[255.5, 2.5], [255.5, 3.5]]                                  # the last column's pair: 0 - E|S_2| = -1
    pair = [[0.5, 2.5], [0.5, 2.5]] + [[0.5, 3.5]] * extra                # x 0, y 2 twice (+ y 3)
    return np.vstack([atom, inside, even, pair])


def _edge_shares(pts: np.ndarray, seed0: int, weaken: float = 1.0) -> np.ndarray:
    return _statistic_shares(pts, EDGE_EPS, _fine_workload("thin"), 1000, "edge_floor", seed0, weaken)


@pytest.fixture(scope="module")
def edge_laws():
    d, d2 = _edge_points(0), _edge_points(1)
    grids = [auto.feature_counts(prepare_points(p, DOM, resolution=8), 256)[0].reshape(256, 256) for p in (d, d2)]
    assert edge_excess(grids[0]) - edge_excess(grids[1]) == pytest.approx(1.5)
    ledger = Ledger(EDGE_EPS)
    ps = prepare_points(d, DOM, resolution=8)
    facts, _ = auto.measure_facts(ps, EDGE_EPS, make_randomness(0), ledger, 1000,
                                  auto.workload_cells(_fine_workload("thin"), ps, 256))
    spend = next(s for s in ledger.spends if s.what == "auto feature: heaped edges through a corner")
    e_fact = auto.FEATURE_FRACTION * EDGE_EPS / auto.CELL_FACTS
    assert spend.epsilon == pytest.approx(e_fact) == pytest.approx(0.5) and facts.corner_share >= 0.2
    return e_fact, d, d2


def test_edge_fact_law_within_e_eps(edge_laws):
    e_fact, d, d2 = edge_laws
    scale = 2 / e_fact
    a, b = _binned(_edge_shares(d, 0), 1000, scale), _binned(_edge_shares(d2, 10 * RUNS), 1000, scale)
    assert np.unique(a).size > 10
    assert _ratio_ok(a, b, e_fact)


def test_the_audit_sees_the_edge_fact_read_with_a_third_of_its_noise(edge_laws):
    e_fact, d, d2 = edge_laws
    scale = 2 / e_fact
    a = _binned(_edge_shares(d, 0, weaken=3.0), 1000, scale)
    b = _binned(_edge_shares(d2, 10 * RUNS, weaken=3.0), 1000, scale)
    assert not _ratio_ok(a, b, e_fact)
