"""The hybrid tree's height raised to the queries' scale for a workload of small or thin queries: measured on the
four corner members of the zero-inflated family (where auto picks the hybrid), not kept.

For each member, N in {2 x 10^4, 2 x 10^5, 10^6}, epsilon in {0.1, 1} and the workloads of
``workload_choice.py --set sparse``: the hybrid as auto builds it (98 % of epsilon, non-negative least squares,
the build's stop at two noise sds, planned for the workload from N eps = 5 x 10^4) at its default height
min(8, ceil(log4(N eps / 10))) and at the height whose leaves are as narrow as the queries (8 for prefixes one
cell tall, 6 for squares of 4 cells, at resolution 8); mean relative error (floor 0.001 N) over 3 runs. Cells
where the default already reaches that height are skipped. Reading: docs/decisions/workload-strategy.md
("Measured and not kept").

    python research/studies/study_hybrid_height.py > research/studies/study_hybrid_height.txt
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(Path(__file__).parent))
from bench_dpbench import DOMAIN  # noqa: E402
from ratios import summary  # noqa: E402
from workload_corner import corner_workloads  # noqa: E402

import psdviz as pv  # noqa: E402
from psdviz.lab.metrics import relative_error  # noqa: E402
from psdviz.publish.nonnegative import nonnegative  # noqa: E402

RUNS = 3
SHARE = 0.98          # what auto's facts leave, about


def mre(pts: np.ndarray, eps: float, w: np.ndarray, truth: np.ndarray, height: int) -> float:
    n = len(pts)
    plan = n * eps >= 5e4
    return float(np.mean([np.mean(relative_error(nonnegative(pv.build(
        pts, DOMAIN, "hybrid", eps * SHARE, seed=3 + s, resolution=8, height=height, stop_sds=2.0,
        workload=w if plan else None)).answer(w), truth, n)) for s in range(RUNS)]))


def main() -> int:
    ratios = []
    for label, n, name, w, pts, truth in corner_workloads():
        for eps in (0.1, 1.0):
            h0 = min(8, math.ceil(math.log(n * eps * SHARE / 10, 4)))
            hw = 8 if "prefix" in name else 6 if "squares" in name else h0
            if hw <= h0:
                continue
            a, b = mre(pts, eps, w, truth, h0), mre(pts, eps, w, truth, hw)
            ratios.append(b / a)
            print(f"{label} | N {n} | eps {eps:g} | {name} | height {h0}: {a:.4g} | height {hw}: {b:.4g} | "
                  f"ratio {b / a:.2f}", flush=True)
    print(f"deeper over default: {summary(np.array(ratios), 'the deeper tree')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
