"""The evidence behind ``method="auto"``'s rule: synthetic families, not DPBench files.

Every family is generated on the DPBench domain [0, 256)^2 and scored on the DPBench protocol
(the 200 queries of ``bench_dpbench.queries()``, resolution 8, MRE with rho = 0.001 N). Families:
uniform; gaussian mixtures (k clusters, spread); mixtures with far outliers; zero-inflated pairs
(an atom cell, lines through it, a uniform rest: tabular data such as ADULT-2D), and the same without
the rest (mutually exclusive attributes: every point on a line through the atom). For each (family,
N, epsilon) the script reports the exact facts auto estimates with noise (spread; the largest corner
cell's share of N, of which auto reads a lower bound), the largest cell's share (for the reader), the
MRE of PrivTree, AG, the kd-tree (build pruning), kd-privtree, the hybrid kd-tree with NNLS (its build's
stop at two noise sds, as auto's corner rows build it), the quadtree and auto itself, the method the rule
picks on the exact facts, and auto / best. It writes docs/reproduction/auto_rule.md.

    python benchmarks/bench_auto_rule.py              # N = 3k, 10k, 30k, 300k; 10 runs (about 7 min, 2 cores)
    python benchmarks/bench_auto_rule.py --large      # also N = 2M
    python benchmarks/bench_auto_rule.py --resolution 20   # psdviz's default grid -> auto_rule_res20.md
"""
from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

import numpy as np

import psdviz as pv
from psdviz.lab.dpbench import histogram_truth
from psdviz.lab.metrics import relative_error
from psdviz.lab.synthetic import gaussian_mixture, uniform, with_outliers, zero_inflated
from psdviz.methods.auto import FEATURE_FRACTION, NNLS_STOP_SDS, RULES, Facts, choose, uniform_occupancy

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_dpbench import DOMAIN, RESOLUTION, method_spec, queries
from reproduction import publish_section

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "reproduction" / "auto_rule.md"
METHODS = ("privtree", "ag", "kdtree", "kd-privtree", "hybrid+nnls", "quadtree", "auto")
CANDIDATES = tuple(m for m in METHODS if m != "auto")
COARSE = "hybrid+nnls/256"     # the hybrid splitting on the 256 x 256 grid first: a candidate when the grid is finer
CORNER_TREES = ("hybrid+nnls", COARSE)   # built as auto's corner rows build them (the stop at NNLS_STOP_SDS)
ZERO_INFLATED = ((0.87, 0.12, True), (0.8, 0.18, False), (0.6, 0.35, False), (0.3, 0.6, True),   # atom, lines,
                 (0.87, 0.13, True), (0.6, 0.4, True), (0.8, 0.2, False))                    # in a corner


def methods(resolution: int) -> tuple[str, ...]:
    return METHODS if resolution <= 8 else (*CANDIDATES, COARSE, "auto")


def candidates(resolution: int) -> tuple[str, ...]:
    return tuple(m for m in methods(resolution) if m != "auto")
EPSILONS = (0.1, 1.0)


def families(n: int, rng: np.random.Generator) -> list[tuple[str, np.ndarray]]:
    sets = [("uniform", uniform(n, DOMAIN, rng))]
    sets += [(f"mixture k={k} spread={sp}", gaussian_mixture(n, DOMAIN, rng, k=k, spread=sp))
             for k, sp in ((3, 0.02), (5, 0.05), (10, 0.05), (5, 0.15), (3, 0.3))]
    sets.append(("mixture + outliers", with_outliers(gaussian_mixture(n, DOMAIN, rng), DOMAIN, rng)))
    sets += [(f"zero-inflated atom={a} lines={ln}{' corner' if c else ''}", zero_inflated(n, DOMAIN, rng, a, ln, c))
             for a, ln, c in ZERO_INFLATED]
    return sets


def histogram(pts: np.ndarray) -> np.ndarray:
    return np.histogram2d(pts[:, 0], pts[:, 1], bins=256, range=[[0, 256], [0, 256]])[0]


