"""Counts for places: which route is better, and how fast the assignment is -> docs/reproduction/regions.md.

Routes, on the bundled US states > counties layer (3,200+ counties), error per level (mean absolute
error of the counts against the truth, over ``--runs`` seeds):

(a) the best spatial release answered on the regions (``Release.answer_regions``): ``auto``, and the
    best of five spatial methods per level (an oracle's choice, in favour of this route);
(b) the region release (``pv.build_regions``: noisy counts per level, sparse regions pooled, least
    squares, non-negative integers), and the same with every region measured (``pooling="none"``);
(c) independent noisy counts per level without consistency (the noisy counts of the release that
    measures every region).

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


SPATIAL = ("auto", "privtree", "quadtree", "kd-privtree", "hybrid")   # candidates for the best spatial release
PLANNED = "(a) quadtree given the layer"     # workload=layer: budget planned and height deepened for the regions


def errors(xy: np.ndarray, layer, eps: float, runs: int) -> dict[str, list[str]]:
    """Mean absolute error per level for the routes, as table cells: (a) auto and the best spatial
    method per level (named), (b) the region release with and without pooling, (c) independent counts."""
    truth, _ = true_counts(prepare_points(xy, pv.Domain(*layer.bounds()), outside="drop"), layer)
    levels = layer.levels
    err = {name: [] for name in (*SPATIAL, PLANNED, "(b) region release", "(b) every region measured",
                                 "(c) independent")}
    for s in range(runs):
        for m in SPATIAL:
            spatial = pv.build(xy, pv.Domain(*layer.bounds()), m, eps, seed=1000 + s)
            err[m].append(spatial.answer_regions(layer)["estimate"].to_numpy())
        planned = pv.build(xy, pv.Domain(*layer.bounds()), "quadtree", eps, seed=1000 + s, workload=layer)
        err[PLANNED].append(planned.answer_regions(layer)["estimate"].to_numpy())
        region = pv.build_regions(xy, layer, epsilon=eps, seed=2000 + s)
        every = pv.build_regions(xy, layer, epsilon=eps, seed=2000 + s, pooling="none")
        err["(b) region release"].append(region.estimate)
        err["(b) every region measured"].append(every.estimate)
        err["(c) independent"].append(every.noisy)
    mae = {k: np.array([[np.abs(e - truth)[levels == d].mean() for d in range(layer.n_levels)] for e in v]).mean(axis=0)
           for k, v in err.items()}
    best = [min(SPATIAL, key=lambda m: mae[m][d]) for d in range(layer.n_levels)]
    rows = {"(a) spatial auto": [f"{v:.2f}" for v in mae["auto"]],
            "(a) best spatial method": [f"{mae[m][d]:.2f} ({m})" for d, m in enumerate(best)],
            PLANNED: [f"{v:.2f}" for v in mae[PLANNED]]}
    rows.update({k: [f"{v:.2f}" for v in mae[k]] for k in list(err)[len(SPATIAL) + 1:]})
    return rows


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
                lines.append(f"| {label} ({len(xy):,} points) | {eps:g} | {route} | {e[0]} | {e[1]} |")
            print("\n".join(lines[-len(res):]), flush=True)
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
            "of their counties; sparse states pooled: their counties get area shares of a second count), \"every "
            "region measured\" the same with `pooling=\"none\"`, (c) that release's noisy counts before "
            f"consistency, (a) the best of the spatial methods {', '.join(SPATIAL)} for each level (named; an oracle's "
            "choice, in favour of that route) and `auto` answered with "
            "`Release.answer_regions` (area shares of its cells), and the quadtree given the layer as its workload "
            "(`workload=layer`: the budget planned for the regions and the tree deepened until on average at most "
            "half of a region's area lies in leaves its border cuts, within the node cap). The assignment rows time "
            "reading the points onto the resolution-20 grid, drawing the counties' raster (once per layer and grid) "
            "and locating every cell, against a spatial join of every point.", ""]
    publish_section("\n".join(lines[:1] + [""] + head + lines[2:]) + "\n", OUT, write=not a.no_write)
    return 0


if __name__ == "__main__":
    pd.set_option("display.width", 200)
    sys.exit(main())
