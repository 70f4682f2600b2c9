"""The build's stop floor under non-negative least squares: one noise sd (the default) against more.

A tree pruned during its build stops a node whose noisy count is at most max(m, k noise sds)
(``stop_sds`` = k, :mod:`psdviz.methods.early_stop`). With least squares the noisy leaves of an empty node
split by chance cancel in sums; with non-negative least squares their positive noise stays. This script
measures k on the data auto sends to the hybrid tree with NNLS (its corner rows): ADULT-2D placed as the
DPBench protocol places it, and the lab's four zero-inflated pairs with the atom in a corner
(``psdviz.lab.synthetic.zero_inflated``, atom and line shares as in ``bench_auto_rule.py``) at 30,000 and
300,000 points; the protocol's 200 queries, MRE mean (standard error, median) over ``--runs`` seeds, and
the geometric mean of each k over the first.

    python research/studies/study_stop_floor.py [--runs 30] [--resolution 8] [--method hybrid+nnls]
        [--epsilons 0.1 1] [--floors 1 1.5 2]

At resolution 20 auto's route is ``hybrid+nnls/256``. Readings in docs/decisions/early-stop.md.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))    # the lab the studies build on
sys.path.insert(0, str(Path(__file__).resolve().parent))                       # the other studies
from bench_auto_rule import ZERO_INFLATED, histogram
from bench_dpbench import DOMAIN, load_hist, method_spec, place, queries, truth

import psdviz as pv
from psdviz.lab.metrics import relative_error
from psdviz.lab.synthetic import zero_inflated

CORNER_PAIRS = tuple((atom, lines) for atom, lines, corner in ZERO_INFLATED if corner)   # the lab's corner families


def datasets() -> list[tuple[str, np.ndarray, np.ndarray | None]]:
    out = [("ADULT-2D", load_hist("Adult_2D_256_256"), None)]
    for n in (30_000, 300_000):
        for atom, lines in CORNER_PAIRS:
            pts = zero_inflated(n, DOMAIN, np.random.default_rng(n + int(atom * 100)), atom, lines, True)
            out.append((f"corner atom {atom}, lines {lines} ({n:,})", histogram(pts), pts))
    return out


def mre(h: np.ndarray, pts: np.ndarray | None, method: str, eps: float, floor: float, runs: int,
        resolution: int, q: np.ndarray) -> np.ndarray:
    name, extra = method_spec(method)
    t, n = truth(h, q), h.sum()
    return np.array([relative_error(pv.build(place(h, np.random.default_rng(1000 + r)) if pts is None else pts,
                                             DOMAIN, name, eps, seed=100 + r, resolution=resolution,
                                             stop_sds=floor, **extra).answer(q), t, n).mean()
                     for r in range(runs)])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--resolution", type=int, default=8)
    ap.add_argument("--method", default="hybrid+nnls")
    ap.add_argument("--epsilons", type=float, nargs="+", default=[0.1, 1.0])
    ap.add_argument("--floors", type=float, nargs="+", default=[1.0, 1.5, 2.0])
    a = ap.parse_args()
    t0, q, ratios, lines = time.time(), queries(), {f: [] for f in a.floors}, []
    for label, h, pts in datasets():
        for eps in a.epsilons:
            e = {f: mre(h, pts, a.method, eps, f, a.runs, a.resolution, q) for f in a.floors}
            for f in a.floors:
                ratios[f].append(e[f].mean() / e[a.floors[0]].mean())
            lines.append(f"| {label} | {eps:g} | " + " | ".join(
                f"{v.mean():.4f} ({v.std() / np.sqrt(v.size):.4f}, {np.median(v):.4f})" for v in e.values()) + " |")
            print(lines[-1], flush=True)
    print(f"\n{a.method}, resolution {a.resolution}, {a.runs} runs ({time.time() - t0:.0f} s): MRE mean (se, median)\n")
    print("| data | eps | " + " | ".join(f"floor {f:g} sd" for f in a.floors) + " |\n|---|---:|"
          + "---:|" * len(a.floors))
    print("\n".join(lines))
    print("\n| floor | geometric mean over the first | cells better |\n|---|---:|---:|")
    for f, v in ratios.items():
        v = np.array(v)
        print(f"| {f:g} sd | {np.exp(np.log(v).mean()):.3f} | {int((v < 1).sum())} / {v.size} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
