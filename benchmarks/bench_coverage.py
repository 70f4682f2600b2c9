"""Do the intervals people read first hold the truth? Coverage of ``Release.answer_interval`` (95 %).

For every private method at its default settings and for auto, epsilon 0.1 and 1:

- "tuned": the data the interval model was shaped on: the five DPBench files in ../shared/dpbench (points placed
  uniformly in their cells, the protocol's 200 rectangles, domain [0, 256)^2), the GeoNames sample and the US zip
  codes of vega-datasets on the world domain (300 random rectangles of 0.5 to 40 degrees a side);
- "held out": real data the model was never looked at on, the validation part of the corpus of
  psdviz.lab.corpus (world airports and cities, earthquakes, flights, weather pairs...; `bash .ci/fetch_corpus`),
  each a 256 x 256 histogram on the DPBench protocol;
- regions: the GeoNames sample over the US states and counties, a region's interval from a spatial release
  planned for the layer (``answer_regions``) and from a region release (``build_regions``).

Per cell: the share of rectangles (regions) whose true count lies inside the whole 95 % interval (noise and the
cells the edges cut), the same for the noise alone (1.96 standard errors), and the interval's median half-width
(the "+-" people read) over the mean absolute error (floored at one count: the truth is a whole number). Target:
coverage >= 0.95 (0.93 allowed for sampling, over >= 400 rectangles a cell) in every cell, with that half-width
<= 4 x the mean absolute error in at least 80 % of the cells.

    python benchmarks/bench_coverage.py [--runs 2] [--parts tuned held-out regions]
        [--out docs/reproduction/coverage.md] [--resume]
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
TARGET_COVERAGE, ALLOWED_COVERAGE, TARGET_WIDTH, WIDTH_SHARE = 0.95, 0.93, 4.0, 0.8


def world_rects(k: int = 300, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    lo = np.column_stack([rng.uniform(-180, 170, k), rng.uniform(-90, 80, k)])
    return np.column_stack([lo, np.minimum(lo + rng.uniform(0.5, 40, (k, 2)), [180, 90])])


def held_out():
    """The corpus's validation part, on the DPBench protocol: (name, points maker(run), domain, rectangles, truth
    maker(points)); a data set whose source is not fetched is left out (and said)."""
    from psdviz.lab import corpus
    q = protocol_queries().astype(float)
    for name in corpus.SPLIT["validation"]:
        try:
            hist = corpus.load(name)
        except corpus.MissingData as exc:
            print(f"(left out: {name}: {exc})", file=sys.stderr)
            continue
        truth = histogram_truth(hist, protocol_queries())
        yield (name, lambda r, h=hist: histogram_points(h, np.random.default_rng(2000 + r)),
               pv.Domain(0, 0, 256, 256), q, lambda _pts, t=truth: t)


def datasets():
    """(name, points maker(run), domain, rectangles, truth maker(points)): the data the model was shaped on."""
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


def _key(row: dict) -> tuple:
    return row["part"], row["data"], float(row["epsilon"]), row["method"]


class Progress:
    """The cells measured so far, kept in ``<out>.json`` after each one: a run stopped midway (a long run on a shared
    machine) goes on with ``--resume`` from the cells it has, measured with the same runs."""

    def __init__(self, out: str | None, runs: int, resume: bool):
        self.path = Path(out).with_suffix(".json") if out else None
        self.rows: list[dict] = []
        if resume and self.path is not None and self.path.is_file():
            kept = json.loads(self.path.read_text())
            self.rows = [r for r in kept if r.get("runs", runs) == runs]
        self.done = {_key(r) for r in self.rows}

    def add(self, row: dict) -> None:
        self.rows.append(row)
        self.done.add(_key(row))
        if self.path is not None:
            self.path.write_text(json.dumps(self.rows, indent=1))


def run(runs: int, methods: list[str], sets, part: str, progress: Progress) -> None:
    for name, points, dom, q, truth_of in sets:
        for eps in EPSILONS:
            for m in methods:
                if (part, name, float(eps), m) in progress.done:
                    continue
                figs = []
                t0 = time.time()
                for r in range(runs):
                    pts = points(r)
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        rel = pv.build(pts, dom, m, eps, nonfinite="drop")
                    figs.append(cell(rel, q, truth_of(pts)))
                f = np.mean(figs, axis=0)
                progress.add({"part": part, "data": name, "epsilon": eps, "method": m, "coverage": share(f[0]),
                              "noise only": f[1], "half-width / MAE": f[2], "seconds": time.time() - t0,
                              "runs": runs})
                print(f"{name:16s} {eps:4g} {m:13s} coverage {f[0]:.3f} (noise only {f[1]:.3f}) "
                      f"half-width/MAE {f[2]:.2f}", flush=True)


def regions(runs: int, progress: Progress) -> None:
    """A region's interval: from a spatial release planned for the layer, and from a region release."""
    from psdviz.core.domain import prepare_points
    from psdviz.regions import true_counts, us_counties, us_states
    pts = sample_points("geonames")
    for layer_name, make in (("US states", us_states), ("US counties", us_counties)):
        layer = make()
        dom = pv.Domain(*layer.bounds())
        for eps in EPSILONS:
            for how in ("quadtree planned for the layer", "region release"):
                if ("regions", layer_name, float(eps), how) in progress.done:
                    continue
                figs = []
                for _ in range(runs):
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        if how == "region release":
                            rel = pv.build_regions(pts, layer, epsilon=eps, domain=dom, nonfinite="drop")
                            t = rel.counts()
                        else:
                            rel = pv.build(pts, dom, "quadtree", eps, workload=layer, outside="drop", nonfinite="drop")
                            t = rel.answer_regions(layer)
                    truth = pd.Series(true_counts(prepare_points(pts, dom, outside="drop"), layer)[0],
                                      index=layer.table()["id"]).loc[t["id"]].to_numpy(float)
                    low, high, est = (t[c].to_numpy(float) for c in ("low_95", "high_95", "estimate"))
                    ok = np.isfinite(est)
                    err = np.abs(est[ok] - truth[ok])
                    figs.append((np.mean((low[ok] <= truth[ok]) & (truth[ok] <= high[ok])),
                                 np.mean(err <= 1.959964 * t["standard_error"].to_numpy(float)[ok]),
                                 np.median(high[ok] - low[ok]) / 2 / max(np.mean(err), 1.0)))
                f = np.mean(figs, axis=0)
                progress.add({"part": "regions", "data": layer_name, "epsilon": eps, "method": how,
                              "coverage": share(f[0]), "noise only": f[1], "half-width / MAE": f[2], "seconds": 0.0,
                              "runs": runs})
                print(f"{layer_name:16s} {eps:4g} {how:30s} coverage {f[0]:.3f} half-width/MAE {f[2]:.2f}", flush=True)


