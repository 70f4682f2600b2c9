"""The public grid: proof by test.

(a) Every released rectangle coordinate of every method is a grid position, exactly.
(b) An empirical DP audit that can fail: a tiny dataset D and D' = D plus one adversarial point placed
    between two data values; thousands of seeded releases of each. The released split values must
    lie in a set fixed before the data are seen (the grid positions), and no event's frequency under
    one dataset may exceed e^epsilon times its frequency under the other beyond a 5-sigma binomial
    bound. The same audit rejects the old sampler, which drew ``uniform(left, right)`` between two
    data values.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import psdviz as pv
from psdviz.core.grid import Grid
from psdviz.splits.medians import em_medians, noisy_mean_medians, smooth_medians
from psdviz.splits.slicing import slice_groups

DOM = pv.Domain(0.0, 0.0, 1.0, 1.0)
BITS = 6                                            # 64 positions per axis: every event is visible
D = np.array([[0.30, 0.20], [0.31, 0.70], [0.62, 0.50], [0.70, 0.10]])
D2 = np.vstack([D, [[0.3051, 0.40]]])               # adversarial: between two data values on x
Z = 5.0

METHOD_CASES = [
    ("quadtree", {"height": 3}), ("ug", {}), ("ag", {}), ("kdtree", {"height": 2, "prune": None}),
    ("kdtree", {"height": 2, "prune": None, "median": "smooth", "epsilon": 0.8}),
    ("hybrid", {"height": 2, "prune": None}), ("kd-noisymean", {"height": 2, "prune": None}),
    ("kd-cell", {"height": 2, "grid": 16, "prune": None}), ("hilbert", {"height": 2, "prune": None}),
    ("htree", {}), ("htree", {"variant": "composite", "size": 9}), ("htree", {"variant": "hybrid", "size": 9}),
    ("privtree", {}), ("kd-privtree", {}),
]


def ratio_ok(a: np.ndarray, b: np.ndarray, runs: int, eps: float, delta: float = 0.0) -> bool:
    """Per event, P_D <= e^eps P_D' + delta (and symmetrically), up to Z binomial standard errors."""
    pa, pb = a / runs, b / runs
    se = lambda p: np.sqrt(np.maximum(p * (1 - p), 1.0 / runs) / runs)
    bound = math.exp(eps)
    ok1 = pa <= bound * pb + delta + Z * (se(pa) + bound * se(pb))
    ok2 = pb <= bound * pa + delta + Z * (se(pb) + bound * se(pa))
    return bool((ok1 & ok2).all())


def on_public_set(values: np.ndarray, size: int) -> bool:
    """The support check: every released split is an integer grid position in [0, size]."""
    v = np.asarray(values)
    return bool(np.issubdtype(v.dtype, np.integer) and ((v >= 0) & (v <= size)).all())


@pytest.mark.parametrize("method,params", METHOD_CASES, ids=lambda c: str(c))
def test_every_released_coordinate_is_on_the_grid(method, params):
    params = dict(params)
    eps = params.pop("epsilon", 1.0)
    for bits in (BITS, 20):
        for seed in range(3):
            rel = pv.build(D2, DOM, method, eps, seed=seed, resolution=bits, **params)
            assert rel.grid.bits == bits
            assert rel.grid.on_grid(rel.tree.rect).all(), (method, bits, seed)
            assert rel.report()["resolution"]["bits"] == bits


@pytest.mark.parametrize("method,params", METHOD_CASES, ids=lambda c: str(c))
def test_structure_support_is_data_independent(method, params):
    """Across 60 seeded releases of D and of D', every rectangle edge is a grid position: the set of
    possible structures is fixed by the domain and the resolution, not by the data."""
    params = dict(params)
    eps = params.pop("epsilon", 1.0)
    grid = Grid(DOM, BITS)
    for data in (D, D2):
        for seed in range(60):
            rel = pv.build(data, DOM, method, eps, seed=seed, resolution=BITS, **params)
            assert on_public_set(grid.positions(rel.tree.rect), grid.size)
            assert grid.on_grid(rel.tree.rect).all()


def _keys(points: np.ndarray, axis: int = 0) -> np.ndarray:
    return np.sort(Grid(DOM, BITS).keys(points)[:, axis])


