"""Reproduce ICDE'12 Figure 3 (quadtree budget and post-processing) on the GeoNames sample.

Cormode et al., "Differentially Private Spatial Decompositions", ICDE 2012, section 8.2, Figure 3:
quad-baseline (uniform budget, no post-processing), quad-geo (geometric budget, Lemma 3),
quad-post (uniform budget + OLS, section 5) and quad-opt (geometric + OLS), all of height h = 10,
at epsilon 0.1, 0.5, 1.0; median relative error over 600 non-empty queries per shape. The paper
reports each optimisation helping and quad-opt up to ~10x better than the baseline at epsilon 0.1.

Our setting (readings of the paper where it is not specific):
- data: sample_data/geonames_places.csv.gz (144,563 world populated places), public domain the
  world [-180, 180] x [-90, 90] (the paper: 1.63M TIGER road intersections in
  [-124.82, -103.00] x [31.33, 49.00], i.e. 21.82 x 17.67 degrees);
- query shapes: the paper's (1, 1), (10, 10), (15, 0.2) degree shapes scaled per axis by
  360 / 21.82 and 180 / 17.67, so each query covers the same share of the domain width and height
  (and so of the quadtree's cells) as in the paper;
- relative error |est - true| / max(true, rho), rho = 0.001 N (Qardaji et al.; the ICDE'12 paper
  does not state its floor);
- one fixed workload per shape (600 queries with a non-zero true count, placed uniformly in the
  domain), shared by all methods, epsilons and repetitions; no pruning (Figure 3 has none);
- ``--reps`` independent noise draws (seeds 0..reps-1) per cell of the table; the table reports
  the mean over repetitions of the median relative error (and its min-max range).

Writes docs/reproduction/quadtree.md, quadtree_fig3.json (plotly figure) and quadtree_fig3.html
(loads plotly.js from the CDN). Run: ``python benchmarks/repro_quadtree.py [--reps 5]``.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import psdviz as pv  # noqa: E402
from psdviz.io.samples import SAMPLES, sample_points  # noqa: E402
from psdviz.lab.metrics import relative_error  # noqa: E402
from psdviz.lab.workloads import nonempty, shape_queries  # noqa: E402
from psdviz.query.truth import PointIndex  # noqa: E402

OUT = ROOT / "docs" / "reproduction"
HEIGHT = 10
EPSILONS = (0.1, 0.5, 1.0)
PAPER_DOMAIN = (21.82, 17.67)          # width, height in degrees of the paper's TIGER domain
PAPER_SHAPES = ((1.0, 1.0), (10.0, 10.0), (15.0, 0.2))
VARIANTS = {                            # name -> (budget, postprocess)
    "quad-baseline": ("uniform", False),
    "quad-geo": ("geometric", False),
    "quad-post": ("uniform", True),
    "quad-opt": ("geometric", True),
}


def scaled_shapes(domain: pv.Domain) -> list[tuple[str, float, float]]:
    sx, sy = domain.width / PAPER_DOMAIN[0], domain.height / PAPER_DOMAIN[1]
    return [(f"({w:g}, {h:g})", w * sx, h * sy) for w, h in PAPER_SHAPES]


def unscaled_shapes() -> list[tuple[str, float, float]]:
    """The paper's shapes taken literally in degrees (a secondary reading, reported apart)."""
    return [(f"({w:g}, {h:g}) deg", w, h) for w, h in PAPER_SHAPES]


def workloads(xy: np.ndarray, domain: pv.Domain, k: int, seed: int) -> dict:
    index = PointIndex(xy)
    rng = np.random.default_rng(seed)
    out = {}
    for label, w, h in scaled_shapes(domain) + unscaled_shapes():
        rects, truth = nonempty(lambda m, w=w, h=h: shape_queries(domain, w, h, m, rng), index, k)
        out[label] = (w, h, rects, truth)
    return out


def run(xy, domain, loads, reps: int) -> dict:
    """errors[(variant, eps, shape)] = list of median relative errors, one per repetition."""
    n = xy.shape[0]
    errors: dict = {}
    for eps in EPSILONS:
        for name, (budget, post) in VARIANTS.items():
            for seed in range(reps):
                rel = pv.build(xy, domain, "quadtree", eps, seed=seed, height=HEIGHT, prune=None,
                               budget=budget, postprocess=post)
                for label, (_, _, rects, truth) in loads.items():
                    med = float(np.median(relative_error(rel.answer(rects), truth, n)))
                    errors.setdefault((name, eps, label), []).append(med)
    return errors


