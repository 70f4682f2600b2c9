"""Where the 95 % interval misses: the noise part and the cut-cell part measured apart.

For a release and rectangles Q: the answer with the release's own estimates (est), the same machinery with
every node's TRUE count in place of its estimate (u: the uniformity assumption alone), and the truth. Then
est - u is the noise's error and u - truth the cut cells' error. For each part: the share inside z times its
modelled standard deviation (the noise's exact sd; the cut model's sd), and the whole interval's coverage.

    python research/studies/interval_parts.py [--runs 2] [--files Stroke_2D_256_256 ...] [--methods ...]
"""
from __future__ import annotations

import argparse
import dataclasses
import sys
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_coverage import datasets  # noqa: E402

import psdviz as pv  # noqa: E402

Z = 1.959964


def parts(rel, pts: np.ndarray, q: np.ndarray, truth: np.ndarray) -> dict:
    true_nodes = pv.true_answer(pts, rel.tree.rect)
    exact = rel.evolve(tree=dataclasses.replace(rel.tree, est=true_nodes.astype(float)))
    est, u = rel.answer(q), exact.answer(q)
    se = np.sqrt(np.maximum(rel.answer_variance(q), 0))
    cut = rel.answer_uniformity_error(q)
    iv = rel.answer_interval(q)
    return {"noise in": np.mean(np.abs(est - u) <= Z * se), "cut in": np.mean(np.abs(u - truth) <= Z * cut + 1e-9),
            "whole in": np.mean((iv[:, 0] <= truth) & (truth <= iv[:, 1])),
            "cut share": np.mean(np.abs(u - truth) > 0), "noise sd": float(np.median(se)),
            "cut sd": float(np.median(cut)), "cut err": float(np.median(np.abs(u - truth)))}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--files", nargs="*", default=None)
    ap.add_argument("--methods", nargs="*", default=["auto", "quadtree", "privtree", "htree", "kdtree", "kd-cell",
                                                     "hybrid", "ag"])
    ap.add_argument("--eps", nargs="*", type=float, default=[0.1, 1.0])
    a = ap.parse_args()
    print("| data | eps | method | whole | noise part | cut part | rects cut | median noise sd | median cut sd | "
          "median cut error |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, points, dom, q, truth_of in datasets():
        if a.files and name not in a.files:
            continue
        for eps in a.eps:
            for m in a.methods:
                rows = []
                for r in range(a.runs):
                    pts = points(r)
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        rel = pv.build(pts, dom, m, eps, seed=100 + r, nonfinite="drop")
                    rows.append(parts(rel, pts, q, truth_of(pts)))
                f = {k: np.mean([r[k] for r in rows]) for k in rows[0]}
                print(f"| {name} | {eps:g} | {m} | {f['whole in']:.3f} | {f['noise in']:.3f} | {f['cut in']:.3f} | "
                      f"{f['cut share']:.2f} | {f['noise sd']:.1f} | {f['cut sd']:.1f} | {f['cut err']:.1f} |",
                      flush=True)


if __name__ == "__main__":
    main()
