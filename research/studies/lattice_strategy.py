"""The strategy measured on the weight lattice against the paper's real strategy with Laplace noise: the exact
expected total variance of each workload of bench_strategy (the DPBench files' test rectangles, squares and row
prefixes) under both, at epsilon 1 (both scale as 1 / epsilon^2). Deterministic: no data, no noise drawn.

    python research/studies/lattice_strategy.py        # writes research/studies/lattice_strategy.md
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_dpbench import FILES, load_hist, queries  # noqa: E402
from bench_strategy import prefix, squares  # noqa: E402

from psdviz.core.noise import laplace_variance  # noqa: E402
from psdviz.inference.pidentity import KronVariance  # noqa: E402
from psdviz.methods import strategy  # noqa: E402

EDGES = np.linspace(0, 256, 257)


def totals(w: np.ndarray) -> tuple[float, float]:
    """(paper: real weights, Laplace 2 / eps^2; measured: lattice weights, geometric noise) summed over w."""
    ax, ay = strategy.plan_axes(EDGES, EDGES, w)
    paper = KronVariance(ax, ay, EDGES, EDGES, float(laplace_variance(1.0))).rectangles(w).sum()
    lattice = strategy.plan_strategy(None, EDGES, EDGES, w).variances(1.0).rectangles(w).sum()
    return float(paper), float(lattice)


def main() -> None:
    rows = ["| workload | file | paper's total variance | on the lattice | ratio |", "|---|---|---:|---:|---:|"]
    worst = 0.0
    for name in FILES:
        hist = load_hist(name)
        for label, w in (("test", queries()), ("squares", squares(hist)), ("prefix", prefix())):
            if label != "squares" and name != FILES[0]:
                continue                      # the same queries on every file: once
            paper, lattice = totals(w)
            worst = max(worst, lattice / paper)
            rows.append(f"| {label} | {name if label == 'squares' else 'all'} | {paper:.6g} | {lattice:.6g} | "
                        f"{lattice / paper:.5f} |")
    text = "\n".join(["# The strategy on the weight lattice", "", __doc__.strip().split("\n\n")[0], "",
                      *rows, "", f"Largest ratio: {worst:.5f}.", ""])
    (Path(__file__).with_suffix(".md")).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