def spread(h: np.ndarray) -> float:
    return float((h > 0).sum() / uniform_occupancy(h.sum(), h.size))


def top_share(h: np.ndarray) -> float:
    return float(h.max() / h.sum())


def corner_share(h: np.ndarray) -> float:
    return float(h[[0, 0, -1, -1], [0, -1, 0, -1]].max() / h.sum())


def position_share(pts: np.ndarray, resolution: int) -> float:
    """The share of N at the fullest corner position of the release grid (its cells of 256 / 2^resolution
    per side; at resolution 8 the 256 x 256 grid's corner cells themselves)."""
    w = DOMAIN.width / 2 ** resolution
    lo, hi = pts < w, pts >= DOMAIN.width - w
    at = [(a[:, 0] & b[:, 1]).sum() for a in (lo, hi) for b in (lo, hi)]
    return float(max(at) / len(pts))


def score(pts: np.ndarray, h: np.ndarray, method: str, eps: float, runs: int, q: np.ndarray,
          resolution: int = RESOLUTION) -> tuple[float, float]:
    """Mean and median over the runs of the MRE of ``method``."""
    t = histogram_truth(h, q)
    name, extra = method_spec(method)
    if method in CORNER_TREES:
        extra = {**extra, "stop_sds": NNLS_STOP_SDS}
    errs = [np.mean(relative_error(pv.build(pts, DOMAIN, name, eps, seed=100 + r, resolution=resolution,
                                            **extra).answer(q),
                                   t, h.sum())) for r in range(runs)]
    return float(np.mean(errs)), float(np.median(errs))


def rows(sizes: list[int], runs: int, resolution: int = RESOLUTION) -> list[dict]:
    q, out = queries(), []
    for n in sizes:
        for label, pts in families(n, np.random.default_rng(n)):
            h = histogram(pts)
            sp, top, corner = spread(h), top_share(h), corner_share(h)
            fine = position_share(pts, resolution) if resolution > 8 else corner
            for eps in EPSILONS:
                both = {m: score(pts, h, m, eps, runs, q, resolution) for m in methods(resolution)}
                mre, med = ({m: v[i] for m, v in both.items()} for i in (0, 1))
                rule = choose(Facts(eps, resolution, float(n), sp, corner_share=fine, coarse_corner_share=corner))
                best = min(candidates(resolution), key=mre.get)
                out.append({"family": label, "n": n, "eps": eps, "spread": sp, "top": top, "corner": corner,
                            "position": fine,
                            "mre": mre, "median": med, "rule": rule,
                            "pick": rule.label, "best": best,
                            "regret_median": med["auto"] / min(med[m] for m in candidates(resolution))})
                print(f"{label:40s} N={n:<8,} eps {eps:<4g} spread {sp:.3f} top {top:.3f} corner {corner:.3f} "
                      + " ".join(f"{m} {v:.4f}" for m, v in mre.items()) + f"  pick {rule.label}", flush=True)
    return out


def summary(res: list[dict], cands: tuple[str, ...]) -> list[str]:
    """Per rule row: how the row's method compares with each other candidate (median ratio, cells it wins),
    which candidate is best how often, and auto's regret against the best."""
    lines = ["| rule row (exact facts) | cells | row's method / other: median (cells it wins) | best (cells) | "
             "auto / best: median (max) | the same from the runs' medians |", "|---|---:|---|---|---:|---:|"]
    for rule in RULES:
        cells = [r for r in res if r["rule"] is rule]
        if not cells:
            continue
        vs = []
        for other in cands:
            if other != rule.label:
                ratio = [r["mre"][rule.label] / r["mre"][other] for r in cells]
                vs.append(f"{other} {np.median(ratio):.2f} ({sum(x < 1 for x in ratio)})")
        best = ", ".join(f"{m} {sum(r['best'] == m for r in cells)}" for m in cands)
        regret = [r["mre"]["auto"] / r["mre"][r["best"]] for r in cells]
        by_median = [r["regret_median"] for r in cells]
        lines.append(f"| {rule.when} -> {rule.label} | {len(cells)} | {'; '.join(vs)} | {best} | "
                     f"{np.median(regret):.2f} ({max(regret):.2f}) | {np.median(by_median):.2f} "
                     f"({max(by_median):.2f}) |")
    return lines


