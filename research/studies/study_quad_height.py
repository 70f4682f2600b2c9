"""The quadtree's height rule on data recorded at full precision and on the same data binned to 256 cells.

The rule h = ceil(log4(N eps / c)), c = 10 (psdviz/methods/quadtree.py), was read at resolution 8, where
the 256 grid caps the height at 8; above 8 it is an extrapolation. At resolution 20 on the DPBench files
(points spread evenly inside their 256-grid cells) it asks for 10 levels on GOWALLA at epsilon 1 and 8
would do better (docs/decisions/early-stop.md). This study asks whether that is the rule or the data: it
sweeps the height around the rule's at resolution 20 on

* point sets recorded at full precision: GeoNames' populated places (the bundled sample, real places on
  the world domain), the DPBench synthetic mixture drawn continuously (../shared/dpbench/README.md's
  recipe without the binning), the lab's skewed mixture, and uniform points;
* the same point sets binned to a 256 x 256 grid and spread evenly inside their cells (the DPBench
  protocol's placement, so the data carry no detail below the 256 grid),

at N eps from 3 x 10^3 to 3 x 10^6 (N eps is what the rule reads; the sample's fixed N reaches the larger
products through epsilon), heights from one below the rule's to one above. Two query sets, each answered
by every build: 200 rectangles whose corners are uniform over the domain, and the protocol's 200
rectangles with corners on the 256 grid. Exact truth from the points, MRE with rho = 0.001 N.

With ``--file checkin_256_256 --epsilon 1`` it runs one DPBench file instead (the protocol's placement, fresh
per run, heights 8-11 or ``--heights``, both query sets, ``--resolution`` 20 or given): the cell where the
rule's height trails Quad-opt. ``--method ag --resolutions 8 20`` compares another method with its defaults
at two resolutions on the same points and queries.

    python research/studies/study_quad_height.py [--runs 5]                          # about 10 minutes
    python research/studies/study_quad_height.py --file checkin_256_256 --epsilon 1 --runs 6   # about 2 minutes

Prints the tables; the figures are quoted in docs/decisions/early-stop.md.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_dpbench import load_hist, synthetic_points  # noqa: E402  (the DPBench files and synthetic1M, as that bench reads them)

import psdviz as pv  # noqa: E402
from psdviz.io.samples import sample_points  # noqa: E402
from psdviz.lab.dpbench import histogram_points, protocol_queries  # noqa: E402
from psdviz.lab.metrics import relative_error  # noqa: E402
from psdviz.lab.synthetic import skewed  # noqa: E402
from psdviz.methods.quadtree import quad_height  # noqa: E402
from psdviz.query.truth import PointIndex  # noqa: E402

N_EPS = (3e3, 1e4, 3e4, 1e5, 3e5, 1e6, 3e6)
OFFSETS = (-1, 0, 1)     # heights tried, relative to the rule's
RESOLUTION = 20
UNIT = pv.Domain(0.0, 0.0, 256.0, 256.0)


def binned(xy: np.ndarray, domain: pv.Domain, rng: np.random.Generator) -> np.ndarray:
    """Each point moved to a uniform position inside its 256 x 256 cell of the domain (the protocol's
    placement): the same counts per cell, no detail below the cell."""
    lo = np.array([domain.xmin, domain.ymin])
    size = np.array([domain.width, domain.height]) / 256.0
    cell = np.minimum(np.floor((xy - lo) / size), 255)
    return lo + (cell + rng.random(xy.shape)) * size


def random_rects(domain: pv.Domain, k: int = 200, seed: int = 8) -> np.ndarray:
    """k rectangles whose two x's and two y's are uniform over the domain (sorted)."""
    rng = np.random.default_rng(seed)
    x = np.sort(rng.uniform(domain.xmin, domain.xmax, (k, 2)), axis=1)
    y = np.sort(rng.uniform(domain.ymin, domain.ymax, (k, 2)), axis=1)
    return np.column_stack([x[:, 0], y[:, 0], x[:, 1], y[:, 1]])


def grid_rects(domain: pv.Domain) -> np.ndarray:
    """The protocol's 200 rectangles, corners on the 256 x 256 grid, mapped onto the domain."""
    q = protocol_queries() / 256.0
    return np.column_stack([domain.xmin + q[:, 0] * domain.width, domain.ymin + q[:, 1] * domain.height,
                            domain.xmin + q[:, 2] * domain.width, domain.ymin + q[:, 3] * domain.height])


QUERIES = {"corners anywhere": random_rects, "corners on the 256 grid": grid_rects}


def query_loads(index: PointIndex, domain: pv.Domain) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """{query set: (its rectangles on ``domain``, their exact counts in ``index``)}."""
    rects = {name: make(domain) for name, make in QUERIES.items()}
    return {name: (r, index.count(r)) for name, r in rects.items()}


def families() -> list[tuple[str, np.ndarray, pv.Domain]]:
    places = sample_points("geonames")
    return [("GeoNames places", places, pv.Domain(-180.0, -90.0, 180.0, 90.0)),
            ("DPBench mixture, 1M", synthetic_points(), UNIT),
            ("skewed mixture, 1M", skewed(1_000_000, UNIT, np.random.default_rng(3)), UNIT),
            ("uniform, 1M", np.random.default_rng(4).uniform(0.0, 256.0, (1_000_000, 2)), UNIT)]


