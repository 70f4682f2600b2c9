"""PrivTree on sparse data: is the gap to DAWA's partition in the leaves' noise or in where the leaves are?

Two families of changes to PrivTree that cost no epsilon beyond its own, run on the Hilbert-ordered 256 x 256
histogram (quadtree nodes are runs of 4^k cells; ``study_dawa_partition.privtree_partition``), tree 0.4 eps,
leaves measured once with the rest (Laplace), each leaf's count spread evenly over its cells:

- ``--set segment``: the leaves' noisy counts, in Hilbert order, cut into runs by least squares with a penalty
  per run (minimise sum over runs of the residual sum of squares of y_k = A_k rho over 2 b^2, plus ``pen``; A_k
  the leaf's cells, b the Laplace scale), each run's noisy total spread over its cells. Post-processing of the
  released leaves, so no budget: it merges the small empty leaves beside the data into wide buckets, the
  thing DAWA's selection does, without choosing where the leaves are.
- ``--set atoms``: heavy cells found first and taken out: every cell's count with Laplace(1 / (a eps)), the cells
  above T = ln(65,536 / 0.5) / (a eps) (a quarter of a false cell expected) released as found (post-processing of
  a sensitivity-1 histogram), PrivTree with the rest of epsilon on the other cells (a point in a found cell does
  not reach it), the found cells measured beside its leaves (disjoint: parallel composition), a leaf's count
  spread over its cells that were not found; a = 0.15 and 0.25. DAWA's selection isolates heavy cells without a
  depth bias; this isolates them at a price in budget.
- ``--set params``: PrivTree's own free constants, the privacy argument unchanged (the paper's series bounds
  the split decisions for any beta > 1; beta above 2 keeps the empty space's branching subcritical at
  fanout 4): beta 3 and 6 (psdviz: 4), the threshold theta at -delta, -delta / 2 and +delta (psdviz: 0), the
  tree's share 0.3 and 0.5 (psdviz: 0.4), and the top 1, 2 or 3 depths split without a test (each node there
  roots its own PrivTree over disjoint cells: parallel composition), so the depth bias starts below them.
- ``--set dawa-noise``: no change to PrivTree; DAWA's published partition with its selection's noise at 1, 2, 3
  and 4 times the authors' scale (``study_dawa_partition.py --audit`` finds the clamped selection's worst log
  ratio above eps1 at 1, 2 and 3 times and below it at 4 on its small neighbouring pairs): what DAWA's lead over
  PrivTree rests on.

Data: the sparse families of ``study_sparse_pairs.py`` (both sets, N = 20k, 70k, 550k) and of
``study_dawa_partition.py`` (70k), and the five DPBench files; the protocol's 200 queries, MRE, mean over
``--runs`` seeds; DAWA's published partition (not eps-DP as run) for reference with ``--set segment``. The
reading is in research/accuracy-notes.md ("PrivTree's leaves: their noise, their constants"; for ``dawa-noise``
"DAWA's lead rests on the noise of its selection"); nothing here is part of the engine.

    python research/studies/study_privtree_leaves.py --set segment|atoms|params|dawa-noise [--runs 5]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))    # the lab the studies build on
sys.path.insert(0, str(Path(__file__).resolve().parent))                       # the other studies
from bench_auto_rule import histogram
from bench_dpbench import load_hist, queries, truth
from study_dawa_partition import dawa_estimate, hilbert_order, optimal_runs, privtree_partition
from study_dawa_partition import families as sparse_families
from study_sparse_pairs import SIZES, range_binned
from study_sparse_pairs import families as pair_families

from psdviz.lab.metrics import relative_error

TREE = 0.4
PENALTIES = (2.0, 8.0, 32.0)
PARAMS = {"psdviz": {}, "beta 3": {"beta": 3.0}, "beta 6": {"beta": 6.0}, "theta -delta": {"theta": -1.0},
          "theta -delta/2": {"theta": -0.5}, "theta +delta": {"theta": 1.0}, "tree 0.3": {"tree": 0.3},
          "tree 0.5": {"tree": 0.5}, "forced 1": {"forced": 1}, "forced 2": {"forced": 2}, "forced 3": {"forced": 3}}
DAWA_NOISE = (1, 2, 3, 4)
FILES = ("Adult_2D_256_256", "Stroke_2D_256_256", "cabspottingS_256_256", "checkin_256_256", "BeijingTaxiE_256_256")


def datasets() -> list[tuple[str, np.ndarray]]:
    out = []
    for n in SIZES:
        for make in (range_binned, pair_families):
            out += [(f"{label} ({n:,})", histogram(pts)) for label, pts in make(n, np.random.default_rng(n))]
    out += [(f"{label} (70,000)", h) for label, h in sparse_families(70_000, np.random.default_rng(70_000))]
    return out + [(f, load_hist(f)) for f in FILES]


def leaves(x: np.ndarray, eps: float, rng, beta: float = 4.0, theta: float = 0.0, tree: float = TREE,
           forced: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """PrivTree's leaves (theta in units of delta) and their counts with Laplace(b), b = 1 / ((1 - tree) eps)."""
    starts, sizes = privtree_partition(x, tree * eps, rng, beta, theta, forced)
    b = 1 / ((1 - tree) * eps)
    return starts, sizes, np.add.reduceat(x, starts) + rng.laplace(0, b, starts.size), b


