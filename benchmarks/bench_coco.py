"""Benchmark of count-of-counts publishing: 1,000,000 groups over 10,000 leaves,
3 levels (root > 100 > 100), H_c with top-down consistency; target <= 5 s on the 2-core dev machine.

Prints wall-clock seconds per stage (median of --repeat runs) and the PAV pass counts.
Usage: python benchmarks/bench_coco.py [--groups 1000000] [--max-size 100] [--repeat 3]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from psdviz import coco
from psdviz.coco import cumulative, unattributed
from psdviz.coco.synthetic import synthetic_table


def timed(fn, repeat):
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times)), out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--groups", type=int, default=1_000_000)
    ap.add_argument("--max-size", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    t0 = time.perf_counter()
    table = synthetic_table(args.groups, (100, 100), "dense", max_size=args.max_size, seed=1)
    print(f"data: {table.n_groups:,} groups, {table.hierarchy.leaves.size:,} leaves, "
          f"{table.hierarchy.n_levels} levels, K = {table.max_size} (generated in {time.perf_counter() - t0:.2f} s)")
    truth = coco.true_histograms(table)
    h = table.hierarchy
    for name, module in (("hc", cumulative), ("hg", unattributed)):
        rng = np.random.default_rng(0)
        leaves = truth[h.leaves]
        sec, est = timed(lambda: module.estimate(leaves, 1 / 3, rng), args.repeat)
        print(f"{name} single-node estimates of the {h.leaves.size:,} leaves: {sec:.2f} s ({est.passes} PAV passes)")
    for method, consistency in (("hc", "top-down"), ("hg", "top-down"), ("hc", "bottom-up"), ("hc", "independent")):
        sec, rel = timed(lambda: coco.publish(table, None, method, 1 / 3, seed=2, consistency=consistency), args.repeat)
        ok = rel.check_consistency()["ok"]
        print(f"publish method={method} consistency={consistency}: {sec:.2f} s (consistent: {ok})")
    rng = np.random.default_rng(3)
    y = np.sort(table.size).astype(float) + rng.laplace(0, 3, table.n_groups)
    sec, fit = timed(lambda: coco.isotonic(y), args.repeat)
    print(f"L2 PAV on {y.size:,} noisy sorted sizes (one segment): {sec:.2f} s ({fit.passes} passes)")
    sec, fit = timed(lambda: coco.isotonic(y[:100_000], loss="l1"), args.repeat)
    print(f"L1 PAV on 100,000 noisy sorted sizes: {sec:.2f} s ({fit.passes} passes)")
    # a taxi-like shape (10,000 nodes x 280 entries = 2.8M, segmented), L1 vs L2
    rng = np.random.default_rng(0)
    seg = np.repeat(np.arange(10_000), 280)
    ys = np.sort(rng.exponential(5, seg.size).reshape(10_000, 280), axis=1).ravel() + rng.laplace(0, 3, seg.size)
    for loss in ("l2", "l1"):
        sec, fit = timed(lambda: coco.isotonic(ys, seg, loss=loss), args.repeat)
        print(f"{loss.upper()} PAV on 2.8M entries in 10,000 segments: {sec:.2f} s ({fit.passes} passes)")


if __name__ == "__main__":
    main()
