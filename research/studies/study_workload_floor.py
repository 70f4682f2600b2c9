"""The workload plan's floor on the top levels: what it costs a focused workload, what it saves on tails.

A quadtree planned for a workload (``pv.build(..., workload=...)``, psdviz/methods/workload_budget.py) gives
each depth epsilon in proportion to the cube root of the workload's canonical nodes there, with a floor. The
build stops below a node whose noisy count is at most max(m, one noise sd), so a depth the plan starves stops
nodes on noise alone; the floor keeps depths 0-2 at half the geometric plan's shape (``TOP_LEVELS``). This
prints, for the flat 5 % floor alone (``TOP_LEVELS = 0``) and for the floor as shipped:

- the exact variance of a focused workload (300 squares of side 1/32 of the domain's width, height 6, no
  pruning) over the geometric plan's, the price of the floor;
- auto given the DPBench protocol's 200 queries as its workload on the three range-binned amounts of
  research/studies/study_sparse_pairs.py at 550,000 points and epsilon 1 (resolution 8, ``--runs`` seeds): the mean
  MRE and the points (true count) in the quadrants that stopped at depth 1, per build, beside auto without
  the workload.

    python research/studies/study_workload_floor.py [--runs 8]       # about a minute
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))    # the lab the studies build on
sys.path.insert(0, str(Path(__file__).resolve().parent))                       # the other studies
from bench_auto_rule import histogram
from bench_dpbench import DOMAIN, queries, truth
from study_sparse_pairs import range_binned

import psdviz as pv
import psdviz.methods.workload_budget as plan
from psdviz.lab.metrics import relative_error

FLOORS = {"flat 5 % floor": 0, "top levels at half the geometric plan": plan.TOP_LEVELS}


def focused_ratio() -> float:
    """Exact variance of 300 small squares under their own plan over the geometric plan's."""
    rng = np.random.default_rng(3)
    dom = pv.Domain(0, 0, 8, 4)
    pts = rng.uniform([0, 0], [8, 4], (20_000, 2))
    c = rng.uniform([0, 0], [7.75, 3.75], (300, 2))
    w = np.column_stack([c, c + 0.25])
    var = [pv.build(pts, dom, "quadtree", 0.5, seed=1, height=6, prune=None, **kw).answer_variance(w).sum()
           for kw in ({"workload": w}, {"budget": "geometric"})]
    return float(var[0] / var[1])


def tails(runs: int, workload: bool) -> list[tuple[str, float, float]]:
    """(family, mean MRE, points in depth-1 leaves per build) of auto on the range-binned amounts at 550k,
    epsilon 1."""
    q, out = queries(), []
    for label, pts in range_binned(550_000, np.random.default_rng(550_000)):
        h = histogram(pts)
        t = truth(h, q)
        rels = [pv.build(pts, DOMAIN, "auto", 1.0, seed=100 + i, resolution=8, **({"workload": q} if workload
                                                                                   else {})) for i in range(runs)]
        out.append((label, float(np.mean([relative_error(r.answer(q), t, h.sum()).mean() for r in rels])),
                    float(np.mean([truth(h, r.tree.rect[r.tree.is_leaf & (r.tree.depth == 1)]).sum()
                                   for r in rels]))))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=8)
    a = ap.parse_args()
    shipped = plan.TOP_LEVELS
    lines = ["| floor | focused workload: variance / geometric plan's | " + " | ".join(
        f"{label}: MRE (points in depth-1 leaves)" for label, _ in range_binned(10, np.random.default_rng(0))) + " |",
             "|---|---:|---:|---:|---:|"]
    try:
        for name, top in FLOORS.items():
            plan.TOP_LEVELS = top
            cells = " | ".join(f"{m:.4f} ({d:,.0f})" for _, m, d in tails(a.runs, True))
            lines.append(f"| {name} | {focused_ratio():.3f} | {cells} |")
    finally:
        plan.TOP_LEVELS = shipped
    cells = " | ".join(f"{m:.4f} ({d:,.0f})" for _, m, d in tails(a.runs, False))
    lines.append(f"| auto without the workload | - | {cells} |")
    print(f"550,000 points, epsilon 1, resolution 8, {a.runs} runs; the DPBench protocol's 200 queries\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
