"""Heaped lines from a corner atom, given long thin queries: auto without the row this study is the evidence for
(the hybrid kd-tree from the corner row) against PrivTree and the workload strategy, on corner members of the
zero-inflated family whose line values are heaped on a few amounts, beside smooth members of the same shares.

Members (``psdviz.lab.synthetic.zero_inflated``, corner): atom 0.5 or 0.85 of N, background 0 or 0.02, the rest on
the two edge lines; smooth (heaps 0) or heaped on at most 5 or 20 distances a line, all line points or 0.3 of them.
N = 2 x 10^4, 5 x 10^4 and 10^5, epsilon 0.1 and 1 (N eps 2 x 10^3 - 10^5; the corner row for thin queries takes
over from 1.5 x 10^5); 1,000 row prefixes and their transpose (``workload_choice.py``); mean relative error (floor
0.001 N) over 3 runs; the pick planned where it plans. ``edge`` is the true excess variation along the corner's
two edges, the atom's pair left out, over N (``psdviz.methods.fine_structure.edge_excess``): the fact the row
reads. The reading is in docs/decisions/workload-strategy.md ("Heaped lines from a corner atom").

    python research/studies/workload_heaped.py > research/studies/workload_heaped.md
    python research/studies/workload_heaped.py summary     # PrivTree over the pick by band of N eps, from the table

The table, then the row on auto's own noisy facts (``DRAWS`` draws of ``psdviz.methods.auto.measure_facts`` a
cell): the cells it sends in at least half the draws, those it leaves, and any cell PrivTree loses that it ever
sends.
"""
from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(Path(__file__).parent))
from bench_dpbench import DOMAIN  # noqa: E402
from ratios import summary  # noqa: E402
from workload_choice import row_prefixes  # noqa: E402
from workload_corner import mre  # noqa: E402  (3 runs a cell, seeds 3, 4, 5)

import psdviz as pv  # noqa: E402
from psdviz.core.domain import prepare_points  # noqa: E402
from psdviz.core.ledger import Ledger  # noqa: E402
from psdviz.core.rng import make_randomness  # noqa: E402
from psdviz.lab.synthetic import zero_inflated  # noqa: E402
from psdviz.methods import auto  # noqa: E402
from psdviz.methods.fine_structure import edge_excess  # noqa: E402

DRAWS = 20
HEAPED_ROW = "a workload of long thin queries over lines heaped"   # the row this study is evidence for


def members(n: int) -> Iterator[tuple[str, np.ndarray]]:
    for atom in (0.5, 0.85):
        for background in (0.0, 0.02):
            for heaps, heaped in ((0, 1.0), (5, 1.0), (5, 0.3), (20, 1.0), (20, 0.3)):
                rng = np.random.default_rng([n, int(atom * 100), int(background * 100), heaps, int(heaped * 10)])
                pts = zero_inflated(n, DOMAIN, rng, atom, 1.0 - atom - background, True, heaps=heaps, heaped=heaped)
                label = f"atom {atom:g} bg {background:g} " + (f"heaps {heaps} x {heaped:g}" if heaps else "smooth")
                yield label, pts


def sent_share(pts: np.ndarray, eps: float, w: np.ndarray, cell: int) -> float:
    """How often auto's own noisy facts send the cell to the row for heaped lines (seeds of its own a cell, so that
    the draws of different cells are independent)."""
    ps = prepare_points(pts, DOMAIN, resolution=8)
    shape = auto.workload_cells(w, ps, auto.FEATURE_SIDE)
    row = next(r for r in auto.RULES if r.when.startswith(HEAPED_ROW))
    seeds = range(DRAWS * cell, DRAWS * (cell + 1))
    return float(np.mean([auto.choose(auto.measure_facts(ps, eps, make_randomness(s), Ledger(eps), None, shape)[0])
                          is row for s in seeds]))


