"""DAWA's private partition, studied before building it: which calibration can be argued, and how each fares.

DAWA (Li, Hay, Miklau, Wang, PVLDB 2014) orders the 256 x 256 cells along a Hilbert curve, picks a
partition of that order into intervals by minimising the sum over buckets of (noisy L1 cost + 1/eps2),
then measures each bucket with Laplace(1/eps2). This script runs its dyadic form (intervals aligned to
powers of two: a binary tree over the order, solved exactly bottom-up) with the bucket counts measured
once each, under four calibrations of the interval costs (eps1 = eps / 4, eps2 = 3 eps / 4):

- ``published``: mean-deviation cost, Laplace((2 - 1/len - 1/n) / eps1) per interval, noisy cost clamped
  at 1/eps2 (the scale and clamp of the authors' code as read in ektelo's ``cutil.cpp``);
- ``path-sum``: the same with the noise scaled to the whole vector of dyadic costs (a cell lies in
  log2(n) + 1 intervals, each cost moves by < 2), an argument that needs no structure;
- ``unclamped``: median-deviation cost (moves by at most 1 per point), Laplace(2 / eps1), no clamp;
- ``leaky``: the same with the cost passed through max(v, v / 4) and Laplace(5 / eps1).

It prints the DPBench-protocol MRE (resolution 8, the 200 queries) of each beside psdviz's own methods on
ADULT-2D and on sparse synthetic families. The arguments and the reading are in docs/accuracy-notes.md
("DAWA-2D: why psdviz does not ship it"); nothing here is part of the engine.

    python benchmarks/study_dawa_partition.py --runs 3
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_dpbench import DOMAIN, load_hist, method_spec, place, queries, truth

import psdviz as pv
from psdviz.lab.metrics import relative_error
from psdviz.lab.synthetic import zero_inflated
from psdviz.splits.hilbert_curve import encode

CALIBRATIONS = ("published", "path-sum", "unclamped", "leaky")
PSDVIZ = ("auto", "privtree", "kd-privtree", "kdtree", "hybrid+nnls")


def hilbert_order(side: int = 256) -> np.ndarray:
    i, j = np.meshgrid(np.arange(side), np.arange(side), indexing="ij")
    return np.argsort(encode(int(np.log2(side)), i.ravel(), j.ravel()))


def noisy_costs(blk: np.ndarray, how: str, eps1: float, eps2: float, rng: np.random.Generator) -> np.ndarray:
    n_levels = int(np.log2(blk.shape[0] * blk.shape[1])) + 1
    if how in ("published", "path-sum"):
        cost = np.abs(blk - blk.mean(1, keepdims=True)).sum(1)
        scale = 2.0 * (n_levels if how == "path-sum" else 1.0) / eps1
        return np.maximum(cost + rng.laplace(0, scale, cost.size) + 1 / eps2, 1 / eps2)
    cost = np.abs(blk - np.median(blk, 1, keepdims=True)).sum(1)
    if how == "unclamped":
        return cost + rng.laplace(0, 2 / eps1, cost.size) + 1 / eps2
    v = cost + rng.laplace(0, 5 / eps1, cost.size)
    return np.maximum(v, v / 4) + 1 / eps2


def dyadic_partition(x: np.ndarray, how: str, eps1: float, eps2: float, rng) -> tuple[np.ndarray, np.ndarray]:
    """Bucket starts and sizes of the cheapest partition into dyadic intervals (bottom-up: keep a node as
    one bucket when its noisy cost is at most its children's best)."""
    levels = int(np.log2(x.size))
    best, keep = None, []
    for lev in range(levels + 1):
        c = noisy_costs(x.reshape(-1, 2 ** lev), how, eps1, eps2, rng)
        k = np.ones(c.size, bool) if best is None else c <= best.reshape(-1, 2).sum(1)
        best = c if lev == 0 else np.where(k, c, best.reshape(-1, 2).sum(1))
        keep.append(k)
    size = np.zeros(x.size, np.int64)
    covered = np.zeros(1, bool)
    for lev in range(levels, -1, -1):
        chosen = keep[lev] & ~covered
        size[np.flatnonzero(chosen) * 2 ** lev] = 2 ** lev
        covered = np.repeat(covered | chosen, 2) if lev else covered
    starts = np.flatnonzero(size)
    return starts, size[starts]


def dawa_estimate(hist: np.ndarray, eps: float, how: str, rng) -> np.ndarray:
    order = hilbert_order(hist.shape[0])
    x = hist.ravel()[order]
    eps1, eps2 = eps / 4, 3 * eps / 4
    starts, sizes = dyadic_partition(x, how, eps1, eps2, rng)
    noisy = np.add.reduceat(x, starts) + rng.laplace(0, 1 / eps2, starts.size)
    est = np.empty(x.size)
    est[order] = np.repeat(noisy / sizes, sizes)
    return est.reshape(hist.shape)


def families(n: int, rng: np.random.Generator) -> list[tuple[str, np.ndarray]]:
    """Sparse 256 x 256 histograms: atoms at random cells (Zipf 1.2 weights), a product of two discrete
    attributes, a heavy line plus a cloud (a salary-like pair), an interior zero-inflated pair."""
    out = []
    for k in (100, 1000):
        cells = rng.choice(65536, k, replace=False)
        w = 1.0 / np.arange(1, k + 1) ** 1.2
        out.append((f"{k} atoms", np.bincount(rng.choice(cells, n, p=w / w.sum()), minlength=65536)
                    .reshape(256, 256).astype(float)))
    xs, ys = rng.choice(256, 40, replace=False), rng.choice(256, 30, replace=False)
    h = np.zeros((256, 256))
    np.add.at(h, (rng.choice(xs, n, p=rng.dirichlet(np.full(40, 0.5))),
                  rng.choice(ys, n, p=rng.dirichlet(np.full(30, 0.5)))), 1)
    out.append(("40 x 30 discrete values", h))
    x = np.minimum(rng.lognormal(3.5, 0.6, n).astype(int), 255)
    y = np.where(rng.random(n) < 0.7, 0, np.minimum(rng.exponential(20, n).astype(int), 255))
    h = np.zeros((256, 256))
    np.add.at(h, (x, y), 1)
    out.append(("line + cloud", h))
    pts = zero_inflated(n, DOMAIN, rng, 0.6, 0.35, False)
    out.append(("zero-inflated, interior atom",
                np.histogram2d(pts[:, 0], pts[:, 1], bins=256, range=[[0, 256], [0, 256]])[0]))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--n", type=int, default=70_000)
    a = ap.parse_args()
    q = queries()
    sets = [("ADULT-2D", load_hist("Adult_2D_256_256"))] + families(a.n, np.random.default_rng(a.n))
    print("| data | eps | " + " | ".join(CALIBRATIONS + PSDVIZ) + " |")
    print("|---|---:|" + "---:|" * (len(CALIBRATIONS) + len(PSDVIZ)))
    for label, hist in sets:
        n, t = hist.sum(), truth(hist, q)
        pts = [place(hist, np.random.default_rng(1000 + r)) for r in range(a.runs)]
        for eps in (0.1, 1.0):
            cells = []
            for how in CALIBRATIONS:
                e = [np.mean(relative_error(truth(dawa_estimate(hist, eps, how, np.random.default_rng(r)), q), t, n))
                     for r in range(a.runs)]
                cells.append(np.mean(e))
            for m in PSDVIZ:
                name, extra = method_spec(m)
                e = [np.mean(relative_error(pv.build(pts[r], DOMAIN, name, eps, seed=10_000 * r + int(eps * 10),
                                                     resolution=8, **extra).answer(q), t, n)) for r in range(a.runs)]
                cells.append(np.mean(e))
            print(f"| {label} | {eps:g} | " + " | ".join(f"{c:.4f}" for c in cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
