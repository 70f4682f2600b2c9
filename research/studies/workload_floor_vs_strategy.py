"""The quadtree's workload plan with and without its floor, beside the workload strategy.

The quadtree planned for a workload keeps a floor on every level (5 % of the largest level's epsilon, and half
the geometric plan's shape on depths 0-2: psdviz/methods/workload_budget.py), because its counts also decide
where the build stops. Without the floor (``FLOOR_SHARE`` 0.1 %, ``TOP_LEVELS`` 0) nearly all of epsilon goes
to the levels the workload uses. This measures both beside the strategy method on synthetic families (never
the DPBench files): mean relative error over the workload (floor 0.001 N), resolution 8, ``--runs`` seeds.

    python research/studies/workload_floor_vs_strategy.py --runs 2 > research/studies/workload_floor_vs_strategy.md
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "research" / "studies"))
from bench_dpbench import DOMAIN, queries  # noqa: E402
from workload_choice import row_prefixes, squares  # noqa: E402

import psdviz as pv  # noqa: E402
import psdviz.methods.workload_budget as plan  # noqa: E402
from psdviz.lab.metrics import relative_error  # noqa: E402
from psdviz.lab.synthetic import gaussian_mixture, uniform  # noqa: E402

SHIPPED = (plan.FLOOR_SHARE, plan.TOP_LEVELS)


def quadtree(pts, eps: float, w: np.ndarray, seed: int, floor: bool) -> pv.Release:
    plan.FLOOR_SHARE, plan.TOP_LEVELS = SHIPPED if floor else (1e-3, 0)
    try:
        return pv.build(pts, DOMAIN, "quadtree", eps, seed=seed, resolution=8, workload=w)
    finally:
        plan.FLOOR_SHARE, plan.TOP_LEVELS = SHIPPED


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=2)
    runs = ap.parse_args().runs
    print("| family | N | eps | workload | quadtree+W, floor | quadtree+W, no floor | strategy | no floor / floor | "
          "strategy / best quadtree |")
    print("|---|---:|---:|---|---:|---:|---:|---:|---:|")
    for n in (200_000, 2_000_000):
        rng = np.random.default_rng(n)
        sets = [("uniform", uniform(n, DOMAIN, rng)),
                ("mixture k=5 spread=0.05", gaussian_mixture(n, DOMAIN, rng, k=5, spread=0.05))]
        for label, pts in sets:
            wr = np.random.default_rng(1)
            loads = {"random rectangles": queries(), "row prefixes": row_prefixes(wr),
                     "squares 4": squares(pts, 4, wr), "squares 16": squares(pts, 16, wr)}
            index = pv.PointIndex(pts)
            for name, w in loads.items():
                w = w.astype(float)
                truth = index.count(w)
                for eps in (0.1, 1.0):
                    err = {k: [] for k in ("floor", "no floor", "strategy")}
                    for r in range(runs):
                        for k in err:
                            rel = (pv.build(pts, DOMAIN, "strategy", eps, seed=r, resolution=8, workload=w)
                                   if k == "strategy" else quadtree(pts, eps, w, r, k == "floor"))
                            err[k].append(float(np.mean(relative_error(rel.answer(w), truth, n))))
                    f, nf, s = (float(np.mean(err[k])) for k in err)
                    print(f"| {label} | {n} | {eps:g} | {name} | {f:.4g} | {nf:.4g} | {s:.4g} | {nf / f:.2f} | "
                          f"{s / min(f, nf):.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