def expected_reading(edge: float, n: int, eps: float) -> float:
    """The edge fact's share three noise scales below the true one: what the row reads on average."""
    e_fact = auto.FEATURE_FRACTION * eps / 2 / auto.CELL_FACTS
    return edge - 3 * 2 / e_fact / n


def main() -> int:
    rows, reads = auto.RULES, auto.reads_heaped
    without_row = tuple(r for r in rows if not r.when.startswith(HEAPED_ROW))
    print("| member | N | eps | workload | edge | pick | pick+W MRE | PrivTree / pick | strategy / pick | sent |")
    print("|---|---:|---:|---|---:|---|---:|---:|---:|---:|")
    prefixes = row_prefixes(np.random.default_rng(1))
    sent, left, lost, read = [], [], [], []
    for n in (20_000, 50_000, 100_000):
        for label, pts in members(n):
            index = pv.PointIndex(pts)
            hist = np.histogram2d(pts[:, 0], pts[:, 1], bins=256, range=[[0, 256]] * 2)[0].astype(np.int64)
            edge = edge_excess(hist) / n
            for name, w in (("row prefixes", prefixes), ("column prefixes", prefixes[:, [1, 0, 3, 2]])):
                truth = index.count(w)
                for eps in (0.1, 1.0):
                    auto.RULES, auto.reads_heaped = without_row, lambda f: False     # auto as it was before
                    pick = pv.build(pts, DOMAIN, "auto", eps, seed=3, resolution=8, workload=w).params["chosen"]
                    a = mre(pts, "auto", eps, w, truth, True)
                    auto.RULES, auto.reads_heaped = rows, reads
                    p, s = mre(pts, "privtree", eps, w, truth, False), mre(pts, "strategy", eps, w, truth, True)
                    share = sent_share(pts, eps, w, len(sent) + len(left))
                    read.append((n * eps, expected_reading(edge, n, eps), p / a))
                    (sent if share >= 0.5 else left).append(p / a)
                    if share > 0 and p >= a:
                        lost.append((p / a, share))
                    print(f"| {label} | {n} | {eps:g} | {name} | {edge:.3f} | {pick} | {a:.4g} | {p / a:.2f} | "
                          f"{s / a:.2f} | {share:.0%} |", flush=True)
    print(f"\nSent in at least half the draws: {summary(np.array(sent), 'PrivTree')}; left: "
          f"{summary(np.array(left), 'PrivTree')}; cells PrivTree loses sent in any draw: {len(lost)}"
          + (f" (each in at most {max(x[1] for x in lost):.0%} of its draws; the worst loses "
             f"{max(x[0] for x in lost):.2f})" if lost else ""))
    print("\nOn the readings auto expects (the edge three noise scales lower), from N eps = 5 x 10^3:")
    for bound in (0.0, 0.01, 0.02, 0.05):
        r = np.array([ratio for ne, x, ratio in read if x >= bound and ne >= 5e3])
        print(f"- reading >= {bound:g}: {summary(r, 'PrivTree')}")
    return 0


def summarise() -> int:
    """PrivTree over the pick by band of N eps, heaped and smooth members apart, read from the table (its ratios
    have two decimals: a 0.00 is read as 0.005)."""
    rows = [[x.strip() for x in line.split("|")[1:-1]] for line in (Path(__file__).parent / "workload_heaped.md")
            .read_text().splitlines() if line.startswith("| atom")]
    print("| N eps | heaped members | smooth members |\n|---|---|---|")
    for band in sorted({int(r[1]) * float(r[2]) for r in rows}):
        cells = [r for r in rows if int(r[1]) * float(r[2]) == band]
        ratio = {kind: np.array([max(float(r[7]), 0.005) for r in cells if kind in r[0]])
                 for kind in ("heaps", "smooth")}
        print(f"| {band:g} | {summary(ratio['heaps'], 'PrivTree')} | {summary(ratio['smooth'], 'PrivTree')} |")
    return 0


if __name__ == "__main__":
    sys.exit(summarise() if sys.argv[1:] == ["summary"] else main())
