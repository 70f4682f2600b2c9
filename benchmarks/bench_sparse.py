"""Benchmark of psdviz.sparse: shortcut summaries are O(n + k), independent of m.

1. m = 10^7 and m = 10^9 cells, n = 10^6 non-zero (counts ~ N(100, 20)), epsilon = 0.1: time of
   a two-sided filter summary of about n entries (theta for ~0.1 n upgraded zeros), and of the
   other shortcut summaries with a summary size of n.
2. Throughput (non-zero entries processed per second) against density like ICDT'12 Figure 4:
   m = 10^7 fixed, density 10^-1, 10^-2, 10^-3, summary size s = n; the full geometric mechanism
   (laborious, materialises all m cells) for comparison.

Prints its figures (best of a few repeats; the machine is shared, so these are pessimistic).
Run: python benchmarks/bench_sparse.py [--quick]
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from psdviz.sparse import make_table, summarize

EPS = 0.1


def synthetic(m: int, n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    idx = np.sort(rng.choice(m, n, replace=False))
    cnt = np.maximum(1, np.rint(rng.normal(100, 20, n))).astype(np.int64)
    return make_table(idx, cnt, m)


def best_time(fn, repeats: int) -> tuple[float, object]:
    best, out = np.inf, None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def part_one(repeats: int) -> None:
    n = 10 ** 6
    print(f"## Summary time vs m (n = {n:,} non-zero counts ~ N(100, 20), best of {repeats}; "
          "filter: theta for ~0.1 n upgraded zeros)\n")
    print("| m | epsilon | method | parameters | summary size | seconds |")
    print("|---|---|---|---|---|---|")
    for m in (10 ** 7, 10 ** 9):
        table = synthetic(m, n)
        runs = [(EPS, "filter", dict(target_size=n // 10, stats="public")),
                (1.0, "filter", dict(target_size=n // 10, stats="public")),
                (EPS, "threshold", dict(target_size=n, stats="public")),
                (EPS, "priority", dict(size=n)),
                (EPS, "filter-priority", dict(theta=40, size=n))]
        for eps, method, kw in runs:
            sec, rel = best_time(lambda: summarize(table, method, eps, seed=1, **kw), repeats)
            shown = {k: v for k, v in rel.params.items() if k in ("theta", "tau", "size", "tau_s")}
            shown = {k: (round(v, 1) if isinstance(v, float) else v) for k, v in shown.items()}
            print(f"| 10^{int(np.log10(m))} | {eps:g} | {method} | {shown} | {rel.size:,} | {sec:.3f} |")
    print()


def part_two(repeats: int, m: int) -> None:
    print(f"## Throughput vs density (m = {m:,}, summary size s = n, epsilon = {EPS}; "
          "non-zero entries per second, like ICDT'12 Figure 4)\n")
    methods = [("geometric", {}), ("filter", dict(target_size=None, stats="public")),
               ("threshold", dict(stats="public")), ("priority", dict(stats="public")),
               ("filter-priority", dict(theta=40, stats="public"))]
    print("| density | n | " + " | ".join(mm for mm, _ in methods) + " |")
    print("|---|---|" + "---|" * len(methods))
    for rho in (1e-1, 1e-2, 1e-3):
        n = int(m * rho)
        table = synthetic(m, n, seed=2)
        cells = []
        for method, kw in methods:
            kw = {k: v for k, v in kw.items() if v is not None}
            sec, _ = best_time(lambda: summarize(table, method, EPS, seed=1, **kw), repeats)
            cells.append(f"{n / sec:,.0f}")
        print(f"| {rho:g} | {n:,} | " + " | ".join(cells) + " |")
    print()


if __name__ == "__main__":
    quick = "--quick" in sys.argv
    part_one(1 if quick else 3)
    part_two(1 if quick else 2, 10 ** 6 if quick else 10 ** 7)
