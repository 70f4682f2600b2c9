"""Long thin queries over structure finer than two cells: where the workload strategy beats auto's other rows, read
by N eps, the spread and the excess variation across the queries (``psdviz.methods.fine_structure``).

``run``: the three family sets (Gaussian, sparse, fine-structured: ``workload_choice.py``'s) at N = 5 x 10^5 and
10^6, epsilon 1, 1,000 row prefixes and their transpose; auto's pick by its other rows (the strategy rows taken
out) given the workload where it plans for one, and the strategy; one run each, MRE with floor 0.001 N.

Without ``run``: that table (``workload_fine.md``) with the prefix rows of the three ``workload_choice`` tables
from N eps = 2 x 10^5 (each member's spread and excess variation computed exactly; auto reads them noisily, with a
lower bound three noise scales down), and what a rule "excess >= F, spread >= S, N eps >= T" sends to the
strategy. The reading is in docs/decisions/workload-strategy.md ("Fine structure across thin queries").

    python research/studies/workload_fine.py run > research/studies/workload_fine.md
    python research/studies/workload_fine.py
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).parent
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(HERE))
from bench_auto_rule import families, histogram, spread  # noqa: E402
from bench_dpbench import DOMAIN  # noqa: E402
from lumpy_families import lumpy_sets  # noqa: E402
from ratios import summary  # noqa: E402
from workload_choice import row_prefixes, sparse_sets  # noqa: E402

import psdviz as pv  # noqa: E402
from psdviz.lab.metrics import relative_error  # noqa: E402
from psdviz.methods import auto  # noqa: E402
from psdviz.methods.fine_structure import excess_variation  # noqa: E402

TABLES = ("workload_choice.md", "workload_choice_sparse.md", "workload_choice_lumpy.md")


def members(n: int) -> list[tuple[str, np.ndarray]]:
    return families(n, np.random.default_rng(n))[:7] + sparse_sets(n) + lumpy_sets(n)


def excess_share(h: np.ndarray, workload: str) -> float:
    """Excess variation across the queries over N, on the grid's rows [y, x] (``h`` is [x, y])."""
    return excess_variation(h.T, 0 if workload == "row prefixes" else 1) / h.sum()


def run() -> int:
    auto.RULES = tuple(r for r in auto.RULES if r.method != "strategy")
    rp = row_prefixes(np.random.default_rng(1)).astype(float)
    loads = {"row prefixes": rp, "column prefixes": rp[:, [1, 0, 3, 2]]}
    print("| family | N | eps | workload | spread | excess variation / N | pick | pick+W MRE | strategy MRE | "
          "strategy / pick |")
    print("|---|---:|---:|---|---:|---:|---|---:|---:|---:|")
    for n in (500_000, 1_000_000):
        for label, pts in members(n):
            h, index = histogram(pts), pv.PointIndex(pts)
            for name, w in loads.items():
                w = w.copy()
                w[:, [2, 3]] = np.maximum(w[:, [2, 3]], w[:, [0, 1]] + 1)
                truth, out, pick = index.count(w), {}, ""
                for m in ("auto", "strategy"):
                    rel = pv.build(pts, DOMAIN, m, 1.0, seed=3, resolution=8, workload=w)
                    out[m] = float(np.mean(relative_error(rel.answer(w), truth, n)))
                    pick = rel.params.get("chosen", pick)
                print(f"| {label} | {n} | 1 | {name} | {spread(h):.3f} | {excess_share(h, name):.3f} | {pick} | "
                      f"{out['auto']:.4g} | {out['strategy']:.4g} | {out['strategy'] / out['auto']:.2f} |", flush=True)
    return 0


def cells() -> dict[tuple[str, int, float, str], tuple[float, float, float]]:
    """(family, N, eps, workload) -> (spread, excess / N, strategy / pick) of every prefix cell from N eps =
    2 x 10^5 in the four tables (a cell in two tables: the later)."""
    hist: dict[tuple[str, int], np.ndarray] = {}
    out = {}
    for name in (*TABLES, "workload_fine.md"):
        for line in (HERE / name).read_text().splitlines():
            x = [c.strip() for c in line.split("|")]
            if len(x) > 10 and x[2].isdigit() and "prefixes" in x[4] and int(x[2]) * float(x[3]) >= 2e5:
                n = int(x[2])
                if (x[1], n) not in hist:
                    hist.update({(label, n): histogram(pts) for label, pts in members(n)})
                h = hist[(x[1], n)]
                out[(x[1], n, float(x[3]), x[4])] = (spread(h), excess_share(h, x[4]), float(x[-2]))
    return out


def main() -> int:
    if sys.argv[1:] == ["run"]:
        return run()
    table = cells()
    for (label, n, eps, wl), (s, f, r) in sorted(table.items(), key=lambda kv: (kv[0][1] * kv[0][2], kv[1][2])):
        print(f"N eps {n * eps:9.3g} | spread {s:.3f} | excess {f:6.3f} | strategy / pick {r:5.2f} | {label} | {wl}")
    for t in (2e5, 5e5, 1e6):
        for f_min in (0.1, 0.15, 0.3):
            for s_min in (0.0, 0.02):
                sent = np.array([r for (_, n, eps, _), (s, f, r) in table.items()
                                 if n * eps >= t and f >= f_min and s >= s_min])
                left = np.array([r for (_, n, eps, _), (s, f, r) in table.items()
                                 if n * eps >= t and not (f >= f_min and s >= s_min)])
                print(f"N eps >= {t:g}, excess >= {f_min:g}, spread >= {s_min:g}: sent {summary(sent)}; "
                      f"{left.size} left (the strategy better in {(left < 1).sum()})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
