"""Do the intervals people read first hold the truth? Coverage of ``Release.answer_interval`` (95 %).

For every private method at its default settings and for auto: on the five DPBench files in
../shared/dpbench (points placed uniformly in their cells, the protocol's 200 rectangles, domain
[0, 256)^2) and on two point sets with real structure on the world domain (the GeoNames sample, and the US
zip codes of vega-datasets, which no test was tuned on: `bash .ci/fetch_test_data`), 300 random
rectangles of 0.5 to 40 degrees a side; epsilon 0.1 and 1. Per cell: the share of rectangles whose true
count lies inside the whole 95 % interval (noise and the cells the edges cut), the same for the noise
alone, and the interval's mean half-width (the "+-" people read) over the mean absolute error. Target:
coverage >= 0.95 with that half-width <= 4 x the mean absolute error. (The whole width cannot be held to 4:
an exact 95 % interval of a normal error is 2 x 1.96 sd wide, 4.9 times its mean absolute error 0.80 sd;
of a Laplace error, 6 times.)

    python benchmarks/bench_coverage.py [--runs 2] [--out docs/reproduction/coverage.md]
"""
from __future__ import annotations

import argparse
import json
import platform
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import psdviz as pv
from psdviz.io.samples import sample_points
from psdviz.lab.dpbench import histogram_points, histogram_truth, protocol_queries

ROOT = Path(__file__).resolve().parent.parent
DPBENCH = ROOT.parent / "shared" / "dpbench"
FILES = ["BeijingTaxiE_256_256", "cabspottingS_256_256", "checkin_256_256", "Adult_2D_256_256", "Stroke_2D_256_256"]
ZIPCODES = ROOT / ".cache" / "vega-datasets" / "zipcodes.csv"
EPSILONS = (0.1, 1.0)
TARGET_COVERAGE, TARGET_WIDTH = 0.95, 4.0


def world_rects(k: int = 300, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    lo = np.column_stack([rng.uniform(-180, 170, k), rng.uniform(-90, 80, k)])
    return np.column_stack([lo, np.minimum(lo + rng.uniform(0.5, 40, (k, 2)), [180, 90])])


def datasets():
    """(name, points maker(run), domain, rectangles, truth maker(points))."""
    q = protocol_queries().astype(float)
    for f in FILES:
        hist = np.load(DPBENCH / f"{f}.npy")
        truth = histogram_truth(hist, protocol_queries())
        yield (f.removesuffix("_256_256"), lambda r, h=hist: histogram_points(h, np.random.default_rng(1000 + r)),
               pv.Domain(0, 0, 256, 256), q, lambda _pts, t=truth: t)
    wq = world_rects()
    sets = {"GeoNames sample": lambda: sample_points("geonames")}
    if ZIPCODES.is_file():
        sets["US zip codes"] = lambda: pd.read_csv(ZIPCODES)[["longitude", "latitude"]].dropna().to_numpy(float)
    for name, load in sets.items():
        pts = load()
        idx = pv.PointIndex(pts)
        yield name, lambda _r, p=pts: p, pv.Domain.world(), wq, lambda _p, i=idx: i.count(wq)


def cell(rel, q: np.ndarray, truth: np.ndarray) -> tuple[float, float, float]:
    est = rel.answer(q)
    iv = rel.answer_interval(q)
    se = np.sqrt(np.maximum(rel.answer_variance(q), 0))
    err = np.abs(est - truth)
    whole = np.mean((iv[:, 0] <= truth) & (truth <= iv[:, 1]))
    noise = np.mean(err <= 1.959964 * se)
    half = np.median(iv[:, 1] - iv[:, 0]) / 2 / max(np.mean(err), 1.0)   # MAE floored at one count
    return whole, noise, half


def run(runs: int, methods: list[str]) -> list[dict]:
    rows = []
    for name, points, dom, q, truth_of in datasets():
        for eps in EPSILONS:
            for m in methods:
                figs = []
                t0 = time.time()
                for r in range(runs):
                    pts = points(r)
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        rel = pv.build(pts, dom, m, eps, nonfinite="drop")
                    figs.append(cell(rel, q, truth_of(pts)))
                f = np.mean(figs, axis=0)
                rows.append({"data": name, "epsilon": eps, "method": m, "coverage": f[0], "noise only": f[1],
                             "half-width / MAE": f[2], "seconds": time.time() - t0})
                print(f"{name:16s} {eps:4g} {m:13s} coverage {f[0]:.3f} (noise only {f[1]:.3f}) "
                      f"half-width/MAE {f[2]:.2f}", flush=True)
    return rows


def table(rows: list[dict], runs: int) -> str:
    df = pd.DataFrame(rows)
    ok = (df["coverage"] >= TARGET_COVERAGE) & (df["half-width / MAE"] <= TARGET_WIDTH)
    head = (f"# Coverage of the 95 % interval (noise and the cells the edges cut)\n\n"
            f"`python benchmarks/bench_coverage.py --runs {runs}`; {platform.machine()}, {platform.python_version()}, "
            f"numpy {np.__version__}; {runs} runs a cell (fresh randomness), the protocol's 200 rectangles on the "
            f"DPBench files and 300 random rectangles on the world domain for the point sets.\n\n"
            f"Cells meeting the target (coverage >= {TARGET_COVERAGE}, half-width <= {TARGET_WIDTH:g} x the mean "
            f"absolute error): {int(ok.sum())} of {len(df)}; coverage alone: {int((df['coverage'] >= 0.95).sum())} "
            f"of {len(df)}, at least 0.90: {int((df['coverage'] >= 0.90).sum())}. Coverage of the whole interval: "
            f"minimum {df['coverage'].min():.3f}, median {df['coverage'].median():.3f}; of the noise alone: minimum "
            f"{df['noise only'].min():.3f}, median {df['noise only'].median():.3f}.\n\n")
    lines = ["| data | epsilon | method | coverage | noise only | half-width / MAE |", "|---|---:|---|---:|---:|---:|"]
    for r, good in zip(rows, ok):
        mark = "" if good else " *"
        lines.append(f"| {r['data']} | {r['epsilon']:g} | {r['method']} | {r['coverage']:.3f}{mark} | "
                     f"{r['noise only']:.3f} | {r['half-width / MAE']:.2f} |")
    return head + "\n".join(lines) + "\n\n`*`: the cell misses the target.\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--methods", nargs="+", default=list(pv.METHODS))
    ap.add_argument("--out", default=None, help="write the Markdown table here (docs/reproduction/coverage.md)")
    a = ap.parse_args()
    t0 = time.time()
    rows = run(a.runs, a.methods)
    if a.out:
        Path(a.out).with_suffix(".json").write_text(json.dumps(rows, indent=1))
    text = table(rows, a.runs)
    print(text)
    print(f"({time.time() - t0:.0f} s)", file=sys.stderr)
    if a.out:
        Path(a.out).write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