def share(x: float) -> float:
    """A share of rectangles, rounded to 9 places: 372 of 400 is 0.93, never 0.9299999999999999 below the bar."""
    return round(float(x), 9)


def summary(df: pd.DataFrame) -> str:
    covered = df["coverage"] >= ALLOWED_COVERAGE
    narrow = df["half-width / MAE"] <= TARGET_WIDTH
    worst = df.loc[df["coverage"].idxmin()]
    return (f"{len(df)} cells: coverage >= {TARGET_COVERAGE} in {int((df['coverage'] >= TARGET_COVERAGE).sum())}, "
            f">= {ALLOWED_COVERAGE} in {int(covered.sum())}; minimum {df['coverage'].min():.3f} ({worst['data']}, "
            f"{worst['method']}, epsilon {worst['epsilon']:g}), median {df['coverage'].median():.3f}; half-width <= "
            f"{TARGET_WIDTH:g} x the mean absolute error in {narrow.mean():.0%} of the cells (target "
            f"{WIDTH_SHARE:.0%}), median {df['half-width / MAE'].median():.2f}; the noise alone covers "
            f"{df['noise only'].median():.3f} (median).")


def table(rows: list[dict], runs: int) -> str:
    df = pd.DataFrame(rows).assign(coverage=lambda d: d["coverage"].map(share))
    ok = (df["coverage"] >= ALLOWED_COVERAGE) & (df["half-width / MAE"] <= TARGET_WIDTH)
    head = (f"# Coverage of the 95 % interval (noise and the cells the edges cut)\n\n"
            f"`python benchmarks/bench_coverage.py --runs {runs}`; {platform.machine()}, {platform.python_version()}, "
            f"numpy {np.__version__}; {runs} runs a cell (fresh randomness): the protocol's 200 rectangles on the "
            f"histograms (DPBench files, held-out corpus), 300 random rectangles on the world domain for the point "
            f"sets, every region of the layers. Rules: docs/decisions/whole-interval.md.\n\n")
    parts = [f"- **{p}**: {summary(df[df['part'] == p])}" for p in dict.fromkeys(df["part"])]
    head += "\n".join(parts) + f"\n- **all**: {summary(df)}\n\n"
    lines = ["| part | data | epsilon | method | coverage | noise only | half-width / MAE |",
             "|---|---|---:|---|---:|---:|---:|"]
    for r, good in zip(rows, ok):
        mark = "" if good else " *"
        lines.append(f"| {r['part']} | {r['data']} | {r['epsilon']:g} | {r['method']} | {r['coverage']:.3f}{mark} | "
                     f"{r['noise only']:.3f} | {r['half-width / MAE']:.2f} |")
    return head + "\n".join(lines) + (f"\n\n`*`: the cell misses coverage {ALLOWED_COVERAGE} or half-width "
                                      f"{TARGET_WIDTH:g} x the mean absolute error.\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--methods", nargs="+", default=list(pv.METHODS))
    ap.add_argument("--parts", nargs="+", default=["tuned", "held-out", "regions"])
    ap.add_argument("--out", default=None, help="write the Markdown table here (docs/reproduction/coverage.md)")
    ap.add_argument("--resume", action="store_true", help="keep the cells already in <out>.json and measure the rest")
    a = ap.parse_args()
    t0 = time.time()
    progress = Progress(a.out, a.runs, a.resume)
    if "tuned" in a.parts:
        run(a.runs, a.methods, datasets(), "tuned", progress)
    if "held-out" in a.parts:
        run(a.runs, a.methods, held_out(), "held out", progress)
    if "regions" in a.parts:
        regions(a.runs, progress)
    order = {"tuned": 0, "held out": 1, "regions": 2}
    rows = sorted(progress.rows, key=lambda r: order[r["part"]])
    text = table(rows, a.runs)
    print(text)
    print(f"({time.time() - t0:.0f} s)", file=sys.stderr)
    if a.out:
        Path(a.out).write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
