"""auto on sparse correlated attribute pairs, the shapes DPBench's held-out tabular files may take.

The lab (bench_auto_rule.py) has zero-inflated pairs with lines along the axes; tabular 2-D files also pair
correlated amounts (a salary and a gross pay, a loan and its funded amount): points along a diagonal through
the corner, a second attribute zero for many records, values at round amounts. Four such families, and three
heavy-tailed amounts binned over their own range as DPBench's tabular files are (``--set range``), on the
DPBench domain, binned to 256 x 256 and spread evenly inside their cells as the protocol places them, N = 20k,
70k and 550k, epsilon 0.1 and 1: the MRE of the lab's candidates and of auto (the protocol's 200 queries,
``--runs`` seeds), auto over the best candidate, and DAWA's published partition on the same histogram
(research/studies/study_dawa_partition.py's ``dawa_estimate``, the selection DPBench's DAWA-2D runs, which is not
eps-DP as run: research/accuracy-notes.md), the same with its selection's noise four times the authors' scale
(the smallest whole multiple at which ``study_dawa_partition.py --audit`` finds no log ratio above eps1 on its
small neighbouring pairs; no proof) and AHP (value-grouped cells, eps-DP; ``ahp`` in the same script) for
reference. Nothing here is tuned: the families were written before they were measured.

    python research/studies/study_sparse_pairs.py [--runs 3] [--resolution 20] [--set pairs|range|all]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))    # the lab the studies build on
sys.path.insert(0, str(Path(__file__).resolve().parent))                       # the other studies
from bench_auto_rule import candidates, histogram, score
from bench_dpbench import queries, truth
from study_dawa_partition import dawa_estimate

from psdviz.lab.metrics import relative_error

SIZES = (20_000, 70_000, 550_000)


def _binned(x: np.ndarray, y: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    cell = np.column_stack([np.clip(np.floor(x), 0, 255), np.clip(np.floor(y), 0, 255)])
    return cell + rng.random(cell.shape)


def families(n: int, rng: np.random.Generator) -> list[tuple[str, np.ndarray]]:
    x = rng.lognormal(0, 0.5, n)
    x = x / np.quantile(x, 0.999) * 250                      # a skewed amount filling the axis
    y = x * rng.normal(1.0, 0.05, n)                         # a second amount close to the first
    rate = np.where(rng.random(n) < 0.4, 0.0, rng.uniform(0.0, 0.3, n))     # zero for 40 %, else a fraction
    rounded = np.round(rng.gamma(2.0, 30.0, n) / 10) * 10    # amounts at round values (every 10 cells)
    funded = np.where(rng.random(n) < 0.8, rounded, rounded * rng.uniform(0.5, 1.0, n))
    return [("diagonal (y about x)", _binned(x, y, rng)),
            ("y zero for 40 %, else a fraction of x", _binned(x, x * rate, rng)),
            ("x round, y = x times a rate", _binned(np.clip(rounded, 0, 255), rounded * rng.uniform(0.2, 1.0, n),
                                                      rng)),
            ("x round, y = x mostly", _binned(np.clip(rounded, 0, 255), np.clip(funded, 0, 255), rng))]


def _by_range(a: np.ndarray, b: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Both attributes binned over their own [min, max], as DPBench's tabular files are: a long tail squeezes
    the bulk into a few cells."""
    def scale(v: np.ndarray) -> np.ndarray:
        return np.minimum((v - v.min()) / (v.max() - v.min()) * 256, 255.999)
    return _binned(scale(a), scale(b), rng)


def range_binned(n: int, rng: np.random.Generator) -> list[tuple[str, np.ndarray]]:
    """Heavy-tailed amounts binned over their range: a salary with overtime (zero for 60 %, else a heavy
    tail), a loan at round amounts with its total repaid (a markup, 15 % repaid in part), a salary with its
    gross pay (20 % part-year, plus the overtime)."""
    salary = rng.lognormal(10.8, 0.45, n)
    overtime = np.where(rng.random(n) < 0.6, 0.0, rng.lognormal(7.5, 1.3, n))
    loan = np.round(rng.lognormal(9.3, 0.6, n) / 25) * 25
    paid = loan * rng.uniform(1.0, 1.4, n) * np.where(rng.random(n) < 0.15, rng.uniform(0, 1, n), 1)
    gross = salary * np.where(rng.random(n) < 0.8, 1.0, rng.uniform(0.1, 1.0, n)) + overtime
    return [("salary x overtime, binned by range", _by_range(salary, overtime, rng)),
            ("loan x total repaid, binned by range", _by_range(loan, paid, rng)),
            ("salary x gross pay, binned by range", _by_range(salary, gross, rng))]


SETS = {"pairs": (families,), "range": (range_binned,), "all": (families, range_binned)}


def reference(h: np.ndarray, eps: float, runs: int, q: np.ndarray, how: str = "published", noise: float = 1.0) -> float:
    t = truth(h, q)
    return float(np.mean([relative_error(truth(dawa_estimate(h, eps, how, np.random.default_rng(r), noise), q),
                                         t, h.sum()).mean() for r in range(runs)]))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--resolution", type=int, default=8)
    ap.add_argument("--set", choices=SETS, default="all",
                    help="the four pairs, the three amounts binned by range, or both")
    a = ap.parse_args()
    t0, q = time.time(), queries()
    cands = candidates(a.resolution)
    lines = ["| family | N | eps | " + " | ".join(cands)
             + " | auto | auto / best | DAWA (published) | DAWA, noise x 4 | AHP |",
             "|---|---:|---:|" + "---:|" * (len(cands) + 5)]
    for n in SIZES:
        for label, pts in [f for make in SETS[a.set] for f in make(n, np.random.default_rng(n))]:
            h = histogram(pts)
            for eps in (0.1, 1.0):
                mre = {m: score(pts, h, m, eps, a.runs, q, a.resolution)[0] for m in (*cands, "auto")}
                best = min(cands, key=mre.get)
                cells = " | ".join(f"**{mre[m]:.4f}**" if m == best else f"{mre[m]:.4f}" for m in cands)
                lines.append(f"| {label} | {n:,} | {eps:g} | {cells} | {mre['auto']:.4f} | "
                             f"{mre['auto'] / mre[best]:.2f} | {reference(h, eps, a.runs, q):.4f} | "
                             f"{reference(h, eps, a.runs, q, noise=4.0):.4f} | "
                             f"{reference(h, eps, a.runs, q, 'ahp'):.4f} |")
                print(lines[-1], flush=True)
    print(f"\nResolution {a.resolution}, {a.runs} runs, the DPBench protocol ({time.time() - t0:.0f} s)\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
