"""Long thin queries: where the workload strategy beats auto's other rows, by N eps and spread.

Reads the two tables of ``workload_choice.py`` (the synthetic families, ``research/studies/workload_choice.md``,
and the sparse ones, ``workload_choice_sparse.md``: one run each, strategy MRE over the MRE of the pick of
auto's other rows, planned where the pick plans), keeps the row and column prefixes (queries one cell tall or
wide), computes each member's spread exactly (occupied cells of the 256 x 256 grid over the cells an even spread
of N points would occupy; auto reads it noisily, with a noise below 0.03 at the N eps below), and prints every
cell from N eps = 10^5 with the ratio, then the cells a rule "spread >= S and N eps >= T" sends to the strategy:
their geometric mean ratio, how many the strategy wins, the worst, and what the rule leaves. The reading is in
docs/decisions/workload-strategy.md ("Long thin queries").

    python research/studies/workload_thin.py [--spread 0.3] [--n-eps 2e5]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "research" / "studies"))
from bench_auto_rule import families, histogram, spread  # noqa: E402
from ratios import summary  # noqa: E402
from workload_choice import sparse_sets  # noqa: E402

HERE = Path(__file__).parent


def prefix_cells() -> dict[tuple[str, int, float], list[tuple[str, str, float]]]:
    out: dict[tuple[str, int, float], list[tuple[str, str, float]]] = {}
    for name in ("workload_choice.md", "workload_choice_sparse.md"):
        for line in (HERE / name).read_text().splitlines():
            x = [c.strip() for c in line.split("|")]
            if len(x) > 10 and x[2].isdigit() and "prefixes" in x[4]:
                out.setdefault((x[1], int(x[2]), float(x[3])), []).append((x[4], x[7], float(x[10])))
    return out


def spreads() -> dict[tuple[str, int], float]:
    out = {}
    for n in (20_000, 200_000, 2_000_000):
        for label, pts in families(n, np.random.default_rng(n))[:7]:
            out[(label, n)] = spread(histogram(pts))
    for n in (20_000, 200_000, 1_000_000):
        for label, pts in sparse_sets(n):
            out[(label, n)] = spread(histogram(pts))
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--spread", type=float, default=0.3)
    ap.add_argument("--n-eps", type=float, default=2e5)
    args = ap.parse_args()
    sp = spreads()
    rows = sorted((n * eps, sp[(label, n)], r, label, wl, pick)
                  for (label, n, eps), cells in prefix_cells().items() for wl, pick, r in cells)
    for ne, s, r, label, wl, pick in rows:
        if ne >= 1e5:
            print(f"N eps {ne:>9g} | spread {s:.3f} | strategy / pick {r:5.2f} | {pick} | {label} | {wl}")
    fires = np.array([r for ne, s, r, *_ in rows if ne >= args.n_eps and s >= args.spread])
    left = np.array([r for ne, s, r, *_ in rows if not (ne >= args.n_eps and s >= args.spread)])
    print(f"rule spread >= {args.spread:g}, N eps >= {args.n_eps:g}: sent {summary(fires)}; {left.size} left to the "
          f"pick, the strategy better in {(left < 1).sum()} of them")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
