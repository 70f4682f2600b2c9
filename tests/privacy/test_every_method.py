"""Every method keeps every promise, by construction: the checks of ``promises.py`` run over the registry (plug-ins
included), at each method's defaults and with a workload where it plans for one, over the other release kinds and
over every noisy fact auto buys. Two leaky toys, installed as a plug-in is, show that the checks can fail: one
adds floating-point Laplace noise to its counts, the other splits at the exact median (that one is caught by the
D vs D' audit of ``test_every_method_audit.py``)."""
from __future__ import annotations

import ast
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest
from promises import float_channel, ledger_problems

import psdviz as pv
from psdviz.core.domain import prepare_points
from psdviz.core.ledger import Ledger
from psdviz.methods import auto, registry

DOM = pv.Domain(0, 0, 1, 1)
POINTS = np.clip(np.vstack([np.random.default_rng(3).normal(0.3, 0.05, (2000, 2)),
                            np.random.default_rng(4).random((1000, 2))]), 0, 1)
_corners = np.sort(np.random.default_rng(1).random((40, 2, 2)), axis=1)
RECTS = np.column_stack([_corners[:, 0, 0], _corners[:, 0, 1], _corners[:, 1, 0], _corners[:, 1, 1]])
WORKLOAD = RECTS[:12]


def configurations(names) -> list[tuple[str, dict]]:
    """Each method at its defaults, and with a workload where its spec plans for one."""
    out = []
    for name in names:
        out.append((name, {}))
        if registry.spec_of(name).workloads:
            out.append((name, {"workload": WORKLOAD}))
    return out


CONFIGS = configurations(pv.METHODS)


def _build(method: str, kw: dict, rnd, epsilon: float = 1.0, points: np.ndarray = POINTS):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pv.build(points, DOM, method, epsilon, seed=rnd, resolution=10, **kw)


def _ids(configs):
    return [f"{m}{' +workload' if kw else ''}" for m, kw in configs]


@pytest.mark.parametrize(("method", "kw"), CONFIGS, ids=_ids(CONFIGS))
def test_no_released_value_carries_float_noise(method, kw):
    changed, _ = float_channel(lambda rnd: _build(method, kw, rnd), RECTS)
    assert not changed, f"{method}: {changed} change when continuous draws are scaled by 1 + 2^-20"


@pytest.mark.parametrize(("method", "kw"), CONFIGS, ids=_ids(CONFIGS))
@pytest.mark.parametrize("epsilon", [0.05, 1.0, 20.0])
def test_the_ledger_never_exceeds_epsilon(method, kw, epsilon):
    from promises import randomness
    assert not ledger_problems(_build(method, kw, randomness(7), epsilon), epsilon)


def test_the_other_release_kinds_carry_no_float_noise():
    from psdviz import coco, sparse
    gpd, shapely = pytest.importorskip("geopandas"), pytest.importorskip("shapely")
    from psdviz.regions import Regions
    boxes = [shapely.box(x, y, x + 0.25, y + 0.5) for x in (0, 0.25, 0.5, 0.75) for y in (0, 0.5)]
    layer = Regions.from_frame(gpd.GeoDataFrame({"id": [f"r{i}" for i in range(8)]}, geometry=boxes), id="id",
                               crs=None)
    builds = {"regions": lambda rnd: pv.build_regions(POINTS, layer, epsilon=1.0, seed=rnd, domain=DOM, resolution=10)}
    h = coco.Hierarchy.from_paths([("NY", "JFK"), ("NY", "LGA"), ("FL", "MIA")], root="USA")
    groups = np.random.default_rng(2).integers(0, 300, 2000)
    records = coco.group_records(groups, np.array(["JFK", "LGA", "MIA"])[groups % 3], h, max_size=20)
    for m in ("hc", "hg"):
        builds[f"count-of-counts {m}"] = lambda rnd, m=m: coco.publish(records, h, method=m, epsilon=[0.3, 0.3, 0.4],
                                                                       seed=rnd)
    rng = np.random.default_rng(2)
    table = sparse.make_table(np.sort(rng.choice(10_000, 300, replace=False)), rng.integers(1, 50, 300), 10_000)
    for m in sparse.METHODS:
        builds[f"sparse {m}"] = lambda rnd, m=m: sparse.summarize(table, method=m, epsilon=1.0, seed=rnd)
    times = np.random.default_rng(5).integers(0, 20 * 86400, len(POINTS))
    users = np.random.default_rng(6).integers(0, 400, len(POINTS))
    over_time = {"event flat": {}, "event tree": {"mechanism": "tree"},
                 "user tree": {"unit": "user", "user": users, "max_points_per_window": 2, "max_points_per_user": 6},
                 "user flat": {"unit": "user", "user": users, "max_points_per_window": 2, "max_points_per_user": 6,
                               "mechanism": "flat"},
                 "w-event ba": {"unit": "w-event", "w": 4},
                 "w-event bd": {"unit": "w-event", "w": 4, "mechanism": "bd"},
                 "privtree partition": {"partition": "privtree"}}
    for name, kw in over_time.items():
        builds[f"over time {name}"] = lambda rnd, kw=kw: pv.build_over_time(
            POINTS, DOM, time=times, span=(0, 20 * 86400), window="1d", epsilon=1.0, seed=rnd, grid_level=2, **kw)
    leaky = {name: changed for name, build in builds.items() if (changed := float_channel(build)[0])}
    assert not leaky


