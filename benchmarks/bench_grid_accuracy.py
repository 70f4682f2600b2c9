"""Accuracy of every method on the 1M skewed set (old vs new splits).

Mean relative error (rho = 0.001 N) of 2,000 random rectangles (5 % to 40 % of each side), over
``--runs`` seeded releases, at epsilon 0.1 and 1.0, with the default parameters. Run it on two
checkouts to compare (the script imports whichever psdviz is first on the path):

    python benchmarks/bench_grid_accuracy.py
    PYTHONPATH=/path/to/old/checkout python benchmarks/bench_grid_accuracy.py
"""
from __future__ import annotations

import argparse

import numpy as np

import psdviz as pv

try:                                   # the layered layout
    from psdviz.lab.synthetic import skewed
except ImportError:                    # checkouts before the layout change
    from psdviz.synthetic import skewed


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    dom = pv.Domain(0, 0, 1, 1)
    pts = skewed(args.n, dom, np.random.default_rng(0))
    rng = np.random.default_rng(1)
    c = rng.uniform(0, 1, (2000, 2))
    half = rng.uniform(0.025, 0.2, (2000, 2))
    rects = np.clip(np.column_stack([c - half, c + half]), 0, 1)
    truth = pv.true_answer(pts, rects)
    rho = 0.001 * args.n
    print(f"psdviz from {pv.__file__}; N = {args.n:,}, {args.runs} runs, 2,000 queries")
    print(f"{'method':14s} {'eps 0.1':>16s} {'eps 1.0':>16s}")
    for m in pv.METHODS:
        cells = []
        for eps in (0.1, 1.0):
            errs = [np.mean(np.abs(pv.build(pts, dom, m, eps, seed=s).answer(rects) - truth)
                            / np.maximum(truth, rho)) for s in range(args.runs)]
            cells.append(f"{np.mean(errs):.4f} ±{np.std(errs):.4f}")
        print(f"{m:14s} {cells[0]:>16s} {cells[1]:>16s}", flush=True)


if __name__ == "__main__":
    main()
