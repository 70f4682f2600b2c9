"""Core engine benchmark: prints a table of timings.

1,000,000 skewed points (psdviz.lab.synthetic.skewed: 10 tight gaussian clusters + 5% uniform) on the
unit square. Targets: quadtree h = 10 (1,398,101 nodes) build + noise + OLS <= 1.0 s; UG <= 0.5 s;
10,000 queries <= 0.5 s on either. Each figure is the median of ``--repeats`` runs (default 3).
Query rectangles: random corners (uniform side lengths in (0, 0.5] of the domain). Run:

    python benchmarks/bench_core.py [--points 1000000] [--repeats 3]
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))   # run from a checkout without install
import psdviz as pv
from psdviz.lab.synthetic import skewed
from psdviz.query.truth import PointIndex

DOM = pv.Domain(0.0, 0.0, 1.0, 1.0)


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def timed(fn, repeats: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def queries(k: int, rng: np.random.Generator) -> np.ndarray:
    w = rng.uniform(0.001, 0.5, (k, 2))
    x0 = rng.uniform(0, 1 - w[:, 0])
    y0 = rng.uniform(0, 1 - w[:, 1])
    return np.column_stack([x0, y0, x0 + w[:, 0], y0 + w[:, 1]])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", type=int, default=1_000_000)
    ap.add_argument("--queries", type=int, default=10_000)
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    rng = np.random.default_rng(0)
    pts = skewed(a.points, DOM, rng)
    q = queries(a.queries, rng)
    rows = []

    def add(what: str, seconds: float, target: float | None, note: str = "") -> None:
        ok = "" if target is None else ("yes" if seconds <= target else "NO")
        rows.append((what, seconds, "" if target is None else f"<= {target:g} s", ok, note))

    t, qt = timed(lambda: pv.build(pts, DOM, "quadtree", 0.5, seed=1, height=10, prune=None), a.repeats)
    add("quadtree h=10 build+noise+OLS", t, 1.0, f"{qt.tree.n_nodes:,} nodes, geometric budget")
    t, _ = timed(lambda: qt.answer(q), a.repeats)
    add(f"quadtree {a.queries:,} queries", t, 0.5, "consistent: prefix sums over leaves")
    raw = pv.build(pts, DOM, "quadtree", 0.5, seed=1, height=10, postprocess=False, budget="uniform", prune=None)
    t, _ = timed(lambda: raw.answer(q), a.repeats)
    add(f"quad-baseline {a.queries:,} queries", t, 0.5, "no OLS: canonical levels via prefix sums")
    t, pr = timed(lambda: pv.build(pts, DOM, "quadtree", 0.5, seed=1, height=10, prune=50.0), a.repeats)
    add("quadtree h=10 + OLS + prune(50)", t, None, f"{pr.tree.n_nodes:,} nodes kept")
    t, _ = timed(lambda: pr.answer(q), a.repeats)
    add(f"pruned quadtree {a.queries:,} queries", t, None, "generic canonical traversal")
    t, ug = timed(lambda: pv.build(pts, DOM, "ug", 0.5, seed=1), a.repeats)
    add("UG build (N estimated)", t, 0.5, f"{ug.params['grid_size']} x {ug.params['grid_size']} cells")
    t, _ = timed(lambda: ug.answer(q), a.repeats)
    add(f"UG {a.queries:,} queries", t, 0.5, "")
    t, idx = timed(lambda: PointIndex(pts), a.repeats)
    add("true_answer: PointIndex build", t, None, f"{idx.b} x {idx.b} buckets")
    t, _ = timed(lambda: idx.count(q), a.repeats)
    add(f"true_answer: {a.queries:,} queries", t, None, "exact, closed rectangles")
    t, _ = timed(lambda: pv.true_answer(pts, q), 1)
    add(f"pv.true_answer (index + {a.queries:,})", t, None, "one call, index included")

    print(f"psdviz core benchmark: {a.points:,} skewed points, median of {a.repeats} runs")
    print(f"machine: {os.cpu_count()} CPUs (nproc), {cpu_model()}, Python {platform.python_version()}, "
          f"numpy {np.__version__}")
    print("(the dev machine's 2 cores are shared with other jobs, so timings are pessimistic)\n")
    print(f"| {'step':<36} | {'seconds':>8} | {'target':<9} | {'met':<3} | note")
    print(f"|{'-' * 38}|{'-' * 10}|{'-' * 11}|{'-' * 5}|{'-' * 40}")
    for what, s, tgt, ok, note in rows:
        print(f"| {what:<36} | {s:8.3f} | {tgt:<9} | {ok:<3} | {note}")


if __name__ == "__main__":
    main()