# ---- every noisy fact auto buys ----------------------------------------------------------------------------

def _fact_names() -> set[str]:
    """The facts auto's source buys: the string argument of each call to its two noisy-fact primitives, and N."""
    tree = ast.parse(Path(auto.__file__).read_text())
    names = {"auto feature: N"}
    for call in ast.walk(tree):
        if isinstance(call, ast.Call) and getattr(call.func, "id", "") in ("_noisy_fact", "_statistic_floor"):
            names |= {f"auto feature: {a.value}" for a in call.args[:8]
                      if isinstance(a, ast.Constant) and isinstance(a.value, str)}
    return names


def _scenarios():
    """(points, epsilon, N public or None, workload, resolution, domain) that between them buy every fact."""
    import test_auto_facts_audit as known
    rng = np.random.default_rng(12)
    big = pv.Domain(0, 0, 256, 256)
    line = np.vstack([np.column_stack([rng.uniform(0, 256, 600), np.full(600, 64.5)]), rng.uniform(0, 256, (80, 2))])
    return [
        (POINTS, 1.0, None, None, 10, DOM),                            # N, the corners (the spread waits)
        (POINTS, 10.0, None, None, 12, DOM),                           # N eps 3 x 10^4: the spread, a finer grid
        (line, 2.0, None, None, 8, big),                              # a line of cells: the fullest line
        (known._fine_points("small", 0), 50.0, 1000, known._fine_workload("small"), 8, big),   # workload cells, fine
        (known._fine_points("thin", 0), 1000.0, 1000, known._fine_workload("thin"), 8, big),   # fine across rows
        (known._edge_points(0), known.EDGE_EPS, 1000, known._fine_workload("thin"), 8, big),  # heaped edges
    ]


class _Recorder:
    """Wraps auto's noisy-fact primitives: what each was asked to measure, its exact value and sensitivity."""

    def __init__(self, monkeypatch):
        self.seen: dict[str, tuple[float, float]] = {}
        fact, floor, population = auto._noisy_fact, auto._statistic_floor, auto.noisy_population

        def noisy_fact(value, epsilon, rnd, ledger, what, note):
            self.seen[f"auto feature: {what}"] = (float(value), 1.0)
            return fact(value, epsilon, rnd, ledger, what, note)

        def statistic(value, sensitivity, epsilon, n, rnd, ledger, what, note):
            self.seen[f"auto feature: {what}"] = (float(value), float(sensitivity))
            return floor(value, sensitivity, epsilon, n, rnd, ledger, what, note)

        def noisy_n(n_true, epsilon, rnd, ledger, what, *rest):
            self.seen[what] = (float(n_true), 1.0)
            return population(n_true, epsilon, rnd, ledger, what, *rest)

        monkeypatch.setattr(auto, "_noisy_fact", noisy_fact)
        monkeypatch.setattr(auto, "_statistic_floor", statistic)
        monkeypatch.setattr(auto, "noisy_population", noisy_n)

    def facts(self, pts, eps, n_public, workload, resolution, domain, seed) -> dict[str, tuple[float, float]]:
        from promises import randomness
        self.seen = {}
        ps = prepare_points(pts, domain, resolution=resolution)
        cells = auto.workload_cells(workload, ps, min(auto.FEATURE_SIDE, ps.grid.size))
        auto.measure_facts(ps, eps, randomness(seed), Ledger(eps), n_public, cells)
        return dict(self.seen)


def test_every_fact_auto_buys_moves_by_at_most_its_sensitivity(monkeypatch):
    """For every scenario, D against neighbours D' (a point added where the data are, or anywhere; a point
    removed), with the same randomness: each fact's exact value moves by at most the sensitivity its noise is
    drawn for. The scenarios between them buy every fact auto's source names."""
    rec = _Recorder(monkeypatch)
    rng = np.random.default_rng(0)
    bought: set[str] = set()
    for pts, eps, n_public, workload, res, dom in _scenarios():
        base = rec.facts(pts, eps, n_public, workload, res, dom, seed=3)
        bought |= set(base)
        size = np.array([dom.xmax - dom.xmin, dom.ymax - dom.ymin])
        neighbours = [np.vstack([pts, pts[rng.integers(len(pts))] + rng.uniform(-2, 2, 2) * size / 256])
                      for _ in range(6)]
        neighbours += [np.vstack([pts, [dom.xmin, dom.ymin] + rng.random(2) * size]) for _ in range(3)]
        neighbours += [np.delete(pts, rng.integers(len(pts)), axis=0) for _ in range(3)]
        for other in neighbours:
            moved = rec.facts(np.clip(other, [dom.xmin, dom.ymin], [dom.xmax, dom.ymax]), eps, n_public, workload,
                              res, dom, seed=3)
            for what in set(base) & set(moved):
                assert abs(base[what][0] - moved[what][0]) <= base[what][1] + 1e-9, what
    assert bought == _fact_names(), f"scenarios buy {sorted(bought)}; auto's source names {sorted(_fact_names())}"