def _tiled_draws(sampler, keys: np.ndarray, runs: int, **kw) -> np.ndarray:
    vals = np.tile(keys, runs)
    off = np.arange(runs + 1) * keys.size
    size = 1 << BITS
    return sampler(np.random.default_rng(kw.pop("seed")), vals, off, np.zeros(runs, np.int64),
                   np.full(runs, size), **kw)


@pytest.mark.parametrize("name,sampler,eps,delta", [
    ("em", em_medians, 1.0, 0.0),
    ("smooth", smooth_medians, 0.8, 1e-4),
    ("noisymean", noisy_mean_medians, 1.0, 0.0),
])
def test_root_split_audit(name, sampler, eps, delta):
    """The root x-split of D and D': same public support, probability ratios within e^epsilon."""
    runs = 20_000
    kw = {"delta": delta} if name == "smooth" else {}
    a = _tiled_draws(sampler, _keys(D), runs, seed=1, epsilon=eps, **kw)
    b = _tiled_draws(sampler, _keys(D2), runs, seed=2, epsilon=eps, **kw)
    size = 1 << BITS
    assert on_public_set(a, size) and on_public_set(b, size)
    ca, cb = np.bincount(a, minlength=size + 1), np.bincount(b, minlength=size + 1)
    assert ratio_ok(ca, cb, runs, eps, delta)


def test_the_audit_detects_a_budget_overrun():
    """The ratio check has power: a median that secretly spends 6 epsilon on D' (an accounting bug)
    is rejected at the claimed epsilon, while the honest one passes."""
    runs, eps, size = 20_000, 1.0, 1 << BITS
    a = _tiled_draws(em_medians, _keys(D), runs, seed=1, epsilon=eps)
    honest = _tiled_draws(em_medians, _keys(D2), runs, seed=2, epsilon=eps)
    greedy = _tiled_draws(em_medians, _keys(D2), runs, seed=2, epsilon=6 * eps)
    ca, ch, cg = (np.bincount(x, minlength=size + 1) for x in (a, honest, greedy))
    assert ratio_ok(ca, ch, runs, eps)
    assert not ratio_ok(ca, cg, runs, eps)


def test_slicing_audit():
    """The h-tree's recursive slicing (Algorithm 1), one round into two parts."""
    runs, eps, size = 20_000, 1.0, 1 << BITS
    out = []
    for data, seed in ((D, 3), (D2, 4)):
        k = _keys(data)
        s = slice_groups(np.random.default_rng(seed), np.tile(k, runs), np.arange(runs) * k.size,
                         np.arange(1, runs + 1) * k.size, np.zeros(runs, np.int64), np.full(runs, size),
                         np.full(runs, 2), np.full(runs, 100.0), eps)
        assert on_public_set(s.value, size)
        out.append(np.bincount(s.value, minlength=size + 1))
    assert ratio_ok(out[0], out[1], runs, eps)


def _old_em_median(rng: np.random.Generator, x: np.ndarray, lo: float, hi: float, eps: float, runs: int):
    """The sampler psdviz used before the public grid: a gap chosen by the interval form of the
    exponential mechanism, then ``uniform(left, right)`` between two *data values* (a float)."""
    edges = np.r_[lo, np.sort(x), hi]
    rank = np.arange(x.size + 1)
    with np.errstate(divide="ignore"):
        logw = np.log(np.diff(edges)) - eps / 2 * np.abs(rank - x.size / 2)
    j = np.argmax(logw + rng.gumbel(size=(runs, logw.size)), axis=1)
    return rng.uniform(edges[j], edges[j + 1])


def test_the_audit_rejects_the_old_float_sampler():
    """The old sampler's outputs are floats whose set depends on the data values: the support check
    fails, and outputs that D' produces can never come out of D (they are not even on the grid)."""
    runs = 2000
    rng = np.random.default_rng(5)
    a = _old_em_median(rng, D[:, 0], 0.0, 1.0, 1.0, runs)
    b = _old_em_median(rng, D2[:, 0], 0.0, 1.0, 1.0, runs)
    assert not on_public_set(a, 1 << BITS) and not on_public_set(b, 1 << BITS)
    # Mironov's distinguisher on the released float: outputs drawn from the gap [0.30, 0.3051) that
    # only D' has are not of the form xmin + j * step, nor are D's outputs.
    grid = Grid(DOM, BITS)
    rects = np.column_stack([b, np.zeros(runs), b, np.ones(runs)])
    assert not grid.on_grid(rects).any()


