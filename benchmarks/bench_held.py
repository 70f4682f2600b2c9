"""The in-memory part of every build where grouping cannot help: each method on the held cells of the worst
case's Gaussian file (bench_scale --worst), after the pass into the cells, in CPU seconds (the process's, so
that a shared machine's load moves it less than wall time) and peak memory, each method in a fresh process.

The cells are read once per resolution through DuckDB and kept under benchmarks/.data/gauss/ (an .npz file),
so that two versions of the engine can be timed on the very same cells, alternately:

    python benchmarks/bench_held.py --resolutions 16 20                      # this checkout
    python benchmarks/bench_held.py --against /path/to/other/checkout        # both, method by method

Prints a table (the figures behind docs/decisions/one-sort.md's before and after).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "benchmarks" / ".data" / "gauss"


def cells_file(rows: int, resolution: int) -> Path:
    """The occupied cells of gauss-<rows>.parquet at ``resolution`` with their counts (read once, kept)."""
    out = DATA / f"cells-{rows}-r{resolution}.npz"
    if not out.exists():
        sys.path.insert(0, str(ROOT / "benchmarks"))
        import bench_scale

        import psdviz as pv
        from psdviz.sources.files import DuckDBSource
        path = bench_scale.write_gaussian(DATA, rows)
        src = DuckDBSource([str(path)], pv.Domain(0.0, 0.0, 1.0, 1.0), lon="lon", lat="lat", resolution=resolution)
        keys, cnt = src.cells_at_most(None)
        np.savez(out, keys=keys, cnt=cnt, n=src.n_input)
    return out


def run_one(method: str, cells: Path, resolution: int, epsilon: float) -> dict:
    """In this (fresh) process, with whichever psdviz is first on the path: the build on the held cells."""
    from types import SimpleNamespace

    import psdviz as pv
    from psdviz.core.cells import CellTable
    from psdviz.core.grid import Grid
    from psdviz.core.rng import make_randomness
    from psdviz.methods.registry import get_builder
    dom = pv.Domain(0.0, 0.0, 1.0, 1.0)
    z = np.load(cells)
    n = int(z["n"])
    source = SimpleNamespace(grid=Grid(dom, resolution), n_input=n, n_nonfinite=0, n_outside=0, outside="drop",
                             nonfinite="error", close=lambda: None,
                             report=lambda: {"rows_in": n, "rows_nonfinite_dropped": 0, "rows_outside_domain": 0,
                                             "outside_rows": "dropped", "rows_used": n, "nonfinite_rows": "refused"})
    table = CellTable(source, z["keys"], z["cnt"])
    t0, w0 = time.process_time(), time.perf_counter()
    get_builder(method)(table, dom, epsilon, make_randomness(1))
    cpu, wall = time.process_time() - t0, time.perf_counter() - w0
    status = Path("/proc/self/status").read_text().splitlines()
    peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM")) / 1024
    return {"cpu": cpu, "wall": wall, "peak_mb": peak, "cells": table.n_cells, "engine": pv.__file__}


def measure(method: str, cells: Path, resolution: int, epsilon: float, engine: str | None) -> dict:
    env = dict(os.environ)
    if engine:
        env["PYTHONPATH"] = engine
    cmd = [sys.executable, __file__, "--one", method, "--cells", str(cells), "--resolutions", str(resolution),
           "--epsilon", str(epsilon)]
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd="/" if engine else ROOT)
    if done.returncode:
        return {"error": (done.stderr.strip().splitlines() or ["no message"])[-1][:200]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    sys.path.insert(0, str(ROOT))       # this checkout's engine here; a --one process takes its PYTHONPATH's
    import psdviz as pv
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--resolutions", nargs="+", type=int, default=[16, 20])
    ap.add_argument("--epsilon", type=float, default=0.1)
    ap.add_argument("--methods", nargs="+", default=list(pv.METHODS))
    ap.add_argument("--against", default=None, help="another checkout's root: its engine timed first, alternately")
    a = ap.parse_args()
    engines = ([("other", str(Path(a.against).resolve()))] if a.against else []) + [("this", str(ROOT))]
    cols = " | ".join(f"{name} CPU s | {name} peak MB" for name, _ in engines)
    head = f"| resolution | method | {cols} | load |"
    print(head + "\n|" + "---|" * (3 + 2 * len(engines)))
    for resolution in a.resolutions:
        cells = cells_file(a.rows, resolution)
        for m in a.methods:
            got = [measure(m, cells, resolution, a.epsilon, path) for _, path in engines]
            cols = " | ".join("failed" if "error" in r else f"{r['cpu']:.2f} | {r['peak_mb']:.0f}" for r in got)
            print(f"| {resolution} | {m} | {cols} | {os.getloadavg()[0]:.1f} |", flush=True)
    return 0


if __name__ == "__main__":
    if "--one" in sys.argv:       # a measurement: the engine is the one PYTHONPATH names
        one = argparse.ArgumentParser()
        for flag in ("--one", "--cells"):
            one.add_argument(flag)
        one.add_argument("--resolutions", nargs="+", type=int)
        one.add_argument("--epsilon", type=float)
        b = one.parse_args()
        print(json.dumps(run_one(b.one, Path(b.cells), b.resolutions[0], b.epsilon)))
        sys.exit(0)
    sys.exit(main())
