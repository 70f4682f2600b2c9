"""Small queries: where the workload strategy beats auto's other rows, by the noise scales of points per cell.

Reads the three tables of ``workload_choice.py`` (the Gaussian families ``workload_choice.md``, the sparse ones
``workload_choice_sparse.md`` and the fine-structured ones ``workload_choice_lumpy.md``: one run each, strategy
MRE over the MRE of the pick of auto's other rows, planned where the pick plans), keeps the squares (small
queries), and prints, per band of the points per touched cell x epsilon (the fact the small-queries row reads,
exact here) and per table: the cells, how many the strategy wins, the geometric mean ratio and the worst; then
what a threshold T sends over all three tables. The reading is in docs/decisions/workload-strategy.md.

    python research/studies/workload_snr.py
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
from ratios import summary

HERE = Path(__file__).parent
TABLES = ("workload_choice.md", "workload_choice_sparse.md", "workload_choice_lumpy.md")
BANDS = ((20, np.inf), (10, 20), (5, 10), (3, 5), (2, 3), (1, 2), (0, 1))


def square_cells() -> list[tuple[str, float, float]]:
    """(table, points per touched cell x eps, strategy / pick) of every squares row."""
    out = []
    for name in TABLES:
        for line in (HERE / name).read_text().splitlines():
            x = [c.strip() for c in line.split("|")]
            if len(x) > 10 and x[2].isdigit() and x[4].startswith("squares"):
                out.append((name, float(x[6]), float(x[10])))
    return out


def main() -> int:
    cells = square_cells()
    for lo, hi in BANDS:
        for name in TABLES:
            r = np.array([c[2] for c in cells if c[0] == name and lo <= c[1] < hi])
            print(f"points per cell x eps in [{lo:g}, {hi:g}) | {name:26s} | {summary(r)}")
    for t in (20, 10, 5, 3, 2):
        sent = np.array([c[2] for c in cells if c[1] >= t])
        left = np.array([c[2] for c in cells if c[1] < t])
        print(f"threshold {t:g}: sent {summary(sent)}; left {left.size}, the strategy better in {(left < 1).sum()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