def noise_std(xy, domain, loads, shapes: list[str], k: int = 100, eps: float = 0.1) -> dict:
    """Median over the first k queries of the exact noise standard deviation of each variant's
    answers (Release.answer_variance: noise only, no uniformity error), at one epsilon."""
    out = {}
    for name, (budget, post) in VARIANTS.items():
        rel = pv.build(xy, domain, "quadtree", eps, seed=0, height=HEIGHT, budget=budget, postprocess=post, prune=None)
        for s in shapes:
            out[(name, s)] = float(np.median(np.sqrt(rel.answer_variance(loads[s][2][:k]))))
    return out


def noise_table(std: dict, shapes: list[str], errors: dict, eps: float = 0.1) -> list[str]:
    lines = ["| query (paper degrees) | " + " | ".join(VARIANTS) + " | std ratio baseline / opt | "
             "measured error ratio |", "|---|" + "---:|" * (len(VARIANTS) + 2)]
    for s in shapes:
        measured = np.mean(errors[("quad-baseline", eps, s)]) / np.mean(errors[("quad-opt", eps, s)])
        lines.append(f"| {s} | " + " | ".join(f"{std[(n, s)]:,.0f}" for n in VARIANTS)
                     + f" | {std[('quad-baseline', s)] / std[('quad-opt', s)]:.1f}x | {measured:.1f}x |")
    return lines


def explains(std: dict, errors: dict, shapes: list[str], eps: float = 0.1) -> str:
    """Generated sentence: does the noise-only std ratio match the measured error ratio?"""
    close = all(abs(np.log((std[("quad-baseline", s)] / std[("quad-opt", s)])
                           / (np.mean(errors[("quad-baseline", eps, s)]) / np.mean(errors[("quad-opt", eps, s)]))))
                < np.log(1.25) for s in shapes)
    if close:
        return ("matches the measured error ratio within 25% for every shape: the count noise dominates "
                "the error here, and every variant's noise scales as 1/epsilon, so the ratio cannot grow "
                "as epsilon shrinks.")
    return "differs from the measured error ratio by more than 25% for some shape (see the table)."


def table(errors: dict, shapes: list[str]) -> list[str]:
    lines = ["| epsilon | query (paper degrees) | " + " | ".join(VARIANTS) + " | baseline / opt |",
             "|---|---|" + "---:|" * (len(VARIANTS) + 1)]
    for eps in EPSILONS:
        for s in shapes:
            cells = []
            for name in VARIANTS:
                e = np.array(errors[(name, eps, s)])
                cells.append(f"{e.mean():.4f} ({e.min():.4f}-{e.max():.4f})")
            ratio = np.mean(errors[("quad-baseline", eps, s)]) / np.mean(errors[("quad-opt", eps, s)])
            lines.append(f"| {eps:g} | {s} | " + " | ".join(cells) + f" | {ratio:.1f}x |")
    return lines


def figure(errors: dict, shapes: list[str]):
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    fig = make_subplots(rows=1, cols=len(EPSILONS), shared_yaxes=True,
                        subplot_titles=[f"epsilon = {e:g}" for e in EPSILONS])
    colors = dict(zip(VARIANTS, ("#7f7f7f", "#1f77b4", "#ff7f0e", "#2ca02c")))
    for c, eps in enumerate(EPSILONS, start=1):
        for name in VARIANTS:
            vals = [float(np.mean(errors[(name, eps, s)])) for s in shapes]
            fig.add_trace(go.Bar(x=shapes, y=vals, name=name, marker_color=colors[name],
                                 legendgroup=name, showlegend=c == 1), row=1, col=c)
    fig.update_yaxes(type="log", title_text="median relative error", row=1, col=1)
    fig.update_layout(barmode="group", height=420, width=1100,
                      title=f"ICDE'12 Figure 3 on GeoNames: quadtree h = {HEIGHT}, budget and OLS")
    return fig


