"""Benchmark of the data-dependent PSDs on 1,000,000 skewed points.

Prints build time (structure + noise + post-processing + pruning) per method and the time of
10,000 random queries on each release. Targets: kdtree (8 fanout-4 levels) <= 3 s,
hybrid <= 2 s, hilbert <= 4 s, 10,000 queries <= 0.5 s. Timings depend on the machine's load.
Run: python benchmarks/bench_kd.py [n_points]
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import psdviz as pv
from psdviz.lab.synthetic import skewed

METHODS = ("kdtree", "hybrid", "hilbert", "kd-cell", "kd-noisymean", "kd-true", "kd-pure")


def random_rects(rng: np.random.Generator, dom: pv.Domain, k: int) -> np.ndarray:
    c = rng.uniform([dom.xmin, dom.ymin], [dom.xmax, dom.ymax], (k, 2))
    half = rng.uniform(0.005, 0.2, (k, 2)) * [dom.width, dom.height]
    return np.column_stack([c - half, c + half])


def best_of(fn, repeat: int = 3) -> tuple[float, float]:
    """Best wall-clock and best CPU time (process_time) of ``repeat`` runs. On a shared machine
    the CPU time is the better estimate of the unloaded wall-clock time (numpy runs one thread)."""
    wall, cpu = [], []
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    return min(wall), min(cpu)


def main(n: int = 1_000_000) -> None:
    dom = pv.Domain(0, 0, 1, 1)
    rng = np.random.default_rng(0)
    xy = skewed(n, dom, rng)
    rects = random_rects(rng, dom, 10_000)
    print(f"{n:,} skewed points, epsilon 0.5, defaults (height 8, prune 32); best of 3")
    print(f"{'method':<14}{'build wall s':>13}{'build cpu s':>12}{'nodes':>9}{'10k q wall s':>13}{'10k q cpu s':>12}")
    for m in METHODS:
        rel = None

        def build():
            nonlocal rel
            rel = pv.build(xy, dom, m, 0.5, seed=1)
        tb = best_of(build)
        tq = best_of(lambda: rel.answer(rects))
        print(f"{m:<14}{tb[0]:>13.2f}{tb[1]:>12.2f}{rel.tree.n_nodes:>9,}{tq[0]:>13.3f}{tq[1]:>12.3f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000)
