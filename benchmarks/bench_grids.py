"""Benchmark of AG, h-tree (and variants) and PrivTree on 1,000,000 skewed points; 10,000 queries.

Targets (2-core machine): build AG <= 0.5 s, htree <= 2 s, privtree <= 2 s;
10,000 queries <= 0.5 s (ht-composite and ht-hybrid: well under 1 s). Prints wall-clock seconds
(best of ``REPEATS``) and the load average, since the machine is shared.
"""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))   # run from a checkout

import psdviz as pv
from psdviz.lab import synthetic
from psdviz.lab.workloads import shape_queries

REPEATS = 2
CASES = [("ag", {}), ("htree", {}), ("privtree", {}), ("htree", {"variant": "composite"}),
         ("htree", {"variant": "hybrid"})]


def best(fn, repeats=REPEATS):
    out, times = None, []
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return out, min(times)


def main() -> None:
    dom = pv.Domain(0, 0, 1, 1)
    rng = np.random.default_rng(0)
    pts = synthetic.skewed(1_000_000, dom, rng)
    q = np.vstack([shape_queries(dom, w, w, 2500, rng) for w in (0.01, 0.05, 0.2, 0.5)])
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; best of {REPEATS}")
    print(f"{'method':<20}{'build s':>10}{'10k queries s':>16}{'leaves':>10}")
    for method, kw in CASES:
        rel, tb = best(lambda: pv.build(pts, dom, method=method, epsilon=1.0, seed=1, **kw))
        _, tq = best(lambda: rel.answer(q))
        label = method + (f" ({kw['variant']})" if kw else "")
        print(f"{label:<20}{tb:>10.2f}{tq:>16.2f}{int(rel.tree.is_leaf.sum()):>10}")


if __name__ == "__main__":
    main()