def sweep(xy: np.ndarray, domain: pv.Domain, runs: int, n_eps=N_EPS, offsets=OFFSETS) -> dict:
    """{query set: {(N eps, rule's height, height): [MRE per run]}} at heights rule + offset (N declared
    public, so every height has the same budget for its counts); each build answers both query sets."""
    loads = query_loads(PointIndex(xy), domain)
    n = xy.shape[0]
    out: dict = {name: {} for name in QUERIES}
    for ne in n_eps:
        eps = ne / n
        rule = quad_height(n, eps)
        for h in (rule + o for o in offsets if rule + o >= 1):
            for r in range(runs):
                rel = pv.build(xy, domain, "quadtree", eps, seed=1000 + r, resolution=RESOLUTION, height=h,
                               n_public=n)
                for name, (rects, truth) in loads.items():
                    err = float(relative_error(rel.answer(rects), truth, n).mean())
                    out[name].setdefault((ne, rule, h), []).append(err)
    return out


def file_sweep(hist: np.ndarray, eps: float, runs: int, configs: dict[str, dict]) -> dict:
    """{(query set, label): [MRE per run]} on one DPBench histogram (or bench_dpbench's synthetic1M), its
    points placed afresh per run; ``configs`` maps a column label to ``pv.build`` arguments (method included)."""
    n = int(hist.sum())
    out: dict = {}
    for r in range(runs):
        xy = histogram_points(hist, np.random.default_rng(500 + r))
        loads = query_loads(PointIndex(xy), UNIT)
        for label, kw in configs.items():
            rel = pv.build(xy, UNIT, epsilon=eps, seed=900 + r, **kw)
            for q, (rects, truth) in loads.items():
                out.setdefault((q, label), []).append(float(relative_error(rel.answer(rects), truth, n).mean()))
    return out


def file_table(res: dict, labels) -> list[str]:
    lines = ["| queries | " + " | ".join(labels) + " |", "|---|" + "---:|" * len(labels)]
    for q in QUERIES:
        cells = [np.array(res[(q, label)]) for label in labels]
        lines.append(f"| {q} | " + " | ".join(f"{c.mean():.6f} (se {c.std() / np.sqrt(c.size):.6f})" for c in cells)
                     + " |")
    return lines


def table(rows: list[tuple[str, dict]], n_eps=N_EPS, offsets=OFFSETS) -> list[str]:
    heads = [f"rule {o:+d}" if o else "rule" for o in offsets]
    lines = ["| data | N eps | rule's height | " + " | ".join(heads) + " | best height |",
             "|---|---:|---:|" + "---:|" * (len(offsets) + 1)]
    for name, res in rows:
        for ne in n_eps:
            cells = {h: np.mean(v) for (m, _, h), v in res.items() if m == ne}
            rule = next(r for (m, r, _) in res if m == ne)
            best = min(cells, key=cells.get)
            lines.append(f"| {name} | {ne:.2g} | {rule} | "
                         + " | ".join(f"{cells[rule + o]:.5f}" if rule + o in cells else "-" for o in offsets)
                         + f" | {best} |")
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--file", help="one DPBench file of ../shared/dpbench (name without .npy) or synthetic1M")
    ap.add_argument("--heights", type=int, nargs="+", default=(8, 9, 10, 11), help="with --file: heights tried")
    ap.add_argument("--resolution", type=int, default=RESOLUTION, help="with --file: the release grid's bits")
    ap.add_argument("--method", help="with --file: this method with its defaults at each of --resolutions instead")
    ap.add_argument("--resolutions", type=int, nargs="+", default=(8, RESOLUTION))
    ap.add_argument("--epsilon", type=float, default=1.0)
    ap.add_argument("--n-eps", type=float, nargs="+", default=N_EPS, help="the products N eps to sweep")
    ap.add_argument("--offsets", type=int, nargs="+", default=OFFSETS, help="heights tried, relative to the rule's")
    args = ap.parse_args()
    t0 = time.time()
    hist = load_hist(args.file) if args.file else None
    if args.file and args.method:
        configs = {f"resolution {r}": {"method": args.method, "resolution": r} for r in args.resolutions}
        res = file_sweep(hist, args.epsilon, args.runs, configs)
        print(f"{args.file}, epsilon {args.epsilon:g}, {args.method} with its defaults, {args.runs} runs "
              f"({time.time() - t0:.0f} s)\n")
        print("\n".join(file_table(res, list(configs))))
        return 0
    if args.file:
        n = int(hist.sum())
        configs = {f"height {h}": {"method": "quadtree", "resolution": args.resolution, "height": h, "n_public": n}
                   for h in args.heights}
        res = file_sweep(hist, args.epsilon, args.runs, configs)
        rule = min(args.resolution, quad_height(n, args.epsilon))
        print(f"{args.file}, epsilon {args.epsilon:g}, quadtree at resolution {args.resolution} "
              f"(the rule's height: {rule}), {args.runs} runs, N public ({time.time() - t0:.0f} s)\n")
        print("\n".join(file_table(res, list(configs))))
        return 0
    placements = {"recorded at full precision": [], "binned to 256 x 256 cells, spread evenly inside them "
                  "(the DPBench placement)": []}
    full, coarse = placements.values()
    for name, xy, domain in families():
        full.append((name, sweep(xy, domain, args.runs, args.n_eps, args.offsets)))
        coarse.append((name, sweep(binned(xy, domain, np.random.default_rng(11)), domain, args.runs, args.n_eps,
                                   args.offsets)))
    print(f"Quadtree MRE by height, resolution {RESOLUTION}, {args.runs} runs, N public ({time.time() - t0:.0f} s)")
    for placement, rows in placements.items():
        for queries in QUERIES:
            print(f"\nData {placement}; queries with {queries}:\n")
            print("\n".join(table([(name, res[queries]) for name, res in rows], args.n_eps, args.offsets)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
