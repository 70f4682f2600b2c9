"""The hybrid's count levels planned for the publisher's workload, against its geometric plan, inside auto.

auto sends data with an atom in a corner to the hybrid kd-tree (NNLS, the two-sd stop). Given a workload, the
hybrid can split its counts' share of epsilon over the depths by the quadtree's plan for those queries
(``psdviz.methods.workload_budget``). This study runs auto with the workload on the corner families of
``benchmarks/bench_auto_rule.families`` (zero-inflated pairs with the atom in a corner), N = 2 x 10^4, 2 x 10^5
and 10^6, epsilon 0.1 and 1, the four workloads of ``workload_choice.py --set sparse`` (200 random rectangles,
1,000 row prefixes, 1,000 column prefixes, 1,000 squares of 4 cells on data), 3 seeds, with the hybrid given
the workload ("new") and without it ("old"; auto's workload row taken out, as in ``workload_choice.py``, so
the hybrid is the pick). Prints each cell where auto picked the hybrid, new / old, then the geometric mean and
the share of cells at or below 1, by N eps and by workload. The reading is in
docs/decisions/workload-strategy.md ("The hybrid").

    python research/studies/study_hybrid_workload.py
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "research" / "studies"))
from bench_auto_rule import families  # noqa: E402
from bench_dpbench import DOMAIN  # noqa: E402
from workload_choice import workloads  # noqa: E402

import psdviz as pv  # noqa: E402
from psdviz.lab.metrics import relative_error  # noqa: E402
from psdviz.methods import auto  # noqa: E402

auto.RULES = tuple(r for r in auto.RULES if r.method != "strategy")
auto.HYBRID_PLAN_N_EPS = 0.0          # the study measures the plan at every N eps
OLD = {"on": False}
_plans = auto.workload_unused
auto.workload_unused = lambda rule, facts: ("old" if OLD["on"] and rule.method == "hybrid"
                                            else _plans(rule, facts))


def mre(pts: np.ndarray, w: np.ndarray, truth: np.ndarray, eps: float, n: int) -> tuple[float, str]:
    errs, pick = [], ""
    for s in range(3):
        rel = pv.build(pts, DOMAIN, "auto", eps, seed=s, resolution=8, workload=w)
        errs.append(float(np.mean(relative_error(rel.answer(w), truth, n))))
        pick = rel.params["chosen"]
    return float(np.mean(errs)), pick


def main() -> int:
    res = []
    for n in (20_000, 200_000, 1_000_000):
        for label, pts in families(n, np.random.default_rng(n))[7:]:
            if "corner" not in label:
                continue
            index = pv.PointIndex(pts)
            for name, w in workloads(pts, True).items():
                w = w.astype(float)
                w[:, [2, 3]] = np.maximum(w[:, [2, 3]], w[:, [0, 1]] + 1)
                t = index.count(w)
                for eps in (0.1, 1.0):
                    OLD["on"] = True
                    old, _ = mre(pts, w, t, eps, n)
                    OLD["on"] = False
                    new, pick = mre(pts, w, t, eps, n)
                    if pick != "hybrid":
                        continue
                    res.append((n * eps, name, new / old))
                    print(f"{label} | {n} | {eps:g} | {name} | old {old:.4g} | new {new:.4g} | {new / old:.2f}",
                          flush=True)
    ne = np.array([x[0] for x in res])
    nm = np.array([x[1] for x in res])
    r = np.array([x[2] for x in res])
    print(f"all: geometric mean {np.exp(np.log(r).mean()):.2f}, at or below {(r <= 1).mean():.0%} of {r.size}")
    for key, col in (("N eps", ne), ("workload", nm)):
        for v in np.unique(col):
            sel = r[col == v]
            print(f"{key} {v}: geometric mean {np.exp(np.log(sel).mean()):.2f}, at or below {(sel <= 1).mean():.0%} "
                  f"of {sel.size}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
