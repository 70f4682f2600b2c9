"""The lines method's shares of epsilon, swept on the few-lines family against DAWA's partition x4.

The lines method (``psdviz.methods.lines``) spends ``select_fraction`` on the row and column sums,
``tree_fraction`` on the PrivTrees' split decisions and the rest on the leaves. The split decisions' share sets
how deep the trees grow: PrivTree splits a node while its biased count clears its noise, so a dense band or a
dense line is cut into many leaves whatever its shape, each leaf adding its own noise to every rectangle that
holds it. This study runs the family of ``benchmarks/bench_lines.py`` (the same 48 cells: 24 members, epsilon
0.1 and 1, the same seeds) for each tree share in ``--tree`` and prints, per cell, the lines method's MRE and
its ratio to DAWA x4 (``--draw k`` draws 24 other members of the family with other seeds, to check a choice
made on the first draw), then per share: the geometric mean of the ratios, the share of cells at or below 1, and
the same by N eps. Nothing here is part of the engine; the reading is in docs/decisions/few-lines.md.

    python research/studies/study_lines_shares.py [--runs 3] [--tree 0.15,0.2,0.25,0.35] [--draw 0]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "research" / "studies"))
from bench_dpbench import DOMAIN, queries, truth  # noqa: E402
from bench_lines import configs  # noqa: E402
from study_dawa_partition import dawa_estimate  # noqa: E402

import psdviz as pv  # noqa: E402
from psdviz.lab.metrics import relative_error  # noqa: E402
from psdviz.lab.synthetic import few_lines  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--tree", default="0.15,0.2,0.25,0.35")
    ap.add_argument("--draw", type=int, default=0, help="0: the benchmark's members; k > 0: 24 other members")
    args = ap.parse_args()
    shares = [float(s) for s in args.tree.split(",")]
    q = queries()
    ratios: dict[float, list[float]] = {s: [] for s in shares}
    neps: list[float] = []
    for n in (20_000, 200_000, 1_000_000):
        for k, c in enumerate(configs(n + 7919 * args.draw)):
            pts = few_lines(n, DOMAIN, np.random.default_rng(n + k + 7919 * args.draw), **c)
            hist = np.histogram2d(pts[:, 0], pts[:, 1], bins=256, range=[[0, 256], [0, 256]])[0]
            t = truth(hist, q)
            for eps in (0.1, 1.0):
                dawa = np.mean([np.mean(relative_error(truth(dawa_estimate(hist, eps, "published",
                                                                           np.random.default_rng(r), noise=4.0), q),
                                                       t, n)) for r in range(args.runs)])
                cells = []
                for s in shares:
                    builds = (pv.build(pts, DOMAIN, "lines", eps, seed=100 * r + int(10 * eps), resolution=8,
                                       tree_fraction=s) for r in range(args.runs))
                    err = np.mean([np.mean(relative_error(rel.answer(q), t, n)) for rel in builds])
                    ratios[s].append(float(err / dawa))
                    cells.append(f"{s:g}: {err:.4g} ({err / dawa:.2f})")
                neps.append(n * eps)
                print(f"N {n:,} {c} eps {eps:g} DAWA x4 {dawa:.4g} | " + " | ".join(cells), flush=True)
    ne = np.array(neps)
    for s in shares:
        r = np.array(ratios[s])
        by = "; ".join(f"N eps {v:g}: {np.exp(np.log(r[ne == v]).mean()):.2f}, {(r[ne == v] <= 1).mean():.0%}"
                       for v in np.unique(ne))
        print(f"tree {s:g}: geometric mean {np.exp(np.log(r).mean()):.3f}, at or below {(r <= 1).mean():.0%} "
              f"(worst {r.max():.2f}); {by}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
