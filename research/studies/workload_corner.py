"""An atom in a corner, given a workload: auto's pick by its other rows (the hybrid kd-tree with NNLS, from the
corner row) against PrivTree and the workload strategy, on the four corner members of the zero-inflated family.

N = 2 x 10^4, 2 x 10^5 and 10^6, epsilon 0.1 and 1; the workloads of ``workload_choice.py --set sparse`` (200
random rectangles, 1,000 row prefixes, their transpose, 1,000 squares of 4 cells on data); mean relative error
(floor 0.001 N) over 3 runs; the pick planned for the workload where it plans (the hybrid from N eps = 5 x 10^4),
PrivTree without one (it has no plan). The reading (why no row sends ADULT-2D's row prefixes elsewhere) is in
docs/decisions/workload-strategy.md, "Auto's workload row".

    python research/studies/workload_corner.py > research/studies/workload_corner.md
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(Path(__file__).parent))
from bench_dpbench import DOMAIN  # noqa: E402
from workload_choice import sparse_sets, workloads  # noqa: E402

import psdviz as pv  # noqa: E402
from psdviz.lab.metrics import relative_error  # noqa: E402
from psdviz.methods import auto  # noqa: E402

RUNS = 3


def mre(pts: np.ndarray, method: str, eps: float, w: np.ndarray, truth: np.ndarray, planned: bool) -> float:
    n = len(pts)
    return float(np.mean([np.mean(relative_error(pv.build(pts, DOMAIN, method, eps, seed=3 + s, resolution=8,
                                                          workload=w if planned else None).answer(w), truth, n))
                          for s in range(RUNS)]))


def main() -> int:
    auto.RULES = tuple(r for r in auto.RULES if r.method != "strategy")    # the pick of the other rows
    print("| family | N | eps | workload | pick | pick+W MRE | PrivTree / pick | strategy / pick |")
    print("|---|---:|---:|---|---|---:|---:|---:|")
    for n in (20_000, 200_000, 1_000_000):
        for label, pts in sparse_sets(n):
            if "corner" not in label:
                continue
            index = pv.PointIndex(pts)
            for name, w in workloads(pts, "sparse").items():
                w = w.astype(float)
                w[:, [2, 3]] = np.maximum(w[:, [2, 3]], w[:, [0, 1]] + 1)
                truth = index.count(w)
                for eps in (0.1, 1.0):
                    pick = pv.build(pts, DOMAIN, "auto", eps, seed=3, resolution=8, workload=w).params["chosen"]
                    a = mre(pts, "auto", eps, w, truth, True)
                    p, s = mre(pts, "privtree", eps, w, truth, False), mre(pts, "strategy", eps, w, truth, True)
                    print(f"| {label} | {n} | {eps:g} | {name} | {pick} | {a:.4g} | {p / a:.2f} | {s / a:.2f} |",
                          flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
