"""Counts for places: which route is better, and how fast the assignment is -> docs/reproduction/regions.md.

Routes, on the bundled US states > counties layer (3,200+ counties), error per level (mean absolute
error of the counts against the truth, over ``--runs`` seeds):

(a) the best spatial release answered on the regions (``auto``, ``Release.answer_regions``);
(b) the region release (``pv.build_regions``: noisy counts per level, least squares, non-negative
    integers);
(c) independent noisy counts per level without consistency (the region release's own noisy counts).

Data: the GeoNames sample inside the USA's bounds (real points) and synthetic points (uniform over
the lower 48 plus clusters around ten cities), epsilon 0.1 and 1.

Speed: psdviz's assignment (one grouped pass over the grid, cells to the region holding their
centre) against what a user would write, geopandas ``sjoin`` of the points with the counties then a
count per county, at 10^6 and 10^7 points (``--sizes``).

    python benchmarks/bench_regions.py [--runs 5] [--sizes 1000000 10000000] [--no-write]
"""
from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from reproduction import publish_section

import psdviz as pv
from psdviz.core.domain import prepare_points
from psdviz.io.samples import sample_points
from psdviz.regions import Regions, us_counties
from psdviz.regions.build import true_counts

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "reproduction" / "regions.md"
US = pv.Domain(-125.0, 24.0, -66.0, 50.0)          # lower 48 bounding box: public
CITIES = np.array([[-74.0, 40.7], [-118.2, 34.1], [-87.6, 41.9], [-95.4, 29.8], [-112.1, 33.4],
                   [-75.2, 39.95], [-98.5, 29.4], [-117.2, 32.7], [-96.8, 32.8], [-122.4, 37.8]])


def geonames_us() -> np.ndarray:
    xy = sample_points("geonames")
    inside = (xy[:, 0] >= US.xmin) & (xy[:, 0] <= US.xmax) & (xy[:, 1] >= US.ymin) & (xy[:, 1] <= US.ymax)
    return xy[inside]


def synthetic(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    k = n // 2
    uniform = rng.uniform([US.xmin, US.ymin], [US.xmax, US.ymax], (n - k, 2))
    cities = CITIES[rng.integers(0, len(CITIES), k)] + rng.normal(0, 0.4, (k, 2))
    xy = np.vstack([uniform, cities])
    keep = (xy[:, 0] > US.xmin) & (xy[:, 0] < US.xmax) & (xy[:, 1] > US.ymin) & (xy[:, 1] < US.ymax)
    return xy[keep]


def errors(xy: np.ndarray, layer, eps: float, runs: int) -> dict[str, np.ndarray]:
    """Mean absolute error per level for the three routes."""
    truth, _ = true_counts(prepare_points(xy, pv.Domain(*layer.bounds()), outside="drop"), layer)
    levels = layer.levels
    out = {"(a) spatial auto": [], "(b) region release": [], "(c) independent": []}
    for s in range(runs):
        spatial = pv.build(xy, pv.Domain(*layer.bounds()), "auto", eps, seed=1000 + s)
        region = pv.build_regions(xy, layer, epsilon=eps, seed=2000 + s)
        for name, est in (("(a) spatial auto", spatial.answer_regions(layer)["estimate"].to_numpy()),
                          ("(b) region release", region.estimate), ("(c) independent", region.noisy)):
            out[name].append([np.abs(est - truth)[levels == d].mean() for d in range(layer.n_levels)])
    return {k: np.mean(v, axis=0) for k, v in out.items()}


def assignment_speed(n: int, layer) -> tuple[float, float, float]:
    """(psdviz's grouped pass + assignment, of which drawing the layer's raster, geopandas sjoin + count)
    in seconds for n points. The raster is drawn afresh (a new layer object), as on a layer's first use."""
    import geopandas as gpd
    xy = synthetic(n, seed=7)
    fresh = Regions(layer.frame)
    t = time.perf_counter()
    source = prepare_points(xy, pv.Domain(*fresh.bounds()), outside="drop")
    t_raster = time.perf_counter()
    fresh.raster(source.grid)
    t_raster = time.perf_counter() - t_raster
    true_counts(source, fresh)
    ours = time.perf_counter() - t
    counties = layer.frame[layer.frame["level"] == 1][["id", "geometry"]]
    t = time.perf_counter()
    pts = gpd.GeoDataFrame(geometry=gpd.points_from_xy(xy[:, 0], xy[:, 1]), crs="EPSG:4326")
    joined = gpd.sjoin(pts, counties, predicate="within")
    joined.groupby("id").size()
    theirs = time.perf_counter() - t
    return ours, t_raster, theirs


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--sizes", type=int, nargs="*", default=[1_000_000, 10_000_000])
    ap.add_argument("--no-write", action="store_true")
    a = ap.parse_args()
    t0 = time.perf_counter()
    layer = us_counties()
    lines = ["## Counts for places: spatial release, region release or independent counts", "",
             "| data | epsilon | route | states (level 0) | counties (level 1) |", "|---|---:|---|---:|---:|"]
    for label, xy in (("GeoNames in the USA", geonames_us()), ("synthetic 200k", synthetic(200_000))):
        for eps in (0.1, 1.0):
            res = errors(xy, layer, eps, a.runs)
            for route, e in res.items():
                lines.append(f"| {label} ({len(xy):,} points) | {eps:g} | {route} | {e[0]:.1f} | {e[1]:.2f} |")
            print(lines[-3:], flush=True)
    lines += ["", "| points | psdviz assignment (s) | of which the layer's raster (s) | geopandas sjoin + count (s) "
              "| speed-up |", "|---:|---:|---:|---:|---:|"]
    for n in a.sizes:
        ours, raster, theirs = assignment_speed(n, layer)
        lines.append(f"| {n:,} | {ours:.2f} | {raster:.2f} | {theirs:.2f} | {theirs / ours:.1f}x |")
        print(lines[-1], flush=True)
    machine = (f"{platform.processor() or platform.machine()}, Python {platform.python_version()}, "
               f"numpy {np.__version__}")
    head = [f"_Generated by `python benchmarks/bench_regions.py` ({machine}; {time.perf_counter() - t0:.0f} s); do "
            f"not edit by hand._ Mean absolute error of the counts per level against the truth, {a.runs} runs per "
            "cell; the region release (b) is what `pv.build_regions` publishes (non-negative integers, states = sum "
            "of their counties), (c) its noisy counts before consistency, (a) `auto` answered with "
            "`Release.answer_regions` (area shares of its cells). The assignment rows time reading the points onto the "
            "resolution-20 grid, drawing the counties' raster (once per layer and grid) and locating every cell, "
            "against a spatial join of every point.", ""]
    publish_section("\n".join(lines[:1] + [""] + head + lines[2:]) + "\n", OUT, write=not a.no_write)
    return 0


if __name__ == "__main__":
    pd.set_option("display.width", 200)
    sys.exit(main())
