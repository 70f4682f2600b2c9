"""Long thin queries between the rough row and the fine row: N eps in [10^5, 10^6), where no workload row read the
structure across the queries. Which cells would the strategy win there, read by the excess variation across the
queries, the spread and the fullest row or column of cells?

From the family tables the workload studies measured (``workload_choice*.md``: N eps 10^5 and 2 x 10^5;
``workload_fine.md``: 5 x 10^5; each row and column prefix cell, the pick of the other rows given the workload
against the strategy, one run), each member's spread, excess variation and fullest line computed exactly (auto
reads them noisily: lower bounds three noise scales down, the line three up); what rules "excess >= F, spread >=
0.02, fullest line <= L" send to the strategy. Tuning part only (the lab's families). The reading is in
docs/decisions/workload-strategy.md ("Between the rough and the fine rows").

    python research/studies/workload_fine_mid.py > research/studies/workload_fine_mid.md
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from ratios import summary  # noqa: E402
from workload_fine import TABLES, excess_share, histogram, members  # noqa: E402


def line_share(h: np.ndarray) -> float:
    """The fullest row or column of cells' share of N."""
    return float(max(h.sum(axis=0).max(), h.sum(axis=1).max()) / h.sum())


def cells(lo: float = 1e5, hi: float = 1e6) -> dict[tuple[str, int, float, str], tuple[float, float, float, float]]:
    """(member, N, eps, workload) -> (spread, excess / N, fullest line / N, strategy / pick) of every prefix cell
    with N eps in [lo, hi) in the tables (a cell in two tables: the later)."""
    from bench_auto_rule import spread
    hist: dict[tuple[str, int], np.ndarray] = {}
    out = {}
    for name in (*TABLES, "workload_fine.md"):
        for line in (HERE / name).read_text().splitlines():
            x = [c.strip() for c in line.split("|")]
            if len(x) > 10 and x[2].isdigit() and "prefixes" in x[4] and lo <= int(x[2]) * float(x[3]) < hi:
                n = int(x[2])
                if (x[1], n) not in hist:
                    hist.update({(label, n): histogram(pts) for label, pts in members(n)})
                h = hist[(x[1], n)]
                out[(x[1], n, float(x[3]), x[4])] = (spread(h), excess_share(h, x[4]), line_share(h), float(x[-2]))
    return out


def main() -> int:
    table = cells()
    print("| N eps | member | workload | spread | excess / N | fullest line / N | strategy / pick |")
    print("|---:|---|---|---:|---:|---:|---:|")
    for (label, n, eps, wl), (s, f, ln, r) in sorted(table.items(), key=lambda kv: (kv[0][1] * kv[0][2], kv[1][3])):
        print(f"| {n * eps:.3g} | {label} | {wl} | {s:.3f} | {f:.3f} | {ln:.3f} | {r:.2f} |")
    print()
    print("| rule (N eps in [10^5, 10^6)) | sent to the strategy | left (the strategy better in) |")
    print("|---|---|---:|")
    for f_min in (0.1, 0.15, 0.3, 0.6):
        for line_max in (0.2, 0.25, 0.3, 1.0):
            rule = f"excess >= {f_min:g}, spread >= 0.02" + (f", line <= {line_max:g}" if line_max < 1 else "")
            hit = {k: v for k, v in table.items() if v[1] >= f_min and v[0] >= 0.02 and v[2] <= line_max}
            sent = np.array([v[3] for v in hit.values()])
            left = np.array([v[3] for k, v in table.items() if k not in hit])
            print(f"| {rule} | {summary(sent)} | {left.size} ({(left < 1).sum()}) |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