def test_auto_releases_no_float_noise_where_each_fact_is_bought():
    for pts, eps, n_public, workload, res, dom in _scenarios():
        kw = {"workload": workload} if workload is not None else {}
        if n_public is not None:
            kw["n_public"] = n_public
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            changed, _ = float_channel(lambda rnd: pv.build(pts, dom, "auto", eps, seed=rnd, resolution=res, **kw),
                                       np.array([[dom.xmin, dom.ymin, dom.xmax / 2, dom.ymax / 3]]))
        assert not changed


# ---- the checks can fail: two leaky toys installed as a plug-in -------------------------------------------------

TOYS = textwrap.dedent('''
    """Two leaky toys: float Laplace noise on a grid's counts, and a kd-tree split at the exact median."""
    import dataclasses

    from psdviz.methods.kdtree import build_kd_true
    from psdviz.methods.spec import MethodSpec
    from psdviz.methods.ug import build_ug


    def build_leaky_float(ps, domain, epsilon, rnd):
        rel = build_ug(ps, domain, epsilon, rnd, grid_size=8)
        est = rel.tree.est + rnd.rng.laplace(0.0, 1e-3, rel.tree.est.shape)    # float noise reaches the estimates
        return rel.evolve(method="leaky-float", tree=dataclasses.replace(rel.tree, est=est))


    def build_leaky_median(ps, domain, epsilon, rnd):
        return build_kd_true(ps, domain, epsilon, rnd, height=2).evolve(method="leaky-median")


    SPECS = (MethodSpec("leaky-float", build_leaky_float, paper="a test's own", data_dependent=False),
             MethodSpec("leaky-median", build_leaky_median, paper="a test's own"))
''')


@pytest.fixture
def leaky_toys(tmp_path, monkeypatch):
    """The toys as pip leaves a plug-in: a module and an entry point of the psdviz.methods group."""
    (tmp_path / "leaky_psdviz_toys.py").write_text(TOYS)
    info = tmp_path / "leaky_psdviz_toys-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: leaky-psdviz-toys\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[psdviz.methods]\nleaky = leaky_psdviz_toys\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    registry.reload()
    yield
    monkeypatch.undo()
    sys.modules.pop("leaky_psdviz_toys", None)
    registry.reload()


def test_the_float_check_run_over_the_registry_catches_the_float_toy(leaky_toys):
    assert {"leaky-float", "leaky-median"} <= set(pv.METHODS)
    caught = [f"{m}{kw}" for m, kw in configurations(registry.methods())
              if float_channel(lambda rnd, m=m, kw=kw: _build(m, kw, rnd), RECTS)[0]]
    assert caught == ["leaky-float{}"]



@pytest.mark.parametrize(("method", "kw"), CONFIGS, ids=_ids(CONFIGS))
def test_every_release_reloads_with_estimates_derived_from_its_noisy_counts(method, kw, tmp_path):
    """The loader checks that the estimates follow from the released noisy counts (a file whose estimates were
    edited is refused, tests/publish/test_tampered_files.py); every method's own file passes, with non-negative
    least squares too where it applies."""
    from promises import randomness
    variants = [kw, {**kw, "nonnegative": True}] if registry.spec_of(method).nonnegative else [kw]
    for i, v in enumerate(variants):
        rel = _build(method, v, randomness(3))
        back = pv.load_release(rel.save(tmp_path / f"r{i}.parquet", allow_seeded=True))
        assert np.array_equal(back.answer(RECTS), rel.answer(RECTS))


def test_nonnegative_is_refused_where_cells_are_estimated_jointly_and_kept_when_auto_picks_them():
    with pytest.raises(ValueError, match="does not apply to 'strategy'"):
        pv.build(POINTS, DOM, "strategy", 1.0, nonnegative=True)
    from psdviz.lab.synthetic import gaussian_mixture
    big = pv.Domain(0, 0, 256, 256)
    pts = gaussian_mixture(200_000, big, np.random.default_rng(1), k=5, spread=0.05)
    corners = np.floor(pts[np.random.default_rng(2).integers(0, len(pts), 300)])
    small = np.column_stack([np.clip(corners - 2, 0, 252), np.clip(corners - 2, 0, 252) + 4])   # small squares
    rel = pv.build(pts, big, "auto", 1.0, seed=1, resolution=8, workload=small, nonnegative=True)
    assert rel.params["chosen"] == "strategy"
    assert rel.query_model.inference == "" and any("least-squares estimates are kept" in n for n in rel.notes)