def runs_of(y: np.ndarray, cells: np.ndarray, var: float, pen: float) -> np.ndarray:
    """Ends of the runs (with 0 first) minimising sum over runs of (RSS of y = cells rho) / var + pen, exactly."""
    cyy, ca, caa = (np.concatenate([[0.0], np.cumsum(v)]) for v in (y * y, cells * y, cells * cells))

    def run_cost(j: int) -> np.ndarray:
        say, saa = ca[j] - ca[:j], caa[j] - caa[:j]
        return (cyy[j] - cyy[:j] - say * say / saa) / var + pen
    return optimal_runs(y.size, run_cost)


def spread(order: np.ndarray, shape: tuple, sizes: np.ndarray, counts: np.ndarray) -> np.ndarray:
    est = np.empty(order.size)
    est[order] = np.repeat(counts / sizes, sizes)
    return est.reshape(shape)


def segment_estimates(h: np.ndarray, eps: float, rng_seed: int, order: np.ndarray) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(rng_seed)
    starts, sizes, y, b = leaves(h.ravel()[order], eps, rng)
    out = {"privtree": spread(order, h.shape, sizes, y)}
    for pen in PENALTIES:
        ends = runs_of(y, sizes.astype(float), 2 * b * b, pen)
        density = np.repeat(np.add.reduceat(y, ends[:-1]) / np.add.reduceat(sizes, ends[:-1]), np.diff(ends))
        out[f"runs, pen {pen:g}"] = spread(order, h.shape, sizes, density * sizes)
    out["DAWA (published)"] = dawa_estimate(h, eps, "published", rng)
    return out


def atoms_estimate(h: np.ndarray, eps: float, rng, order: np.ndarray, share: float) -> np.ndarray:
    x = h.ravel()[order]
    eps_a = share * eps
    found = x + rng.laplace(0, 1 / eps_a, x.size) > np.log(x.size / 0.5) / eps_a
    rest = np.where(found, 0.0, x)
    starts, sizes, y, b = leaves(rest, eps - eps_a, rng)
    free = np.add.reduceat((~found).astype(float), starts)
    cell = np.where(found, x + rng.laplace(0, b, x.size), np.repeat(y / np.maximum(free, 1.0), sizes))
    est = np.empty(x.size)
    est[order] = cell
    return est.reshape(h.shape)


def privtree_estimate(h: np.ndarray, eps: float, rng_seed: int, order: np.ndarray) -> np.ndarray:
    """PrivTree's leaves with psdviz's constants, their noisy counts spread evenly: the frame's baseline."""
    starts, sizes, y, _ = leaves(h.ravel()[order], eps, np.random.default_rng(rng_seed))
    return spread(order, h.shape, sizes, y)


def atom_estimates(h: np.ndarray, eps: float, rng_seed: int, order: np.ndarray) -> dict[str, np.ndarray]:
    return {"privtree": privtree_estimate(h, eps, rng_seed, order),
            **{f"heavy cells out, {a:g}": atoms_estimate(h, eps, np.random.default_rng(rng_seed), order, a)
               for a in (0.15, 0.25)}}


def param_estimates(h: np.ndarray, eps: float, rng_seed: int, order: np.ndarray) -> dict[str, np.ndarray]:
    out = {}
    for name, kw in PARAMS.items():
        starts, sizes, y, _ = leaves(h.ravel()[order], eps, np.random.default_rng(rng_seed), **kw)
        out[name] = spread(order, h.shape, sizes, y)
    return out


def dawa_noise_estimates(h: np.ndarray, eps: float, rng_seed: int, order: np.ndarray) -> dict[str, np.ndarray]:
    return {"privtree": privtree_estimate(h, eps, rng_seed, order),
            **{f"DAWA, noise x {k}": dawa_estimate(h, eps, "published", np.random.default_rng(rng_seed), k)
               for k in DAWA_NOISE}}


SETS = {"segment": segment_estimates, "atoms": atom_estimates, "params": param_estimates,
        "dawa-noise": dawa_noise_estimates}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", choices=tuple(SETS), default="segment")
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    t0, q, order = time.time(), queries(), hilbert_order(256)
    rows, ratios = [], {}
    for label, h in datasets():
        t, n = truth(h, q), h.sum()
        for eps in (0.1, 1.0):
            mre: dict[str, list[float]] = {}
            for r in range(a.runs):
                ests = SETS[a.set](h, eps, 1000 + r, order)
                for k, e in ests.items():
                    mre.setdefault(k, []).append(float(relative_error(truth(e, q), t, n).mean()))
            m = {k: float(np.mean(v)) for k, v in mre.items()}
            for k, v in m.items():
                ratios.setdefault(k, []).append(v / next(iter(m.values())))
            rows.append(f"| {label} | {eps:g} | " + " | ".join(f"{v:.4f}" for v in m.values()) + " |")
            print(rows[-1], flush=True)
    print(f"\n{a.runs} runs, resolution 8, the DPBench protocol ({time.time() - t0:.0f} s)\n")
    print("| data | eps | " + " | ".join(ratios) + " |\n|---|---:|" + "---:|" * len(ratios))
    print("\n".join(rows))
    print("\n| variant | geometric mean over PrivTree as psdviz runs it | cells better | range |\n|---|---:|---:|---|")
    for k, v in ratios.items():
        v = np.array(v)
        print(f"| {k} | {np.exp(np.log(v).mean()):.3f} | {int((v < 1).sum())} / {v.size} | "
              f"{v.min():.2f}-{v.max():.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