def test_ug_and_ag_sizes_from_noisy_n_audit():
    """UG's m and AG's m1 come from a noisy N (5 % of epsilon): their laws differ by at most
    e^(epsilon_N) between D and D' (N and N + 1)."""
    runs, eps = 600, 20.0           # a large epsilon so that the grid size actually varies
    for method, key in (("ug", "grid_size"), ("ag", "m1")):
        sizes = []
        for data in (D, D2):
            sizes.append([pv.build(data * 1.0, DOM, method, eps, seed=s, resolution=BITS).params[key]
                          for s in range(runs)])
        hi = max(max(s) for s in sizes) + 1
        ca, cb = (np.bincount(s, minlength=hi) for s in sizes)
        eps_n = pv.build(D, DOM, method, eps, seed=0, resolution=BITS).ledger.spends[0].epsilon
        assert ratio_ok(ca, cb, runs, eps_n)


def test_privtree_structure_audit():
    """PrivTree's split decisions cost epsilon_t = epsilon / 2: the law of the structure (number of
    leaves) moves by at most e^(epsilon_t) when one point is added."""
    runs, eps = 800, 1.0
    counts = []
    for data in (D, D2):
        leaves = [pv.build(data, DOM, "privtree", eps, seed=s, resolution=BITS).params["leaves"]
                  for s in range(runs)]
        counts.append(np.bincount(leaves, minlength=200))
    assert ratio_ok(counts[0], counts[1], runs, eps / 2)


@pytest.mark.parametrize("method", ["quadtree", "kdtree", "hybrid", "kd-noisymean", "hilbert", "kd-cell", "privtree",
                                    "kd-true", "kd-pure"])
def test_levels_are_capped_by_the_resolution(method):
    """Data declared on a 2^3 grid: no tree is deeper than 3 levels, and the release says why (PrivTree's default
    depth means "as deep as the grid allows", so it is asked for here)."""
    kw = ({"height": 10} if method in ("quadtree", "hybrid")    # their own height rule would pick a low height here
          else {"max_depth": 10} if method == "privtree" else {})
    rel = pv.build(D2, DOM, method, 1.0, seed=1, resolution=3, **kw)
    assert rel.tree.height <= 3
    assert any("capped to 3" in n and "resolution 3" in n for n in rel.notes)


def test_kd_privtree_structure_audit():
    """kd-privtree's structure (the first split's axis and grid position, the number of leaves) costs
    epsilon_t + epsilon_s = 0.6 epsilon: its law moves by at most e^(0.6 epsilon) when one point is added
    between two data values."""
    runs, eps = 800, 1.0
    laws = []
    for data in (D, D2):
        keys = []
        for s in range(runs):
            rel = pv.build(data, DOM, "kd-privtree", eps, seed=s, resolution=BITS)
            first = tuple(rel.grid.positions(rel.tree.rect[1:2])[0].tolist()) if rel.tree.n_nodes > 1 else ()
            keys.append((first, rel.params["leaves"]))
        laws.append(keys)
    events = sorted(set(laws[0]) | set(laws[1]))
    ca, cb = (np.array([law.count(e) for e in events]) for law in laws)
    assert ratio_ok(ca, cb, runs, 0.6 * eps)


@pytest.mark.parametrize("stop_sds", [1.0, 2.0])
def test_quadtree_stop_audit(stop_sds):
    """The quadtree's pruning during the build decides which nodes split from noisy counts only: D holds
    points in one quadrant, D' adds one in an empty quadrant; the law of the depth-1 split pattern
    moves by at most e^epsilon (a stop on exact emptiness would never split that quadrant under D), with
    the default floor and with the two-sd floor auto's NNLS routes use."""
    runs, eps = 1000, 1.0
    d = np.array([[0.1, 0.1], [0.2, 0.3], [0.3, 0.2], [0.4, 0.4], [0.15, 0.35], [0.35, 0.15]])
    laws = []
    for data in (d, np.vstack([d, [[0.8, 0.8]]])):
        keys = []
        for s in range(runs):
            t = pv.build(data, DOM, "quadtree", eps, seed=s, resolution=BITS, height=2, prune=2.0,
                         stop_sds=stop_sds).tree
            split = np.zeros(5, bool)
            split[t.parent[t.depth == 2]] = True
            keys.append(int(split[1:] @ (1 << np.arange(4))))
        laws.append(np.bincount(keys, minlength=16))
    assert laws[0].sum() == runs and laws[1][laws[0] == 0].sum() < runs    # the pattern varies
    assert ratio_ok(laws[0], laws[1], runs, eps)


