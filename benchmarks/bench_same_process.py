"""Two versions of the engine on the very same held cells, alternately in one process: CPU seconds (the
process's) and wall seconds of each build, with the load average, and whether the releases are identical.

The cells are those of the worst case's Gaussian (bench_scale --worst: sd 0.15 about the centre of the unit
square, the same seeds as its file) at ``--resolution``, grouped in memory, so no file or DuckDB is needed:

    git worktree add /tmp/before <commit>        # or: git archive <commit> psdviz | tar -x -C /tmp/before
    python benchmarks/bench_same_process.py --against /tmp/before --rows 1000000 10000000 --methods kdtree hilbert

Each method is built ``--reps`` times by each version, the order of the two versions alternating; a line
gives the minimum and median CPU seconds of each (the machine is shared: CPU seconds move less with the load
than wall seconds, and the two versions ran at about the same load).
"""
from __future__ import annotations

import argparse
import hashlib
import os
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_scale import PER_FILE, gaussian  # noqa: E402


def gaussian_cells(rows: int, resolution: int) -> tuple[np.ndarray, np.ndarray]:
    """The occupied cells (kx, ky), sorted by (ky, kx), and their counts of bench_scale's Gaussian rows."""
    codes = []
    for i, start in enumerate(range(0, rows, PER_FILE)):
        xy = gaussian(min(PER_FILE, rows - start), np.random.default_rng(2000 + i))
        k = np.minimum((xy * (1 << resolution)).astype(np.int64), (1 << resolution) - 1)
        codes.append((k[:, 1] << resolution) | k[:, 0])
    u, c = np.unique(np.concatenate(codes), return_counts=True)
    return np.column_stack([u & ((1 << resolution) - 1), u >> resolution]), c


def engine(path: str):
    """The psdviz package under ``path`` imported afresh (the other version's modules dropped first)."""
    for name in [k for k in sys.modules if k == "psdviz" or k.startswith("psdviz.")]:
        del sys.modules[name]
    sys.path.insert(0, path)
    try:
        import psdviz
    finally:
        sys.path.remove(path)
    assert Path(psdviz.__file__).resolve().is_relative_to(Path(path).resolve()), psdviz.__file__
    return psdviz


def build(path: str, method: str, keys: np.ndarray, cnt: np.ndarray, rows: int, resolution: int,
          epsilon: float) -> tuple[float, float, str]:
    """CPU and wall seconds of one build by the engine under ``path`` on the held cells, and a digest of its tree."""
    pv = engine(path)
    from psdviz.core.cells import CellTable
    from psdviz.core.grid import Grid
    from psdviz.core.rng import make_randomness
    from psdviz.methods.registry import get_builder
    dom = pv.Domain(0.0, 0.0, 1.0, 1.0)
    report = {"rows_in": rows, "rows_nonfinite_dropped": 0, "rows_outside_domain": 0, "outside_rows": "dropped",
              "rows_used": rows, "nonfinite_rows": "refused"}
    source = SimpleNamespace(grid=Grid(dom, resolution), n_input=rows, n_nonfinite=0, n_outside=0, outside="drop",
                             nonfinite="error", close=lambda: None, report=lambda: report)
    table = CellTable(source, keys, cnt)
    t0, w0 = time.process_time(), time.perf_counter()
    rel = get_builder(method)(table, dom, epsilon, make_randomness(1))
    cpu, wall = time.process_time() - t0, time.perf_counter() - w0
    digest = hashlib.sha256()
    for name in ("rect", "noisy", "estimate", "depth"):
        value = getattr(rel.tree, name, None)
        if value is not None:
            digest.update(np.ascontiguousarray(value).tobytes())
    return cpu, wall, digest.hexdigest()[:16]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--against", required=True, help="the other version's root (holding its psdviz package)")
    ap.add_argument("--rows", nargs="+", type=int, default=[1_000_000, 10_000_000])
    ap.add_argument("--resolution", type=int, default=16)
    ap.add_argument("--methods", nargs="+", default=["kdtree", "kd-noisymean", "kd-privtree", "hybrid", "hilbert"])
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--epsilon", type=float, default=0.1)
    a = ap.parse_args()
    versions = {"before": str(Path(a.against).resolve()), "after": str(ROOT)}
    print("| rows | cells | method | before CPU s (min / median) | after CPU s (min / median) | after / before "
          "| wall s before / after (min) | load | identical |\n|" + "---|" * 9, flush=True)
    for rows in a.rows:
        keys, cnt = gaussian_cells(rows, a.resolution)
        for m in a.methods:
            got: dict[str, list] = {v: [] for v in versions}
            loads = []
            for r in range(a.reps):
                for v in (("before", "after") if r % 2 == 0 else ("after", "before")):
                    loads.append(os.getloadavg()[0])
                    got[v].append(build(versions[v], m, keys, cnt, rows, a.resolution, a.epsilon))
            cpu = {v: sorted(x[0] for x in got[v]) for v in versions}
            wall = {v: min(x[1] for x in got[v]) for v in versions}
            same = len({x[2] for v in versions for x in got[v]}) == 1
            med = {v: cpu[v][len(cpu[v]) // 2] for v in versions}
            print(f"| {rows:,} | {cnt.size:,} | {m} | {cpu['before'][0]:.2f} / {med['before']:.2f} | "
                  f"{cpu['after'][0]:.2f} / {med['after']:.2f} | {cpu['after'][0] / cpu['before'][0]:.2f} | "
                  f"{wall['before']:.2f} / {wall['after']:.2f} | {min(loads):.1f}-{max(loads):.1f} | "
                  f"{'yes' if same else '**no**'} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
