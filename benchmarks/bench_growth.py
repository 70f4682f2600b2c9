"""In-memory build time against the number of points ("make every method's time linear per
pass"): skewed synthetic points (lab.synthetic.skewed) at 10^5, 10^6 and 10^7 points (``--max`` for
more), quadtree / AG / PrivTree / kd-tree / hybrid with their defaults at epsilon 1, CPU seconds of the
build (process_time, best of ``--repeat``), and the CPU nanoseconds per point and pass (a pass = one
tree level, median level or PrivTree depth, counted with pv.build's progress callback). A method whose
time is linear per pass shows a flat ns-per-point-pass column as n grows.

    python benchmarks/bench_growth.py            # 10^5 .. 10^7, about 3 minutes on 2 cores
"""
from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import psdviz as pv
from psdviz.lab.synthetic import skewed

DOM = pv.Domain(0.0, 0.0, 1.0, 1.0)
METHODS = ("quadtree", "ag", "privtree", "kdtree", "hybrid")


def timed_build(points: np.ndarray, method: str, repeat: int) -> tuple[float, int]:
    """Best CPU seconds of ``repeat`` builds, and the number of passes the build reported."""
    best, passes = float("inf"), 0
    for r in range(repeat):
        seen = set()
        t0 = time.process_time()
        pv.build(points, DOM, method, 1.0, seed=r, progress=lambda d, n, w: seen.add((w, d)))
        best = min(best, time.process_time() - t0)
        passes = max(1, len({p for p in seen if not p[0].endswith(("done", "grid"))}))
    return best, passes


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max", type=int, default=7, help="largest size as a power of ten (default 7)")
    ap.add_argument("--repeat", type=int, default=2)
    a = ap.parse_args()
    rng = np.random.default_rng(17)
    sizes = [10 ** k for k in range(5, a.max + 1)]
    print(f"# {platform.processor() or platform.machine()}, Python {platform.python_version()}, numpy {np.__version__}")
    print("| method | n | CPU s | passes | ns per point and pass |")
    print("|---|---:|---:|---:|---:|")
    for n in sizes:
        pts = skewed(n, DOM, rng)
        for m in METHODS:
            sec, passes = timed_build(pts, m, a.repeat)
            print(f"| {m} | {n:,} | {sec:.2f} | {passes} | {1e9 * sec / (n * passes):.1f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
