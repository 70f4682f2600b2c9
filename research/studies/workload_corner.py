"""An atom in a corner, given a workload: auto's pick by its other rows (the hybrid kd-tree with NNLS, from the
corner row) against PrivTree, the workload strategy and auto with all its rows but the one for thin queries over a
corner atom (which this study is the evidence for), on the four corner members of the zero-inflated family.

N = 2 x 10^4, 2 x 10^5 and 10^6, epsilon 0.1 and 1; the workloads of ``workload_choice.py --set sparse`` (200
random rectangles, 1,000 row prefixes, their transpose, 1,000 squares of 4 cells on data); mean relative error
(floor 0.001 N) over 3 runs; the pick planned for the workload where it plans (the hybrid from N eps = 5 x 10^4),
PrivTree without one (it has no plan). The reading is in docs/decisions/workload-strategy.md ("An atom in a
corner, given thin queries"; and why no row sends ADULT-2D's row prefixes elsewhere, "Auto's workload row").

    python research/studies/workload_corner.py > research/studies/workload_corner.md
    python research/studies/workload_corner.py summary     # the prefix cells by band of N eps, from that table
"""
from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(Path(__file__).parent))
from bench_dpbench import DOMAIN  # noqa: E402
from ratios import summary  # noqa: E402
from workload_choice import sparse_sets, workloads  # noqa: E402

import psdviz as pv  # noqa: E402
from psdviz.lab.metrics import relative_error  # noqa: E402
from psdviz.methods import auto  # noqa: E402

RUNS = 3
THIN_CORNER = "a workload of long thin queries and a corner cell"   # the row this study is evidence for


def mre(pts: np.ndarray, method: str, eps: float, w: np.ndarray, truth: np.ndarray, planned: bool) -> float:
    n = len(pts)
    return float(np.mean([np.mean(relative_error(pv.build(pts, DOMAIN, method, eps, seed=3 + s, resolution=8,
                                                          workload=w if planned else None).answer(w), truth, n))
                          for s in range(RUNS)]))


def corner_workloads() -> Iterator[tuple[str, int, str, np.ndarray, np.ndarray, np.ndarray]]:
    """(member, N, workload name, queries, points, true answers): each corner member of the zero-inflated family
    at each N with each workload of the sparse set, every query at least one cell a side."""
    for n in (20_000, 200_000, 1_000_000):
        for label, pts in sparse_sets(n):
            if "corner" not in label:
                continue
            index = pv.PointIndex(pts)
            for name, w in workloads(pts, "sparse").items():
                w = w.astype(float)
                w[:, [2, 3]] = np.maximum(w[:, [2, 3]], w[:, [0, 1]] + 1)
                yield label, n, name, w, pts, index.count(w)


def main() -> int:
    rows = auto.RULES
    print("| family | N | eps | workload | pick | pick+W MRE | PrivTree / pick | strategy / pick | auto | "
          "auto / pick |")
    print("|---|---:|---:|---|---|---:|---:|---:|---|---:|")
    for label, n, name, w, pts, truth in corner_workloads():
        for eps in (0.1, 1.0):
            auto.RULES = tuple(r for r in rows if r.method != "strategy")     # the pick of the other rows
            pick = pv.build(pts, DOMAIN, "auto", eps, seed=3, resolution=8, workload=w).params["chosen"]
            a = mre(pts, "auto", eps, w, truth, True)
            auto.RULES = tuple(r for r in rows if not r.when.startswith(THIN_CORNER))   # every other row
            full = pv.build(pts, DOMAIN, "auto", eps, seed=3, resolution=8, workload=w).params["chosen"]
            f = mre(pts, "auto", eps, w, truth, True)
            p, s = mre(pts, "privtree", eps, w, truth, False), mre(pts, "strategy", eps, w, truth, True)
            print(f"| {label} | {n} | {eps:g} | {name} | {pick} | {a:.4g} | {p / a:.2f} | {s / a:.2f} | "
                  f"{full} | {f / a:.2f} |", flush=True)
    auto.RULES = rows
    return 0


def summarise() -> int:
    """PrivTree over auto without the row, on the row and column prefixes of the table, by band of N eps: all cells,
    and those auto without the row leaves to the hybrid (the ones the row, read after the strategy rows, takes)."""
    rows = [[x.strip() for x in line.split("|")[1:-1]] for line in (Path(__file__).parent / "workload_corner.md")
            .read_text().splitlines() if line.startswith("| zero")]
    for lo, hi in ((0, 1e4), (1e4, 1e5), (1e5, 1.5e5), (1.5e5, np.inf)):
        band = [r for r in rows if "prefixes" in r[3] and lo <= int(r[1]) * float(r[2]) < hi]
        every = np.array([float(r[6]) / float(r[9]) for r in band])
        hybrid = np.array([float(r[6]) / float(r[9]) for r in band if r[8] == "hybrid"])
        print(f"N eps in [{lo:g}, {hi:g}): PrivTree over auto without the row: all {summary(every, 'PrivTree')}; "
              f"where auto without it picks the hybrid {summary(hybrid, 'PrivTree')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(summarise() if sys.argv[1:] == ["summary"] else main())
