"""Why the lines method loses on real data on a line: one factor at a time on a line along an edge.

The few-lines family (psdviz.lab.synthetic.few_lines) puts its lines' points on every cell along the line with a
smooth, stepped or spiky profile and spreads the rest uniformly. Real data on a line (an attribute that is zero for
most records, the other recorded in round units: bird strikes' cost x speed, weather's precipitation x temperature in
the corpus) differ in three ways, each varied here alone around the family's member that imitates a held-out file
(one line along an edge holding 92 % of 70,000 points):

- the profile along the line: "smooth" (the family's gaussian bump, every cell occupied), "heaped" (the line's points
  on 30 of its cells, weights from a Pareto law of index 1: values recorded in round units), "one cell" (one cell
  holding 80 % of the line, the rest smooth: a dominant value);
- the rest: "uniform" (the family's), "sparse" (1 % of N uniform, the rest of the off-line share put on the line's
  neighbouring row: the line's points spilling one cell over), "clustered" (a gaussian blob of 8 cells' sd);
- N eps: 7,000 and 70,000 (epsilon 0.1 and 1);

and a fourth, the layout of the lines (with heaped profiles): "four rows" holding 46, 28, 10 and 10 % of N (as a
second held-out file), or "rows and columns", the same four shares on two rows and two columns crossing them.

Scored on the DPBench protocol (200 rectangles, resolution 8, MRE with the 0.001 N floor), 3 runs a cell, the same
seeds for every method; built from the histogram's cells (benchmarks/bench_auto_validation.HistogramCells: the same
releases as the points placed in their cells). Prints a Markdown table (written beside this file as
lines_heaped.md by ``python research/studies/study_lines_heaped.py > research/studies/lines_heaped.md``).
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT))
from bench_auto_validation import DOMAIN, HistogramCells  # noqa: E402

import psdviz as pv  # noqa: E402
from psdviz.lab.dpbench import histogram_truth, protocol_queries  # noqa: E402
from psdviz.lab.metrics import relative_error  # noqa: E402

N, SHARE, RUNS = 70_000, 0.92, 3
METHODS = ("lines", "privtree", "kd-privtree", "hybrid+nnls", "quadtree", "ag")
CELLS = 256


def profile(kind: str, rng: np.random.Generator) -> np.ndarray:
    """The distribution of the line's points along it."""
    x = np.arange(CELLS)
    smooth = np.exp(-0.5 * ((x - rng.uniform(0, CELLS)) / rng.uniform(0.05, 0.4) / CELLS) ** 2) + 1e-3
    smooth /= smooth.sum()
    if kind == "smooth":
        return smooth
    if kind == "heaped":
        p = np.zeros(CELLS)
        at = rng.choice(CELLS, 30, replace=False)
        p[at] = rng.pareto(1.0, 30) + 1.0
        return p / p.sum()
    p = 0.2 * smooth
    p[rng.integers(CELLS)] += 0.8
    return p


def histogram(kind: str, rest: str, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    h = np.zeros((CELLS, CELLS))
    on = int(SHARE * N)
    h[:, 0] += rng.multinomial(on, profile(kind, rng))               # the line: the first row of cells (y = 0)
    off = N - on
    if rest == "uniform":
        np.add.at(h, tuple(rng.integers(0, CELLS, (2, off))), 1)
    elif rest == "sparse":
        few = N // 100
        np.add.at(h, tuple(rng.integers(0, CELLS, (2, few))), 1)
        h[:, 1] += rng.multinomial(off - few, profile(kind, rng))
    else:
        xy = np.clip(rng.normal([128, 128], 8, (off, 2)), 0, CELLS - 1).astype(int)
        np.add.at(h, (xy[:, 0], xy[:, 1]), 1)
    return h


def crossed(rows_only: bool, rest: str, seed: int) -> np.ndarray:
    """Four lines holding 46, 28, 10 and 10 % of N on heaped profiles: four rows, or two rows and two columns."""
    rng = np.random.default_rng(seed)
    h = np.zeros((CELLS, CELLS))
    where = rng.choice(np.arange(10, CELLS - 10), 4, replace=False)
    for share, at, k in zip((0.46, 0.28, 0.10, 0.10), where, range(4)):
        counts = rng.multinomial(int(share * N), profile("heaped", rng))
        if rows_only or k % 2 == 0:
            h[:, at] += counts
        else:
            h[at, :] += counts
    off = int(0.06 * N)
    if rest == "uniform":
        np.add.at(h, tuple(rng.integers(0, CELLS, (2, off))), 1)
    else:
        xy = np.clip(rng.normal([128, 128], 8, (off, 2)), 0, CELLS - 1).astype(int)
        np.add.at(h, (xy[:, 0], xy[:, 1]), 1)
    return h


def mre(h: np.ndarray, label: str, eps: float, q: np.ndarray, t: np.ndarray) -> float:
    method, kw = (label.split("+")[0], {"nonnegative": True, "stop_sds": 2.0}) if "+nnls" in label else (label, {})
    errs = [np.mean(relative_error(pv.build(HistogramCells(h), DOMAIN, method, eps, seed=10_000 * r + int(eps * 10),
                                            resolution=8, **kw).answer(q), t, h.sum())) for r in range(RUNS)]
    return float(np.mean(errs))


def main() -> None:
    q = protocol_queries()
    print("| profile along the line | rest | eps | " + " | ".join(METHODS) + " | lines / best other |")
    print("|---|---|---:|" + "---:|" * len(METHODS) + "---:|")
    for k, kind in enumerate(("smooth", "heaped", "one cell")):
        for rest in ("uniform", "sparse", "clustered"):
            h = histogram(kind, rest, 50 + k)
            t = histogram_truth(h, q)
            for eps in (0.1, 1.0):
                got = {m: mre(h, m, eps, q, t) for m in METHODS}
                best = min(v for m, v in got.items() if m != "lines")
                cells = " | ".join(f"{got[m]:.4f}" for m in METHODS)
                print(f"| {kind} | {rest} | {eps:g} | {cells} | {got['lines'] / best:.2f} |", flush=True)
    for k, (layout, rows_only) in enumerate((("four rows", True), ("rows and columns", False))):
        for rest in ("uniform", "clustered"):
            h = crossed(rows_only, rest, 70 + k)
            t = histogram_truth(h, q)
            for eps in (0.1, 1.0):
                got = {m: mre(h, m, eps, q, t) for m in METHODS}
                best = min(v for m, v in got.items() if m != "lines")
                cells = " | ".join(f"{got[m]:.4f}" for m in METHODS)
                print(f"| {layout}, heaped | {rest} | {eps:g} | {cells} | {got['lines'] / best:.2f} |", flush=True)


if __name__ == "__main__":
    main()