def main() -> None:
    ap = argparse.ArgumentParser(description="ICDE'12 Figure 3 on the GeoNames sample")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--queries", type=int, default=600)
    ap.add_argument("--workload-seed", type=int, default=2012)
    a = ap.parse_args()
    t0 = time.perf_counter()
    sample = SAMPLES["geonames"]
    xy, domain = sample_points("geonames"), sample.domain
    loads = workloads(xy, domain, a.queries, a.workload_seed)
    shapes = [s for s, _, _ in scaled_shapes(domain)]
    literal = [s for s, _, _ in unscaled_shapes()]
    errors = run(xy, domain, loads, a.reps)
    std = noise_std(xy, domain, loads, shapes)
    elapsed = time.perf_counter() - t0

    OUT.mkdir(parents=True, exist_ok=True)
    fig = figure(errors, shapes)
    fig.write_json(OUT / "quadtree_fig3.json")
    fig.write_html(OUT / "quadtree_fig3.html", include_plotlyjs="cdn", full_html=True)
    opt_wins = {eps: np.mean([np.mean(errors[("quad-baseline", eps, s)]) / np.mean(errors[("quad-opt", eps, s)])
                              for s in shapes]) for eps in EPSILONS}
    best01 = max(np.mean(errors[("quad-baseline", 0.1, s)]) / np.mean(errors[("quad-opt", 0.1, s)]) for s in shapes)
    shape_rows = [f"| {s} | {w:.2f} x {h:.2f} | {np.median(t):.0f} | {t.min()} - {t.max()} |"
                  for s, (w, h, _, t) in loads.items()]
    def ratio(e: float) -> float:
        return float(np.mean([np.mean(errors[("quad-baseline", e, s)]) / np.mean(errors[("quad-opt", e, s)])
                              for s in literal]))
    literal_ratio = ", ".join(f"{ratio(e):.1f}x at epsilon {e:g}" for e in EPSILONS)
    md = [
        "## Private quadtree: budget and post-processing (ICDE'12 Figure 3)",
        "",
        f"Produced by `benchmarks/repro_quadtree.py --reps {a.reps} --queries {a.queries}` "
        f"({elapsed:.0f} s on {os.cpu_count()} shared cores). Data: the GeoNames sample, "
        f"N = {xy.shape[0]:,} world populated places, public domain the world. All four trees have "
        f"height h = {HEIGHT} (as in the paper), no pruning. Each cell: mean over {a.reps} seeded noise "
        f"draws of the median relative error over {a.queries} non-empty queries "
        f"(min-max over the draws in brackets); relative error = |est - true| / max(true, 0.001 N).",
        "",
        "Query shapes: the paper's degree shapes on its 21.82 x 17.67 degree TIGER domain, scaled per axis "
        "to the world (x 360/21.82 in longitude, x 180/17.67 in latitude), so a query covers the same "
        "share of the domain and of the quadtree cells as in the paper. One fixed workload per shape:",
        "",
        "| paper shape (deg) | our shape (lon x lat deg) | median true count | true count range |",
        "|---|---|---:|---:|",
        *shape_rows,
        "",
        *table(errors, shapes),
        "",
        "Figure: [quadtree_fig3.html](quadtree_fig3.html) (plotly; JSON in "
        "[quadtree_fig3.json](quadtree_fig3.json)).",
        "",
        "**Finding.** " + summary(errors, shapes, opt_wins, best01),
        "",
        "**Why this ratio.** The exact noise standard deviation of the answers (from "
        "`Release.answer_variance`, seed 0, epsilon 0.1, median over the first 100 queries of each "
        f"shape; the uniformity error is not part of it) {explains(std, errors, shapes)}",
        "",
        *noise_table(std, shapes, errors),
        "",
        "### Secondary reading: the paper's shapes taken literally in degrees",
        "",
        "The same trees queried with (1, 1), (10, 10) and (15, 0.2) degree rectangles on the world "
        "(far smaller shares of the domain than in the paper, so the floor rho = 0.001 N dominates "
        "many small true counts):",
        "",
        *table(errors, literal),
        "",
        f"Baseline/opt ratio averaged over these shapes: {literal_ratio}.",
        "",
    ]
    (OUT / "quadtree.md").write_text("\n".join(md))
    print("\n".join(md))


def summary(errors: dict, shapes: list[str], opt_wins: dict, best01: float) -> str:
    """A plain statement generated from the numbers (no hand-edited claims)."""
    def m(name, eps, s):
        return np.mean(errors[(name, eps, s)])
    cells = [(eps, s) for eps in EPSILONS for s in shapes]
    geo = sum(m("quad-geo", e, s) < m("quad-baseline", e, s) for e, s in cells)
    post = sum(m("quad-post", e, s) < m("quad-baseline", e, s) for e, s in cells)
    opt = sum(m("quad-opt", e, s) <= min(m(v, e, s) for v in VARIANTS) for e, s in cells)
    ratios = ", ".join(f"{opt_wins[e]:.1f}x at epsilon {e:g}" for e in EPSILONS)
    verdict = ("so the paper's 'up to an order of magnitude' at epsilon 0.1 is reproduced"
               if best01 >= 8 else "so the paper's 'up to an order of magnitude' at epsilon 0.1 is "
               "not fully reached here" if best01 < 8 else "")
    return (f"quad-geo beats the baseline in {geo}/{len(cells)} (epsilon, shape) cells, quad-post in "
            f"{post}/{len(cells)}, and quad-opt is the best of the four in {opt}/{len(cells)}. The "
            f"baseline/opt error ratio averaged over the three shapes is {ratios}; the largest ratio at "
            f"epsilon 0.1 is {best01:.1f}x, {verdict}.")


if __name__ == "__main__":
    main()