def table(res: list[dict], names: tuple[str, ...]) -> list[str]:
    head = ("| family | N | eps | spread | largest cell | corner cell | corner position | " + " | ".join(names)
            + " | rule picks | auto / best | by medians |")
    lines = [head, "|---|---:|---:|---:|---:|---:|---:|" + "---:|" * len(names) + "---|---:|---:|"]
    for r in res:
        cells = " | ".join(f"**{r['mre'][m]:.4f}**" if m == r["best"] else f"{r['mre'][m]:.4f}" for m in names)
        lines.append(f"| {r['family']} | {r['n']:,} | {r['eps']:g} | {r['spread']:.3f} | {r['top']:.3f} | "
                     f"{r['corner']:.3f} | {r['position']:.3f} | {cells} | {r['pick']} | "
                     f"{r['mre']['auto'] / r['mre'][r['best']]:.2f} | {r['regret_median']:.2f} |")
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--large", action="store_true", help="also N = 2,000,000")
    ap.add_argument("--sizes", type=int, nargs="*", default=[3_000, 10_000, 30_000, 300_000],
                    help="N of every family (10,000 adds N eps = 10^3 and 10^4 between the others)")
    ap.add_argument("--resolution", type=int, default=RESOLUTION,
                    help="bits per axis of the release grid (default 8, the families' precision; 20 is psdviz's "
                         "default, where the points are spread inside their 256-grid cells as the protocol places "
                         "them)")
    ap.add_argument("--no-write", action="store_true")
    a = ap.parse_args()
    sizes = a.sizes + ([2_000_000] if a.large else [])
    t0 = time.perf_counter()
    res = rows(sizes, a.runs, a.resolution)
    machine = (f"{platform.processor() or platform.machine()}, Python {platform.python_version()}, "
               f"numpy {np.__version__}")
    at = "" if a.resolution == RESOLUTION else f" at resolution {a.resolution}"
    flag = "" if a.resolution == RESOLUTION else f" --resolution {a.resolution}"
    text = "\n".join([
        f"## The auto rule on synthetic families{at}", "",
        f"_Generated by `python benchmarks/bench_auto_rule.py{' --large' if a.large else ''}{flag} --runs {a.runs}` "
        f"({machine}; {time.perf_counter() - t0:.0f} s); do not edit by hand._ DPBench protocol (200 queries, "
        f"resolution {a.resolution}, MRE), {a.runs} runs per cell; best of {', '.join(candidates(a.resolution))} in "
        "bold (hybrid+nnls/256: the hybrid with NNLS splitting on the 256 x 256 grid first, split_grid=256; both "
        f"hybrid columns with the build's stop at {NNLS_STOP_SDS:g} noise sds, as auto's corner rows build them). "
        "'largest cell' is the share of N in the fullest cell of the 256 x 256 grid, 'corner cell' in the "
        "fullest of its four corner cells, 'corner position' in the fullest corner cell of the release grid (the "
        "same cells at resolution 8; at finer resolutions the points, placed uniformly inside their 256-grid "
        "cells, rarely fill it). 'rule picks' applies "
        "`psdviz.methods.auto.RULES` to the exact facts; the auto column is the real method, which reads noisy "
        f"facts and spends {FEATURE_FRACTION:.0%} of epsilon on them. The cells show each method's mean MRE over "
        "the runs; 'by medians' is auto's median over the runs against the smallest candidate median, a view "
        "less moved by the few runs whose error is many times the others'.", "",
        "#### Summary by rule row", "", *summary(res, candidates(a.resolution)), "", "#### Every cell", "",
        *table(res, methods(a.resolution)), ""])
    out = OUT if a.resolution == RESOLUTION else OUT.with_name(f"auto_rule_res{a.resolution}.md")
    publish_section(text, out, not a.no_write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
