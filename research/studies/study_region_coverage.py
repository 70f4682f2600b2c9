"""Do the app's intervals hold the true counts? Regions of the planned spatial release, and rectangles.

A spatial release planned for a region layer (``pv.build(..., "quadtree", workload=layer)``) answers each
region by area shares of its cells (``Release.answer_regions``). Its ``standard_error`` is the exact
noise; ``uniformity_error`` models the cells the region's border cuts (psdviz/query/uniformity.py). This
prints, per bundled layer, epsilon, seed and level, the share of regions whose true count lies inside
estimate +- 1.96 x the noise alone and +- 1.96 x the noise and the model together, and the median of
|error| over each, on the GeoNames sample (the app's bundled points). Then the same for 300 random
rectangles on the world domain (``answer``, ``answer_variance``, ``answer_uniformity_error``) for every
spatial method with its defaults, one seed.

``--dpbench`` runs the rectangles on the DPBench files instead (the five at ../shared/dpbench and the
synthetic set, placed as the protocol places them; rectangles with corners anywhere, 1/720 to 1/9 of the
side): the share inside each interval and, to isolate the model from the noise, the mean square of the cut
cells' true error (the leaves' true counts spread by area, less the rectangle's true count) over the model's
variance, 1 where the model is right (not for the Hilbert R-tree, whose boxes overlap).

    python research/studies/study_region_coverage.py [--seeds 2]          # about 2 minutes on 2 cores
    python research/studies/study_region_coverage.py --dpbench [--seeds 2] [--methods ...]    # 11 minutes
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

import psdviz as pv
from psdviz import regions as rg
from psdviz.core.domain import prepare_points
from psdviz.io.samples import sample_points
from psdviz.query.decompose import decompose
from psdviz.regions.build import true_counts

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))    # the lab the studies build on
sys.path.insert(0, str(Path(__file__).resolve().parent))                       # the other studies
from bench_dpbench import FILES, SYNTH, load_hist, place

LAYERS = {"US states > counties": rg.us_counties, "World countries": rg.world_countries}
Z95 = 1.96


def rows(xy: np.ndarray, layer: rg.Regions, eps: float, seed: int) -> list[tuple]:
    """(level, regions, coverage with the noise, coverage with both, median |error| / noise, / both)."""
    dom = pv.Domain(*layer.bounds())
    truth = true_counts(prepare_points(xy, dom, outside="drop", nonfinite="drop"), layer)[0]
    rel = pv.build(xy, dom, "quadtree", eps, seed=seed, workload=layer, outside="drop", nonfinite="drop")
    out = rel.answer_regions(layer)
    err = np.abs(out["estimate"].to_numpy() - truth)
    noise = out["standard_error"].to_numpy()
    both = np.hypot(noise, out["uniformity_error"].to_numpy())
    level = out["level"].to_numpy()
    return [(lv, int(m.sum()), (err[m] <= Z95 * noise[m]).mean(), (err[m] <= Z95 * both[m]).mean(),
             np.median(err[m] / noise[m]), np.median(err[m] / both[m]))
            for lv in np.unique(level) for m in [level == lv]]


def rectangle_rows(xy: np.ndarray, eps: float, k: int = 300) -> list[tuple]:
    """(method, coverage with the noise, coverage with both, median |error| / both) on k random rectangles."""
    dom = pv.Domain(-180.0, -90.0, 180.0, 90.0)
    rng = np.random.default_rng(0)
    lo = np.column_stack([rng.uniform(-180, 170, k), rng.uniform(-90, 80, k)])
    q = np.column_stack([lo, np.minimum(lo + rng.uniform(0.5, 40, (k, 2)), [180, 90])])
    truth = pv.PointIndex(xy).count(q)
    out = []
    for m in RECT_METHODS:
        rel = pv.build(xy, dom, m, eps, seed=1)
        err = np.abs(rel.answer(q) - truth)
        noise = np.sqrt(rel.answer_variance(q))
        both = np.hypot(noise, rel.answer_uniformity_error(q))
        out.append((m, (err <= Z95 * noise).mean(), (err <= Z95 * both).mean(), np.median(err / both)))
    return out


def cut_error_ratio(rel, q: np.ndarray, index: pv.PointIndex) -> float:
    """Mean square over the rectangles of (the cut leaves' true counts spread by area - the true count in the
    cut parts) over the modelled variance, where the model is not 0."""
    t = rel.tree
    qi, v, c = decompose(t, q, np.isfinite(rel._values()))
    cut = c < 1
    qi, v, c = qi[cut], v[cut], c[cut]
    leaf = t.rect[v]
    part = np.column_stack([np.maximum(leaf[:, :2], q[qi, :2]), np.minimum(leaf[:, 2:], q[qi, 2:])])
    err = np.bincount(qi, weights=c * index.count(leaf) - index.count(part), minlength=q.shape[0])
    model = rel.answer_uniformity_error(q)
    ok = model > 0
    return float(np.mean((err[ok] / model[ok]) ** 2))


def dpbench_rows(seeds: int, methods: tuple[str, ...]) -> list[str]:
    """Per file, epsilon and method, over the seeds: inside the noise interval, inside the combined one,
    and the cut-error ratio of :func:`cut_error_ratio`."""
    out = []
    for name in (*FILES, SYNTH):
        hist = load_hist(name)
        rng = np.random.default_rng(0)
        lo = rng.uniform(0, 256 - 256 / 36, (300, 2))
        q = np.column_stack([lo, np.minimum(lo + rng.uniform(256 / 720, 256 / 9, (300, 2)), 256)])
        for eps in (1.0, 0.1):
            for m in methods:
                figs = []
                for seed in range(seeds):
                    xy = place(hist, np.random.default_rng(1000 + seed))
                    index = pv.PointIndex(xy)
                    rel = pv.build(xy, pv.Domain(0, 0, 256, 256), m, eps, seed=seed)
                    err = np.abs(rel.answer(q) - index.count(q))
                    noise = np.sqrt(rel.answer_variance(q))
                    both = np.hypot(noise, rel.answer_uniformity_error(q))
                    figs.append(((err <= Z95 * noise).mean(), (err <= Z95 * both).mean(),
                                 np.nan if m == "hilbert" else cut_error_ratio(rel, q, index)))
                f = np.mean(figs, axis=0)
                ratio = "-" if m == "hilbert" else f"{f[2]:.2f}"
                out.append(f"| {name} | {eps:g} | {m} | {f[0]:.2f} | {f[1]:.2f} | {ratio} |")
                print(out[-1], flush=True)
    return out


RECT_METHODS = ("auto", "quadtree", "privtree", "kdtree", "hybrid", "ug", "ag", "htree", "hilbert")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--dpbench", action="store_true", help="rectangles on the DPBench files instead")
    ap.add_argument("--methods", nargs="+", default=list(RECT_METHODS), help="with --dpbench: these methods only")
    a = ap.parse_args()
    t0 = time.time()
    if a.dpbench:
        lines = dpbench_rows(a.seeds, tuple(a.methods))
        print(f"\nDPBench files, 300 random rectangles, {a.seeds} seeds ({time.time() - t0:.0f} s)\n")
        print("| file | eps | method | inside, noise only | inside, noise and model | cut error / model, mean square |")
        print("|---|---:|---|---:|---:|---:|")
        print("\n".join(lines))
        return 0
    xy = sample_points("geonames")
    lines = ["| layer | eps | seed | level | regions | inside, noise only | inside, noise and model | "
             "median abs error / noise | / both |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name, make in LAYERS.items():
        layer = make()
        for eps in (1.0, 0.1):
            for seed in range(a.seeds):
                for lv, k, *figures in rows(xy, layer, eps, seed):
                    cells = " | ".join(f"{f:.2f}" for f in figures)
                    lines.append(f"| {name} | {eps:g} | {seed} | {lv} | {k} | {cells} |")
    print(f"GeoNames sample, quadtree planned for the layer, 95 % intervals ({time.time() - t0:.0f} s)\n")
    print("\n".join(lines))
    lines = ["| method | eps | inside, noise only | inside, noise and model | median abs error / both |",
             "|---|---:|---:|---:|---:|"]
    for eps in (1.0, 0.1):
        lines += [f"| {m} | {eps:g} | {c1:.2f} | {c2:.2f} | {m2:.2f} |" for m, c1, c2, m2 in rectangle_rows(xy, eps)]
    print(f"\nGeoNames sample, 300 random rectangles on the world domain ({time.time() - t0:.0f} s)\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