def _integer_laws(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The counts of each integer value drawn under D and under D', over their common range."""
    lo = int(min(a.min(), b.min()))
    n = int(max(a.max(), b.max())) - lo + 1
    return np.bincount((a - lo).astype(int), minlength=n), np.bincount((b - lo).astype(int), minlength=n)


def _workload_leaf_law(data: np.ndarray, runs: int, eps: float) -> np.ndarray:
    """The released noisy count of the depth-2 cell holding (0.8, 0.8), the quadtree's budget planned for
    a workload of that level's cells (seeded runs)."""
    cells = np.array([[x, y, x + 0.25, y + 0.25] for x in (0, 0.25, 0.5, 0.75) for y in (0, 0.25, 0.5, 0.75)])
    out = []
    for s in range(runs):
        t = pv.build(data, DOM, "quadtree", eps, seed=s, resolution=BITS, height=2, prune=None, workload=cells).tree
        leaf = np.flatnonzero((t.depth == 2) & (t.rect[:, 0] == 0.75) & (t.rect[:, 1] == 0.75))[0]
        out.append(t.noisy[leaf])
    return np.asarray(out)


def test_quadtree_workload_plan_audit():
    """The workload sets only where epsilon goes; the plan sums to epsilon (the ledger refuses more), so
    a point added in the cell moves the law of its released count by at most e^epsilon. The check has
    power: the leaf level holds 0.58 of epsilon here (0.93 of the 1.6; the upper levels keep their floor), and
    claiming 0.3 fails it."""
    runs, eps = 1000, 1.6
    d = np.array([[0.1, 0.1], [0.2, 0.3], [0.8, 0.8], [0.85, 0.9]])
    a, b = _workload_leaf_law(d, runs, eps), _workload_leaf_law(np.vstack([d, [[0.8, 0.9]]]), runs, eps)
    ca, cb = _integer_laws(a, b)
    assert ratio_ok(ca, cb, runs, eps)
    assert not ratio_ok(ca, cb, runs, 0.3)


def _hybrid_workload_law(data: np.ndarray, runs: int, eps: float) -> np.ndarray:
    """The released noisy count of the hybrid's leaf holding (0.8, 0.9), its count levels planned for a workload
    of the quadtree's depth-2 cells (seeded runs): a function of the whole release, medians and counts together."""
    squares = np.array([[x, y, x + 0.25, y + 0.25] for x in (0, 0.25, 0.5, 0.75) for y in (0, 0.25, 0.5, 0.75)])
    out = []
    for s in range(runs):
        t = pv.build(data, DOM, "hybrid", eps, seed=s, resolution=BITS, height=2, switch=1, prune=None,
                     workload=squares).tree
        r = t.rect
        leaf = np.flatnonzero(t.is_leaf & (r[:, 0] <= 0.8) & (r[:, 2] > 0.8) & (r[:, 1] <= 0.9) & (r[:, 3] > 0.9))[0]
        out.append(t.noisy[leaf])
    return np.asarray(out)


def test_hybrid_workload_plan_audit():
    """The hybrid planned for a workload: the medians keep their share, the plan splits the counts' share (the
    ledger refuses more), so a point added at (0.8, 0.9) moves the law of the released count of the leaf holding
    it, through the medians and the counts together, by at most e^epsilon. The check has power: the leaves hold
    0.41 of epsilon here (the top levels keep their floor), and claiming 0.3 fails it."""
    runs, eps = 1000, 3.0
    d = np.array([[0.1, 0.1], [0.2, 0.3], [0.8, 0.8], [0.85, 0.9]])
    a, b = _hybrid_workload_law(d, runs, eps), _hybrid_workload_law(np.vstack([d, [[0.8, 0.9]]]), runs, eps)
    ca, cb = _integer_laws(a, b)
    assert ratio_ok(ca, cb, runs, eps)
    assert not ratio_ok(ca, cb, runs, 0.3)
