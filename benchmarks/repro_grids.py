"""Reproduction of the grid papers' comparisons -> docs/reproduction/grids.md.

(a) Qardaji et al.'s UG size table: the suggested size m = sqrt(N eps / 10) (N declared public, the
    whole epsilon on the cells) against the best m found by sweeping, at eps 0.1 and 1.0, on the
    GeoNames sample (world domain) and on 1M synthetic skewed points. Error: mean relative error
    (floor rho = 0.001 N) over 6 query sizes x 100 queries centred on random data points.
(b) The h-tree paper's outlier finding: relative error of every method in pv.METHODS (plus the
    h-tree variants) on dense skewed data (domain [0,1]^2) and on the same data plus 0.1% outliers
    at the far corner of a 10x and a 100x larger public domain (the Tiger-Syn construction), same
    absolute query sizes; two labelled non-private diagnostics locate why the h-tree loses.
Figures are measured by this script; nothing is edited by hand.
"""
from __future__ import annotations

import contextlib
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import psdviz as pv
from psdviz.io.samples import get_sample, sample_points
from psdviz.lab import synthetic
from psdviz.lab.metrics import relative_error
from psdviz.lab.workloads import centered_queries
from psdviz.methods.ug import ug_size
from psdviz.splits import slicing

OUT = Path(__file__).resolve().parents[1] / "docs" / "reproduction" / "grids.md"
EPSILONS = (0.1, 1.0)
SEEDS = (1, 2)
SWEEP = (8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024)


def workload(pts, dom, fractions, rng, k=100):
    q = np.vstack([centered_queries(pts, dom, f, k, rng) for f in fractions])
    return q, pv.PointIndex(pts).count(q)


def mean_re(rel, q, truth, n):
    return float(relative_error(rel.answer(q), truth, n).mean())


def size_table() -> list[str]:
    rng = np.random.default_rng(0)
    unit = pv.Domain(0, 0, 1, 1)
    sets = [("GeoNames sample", sample_points("geonames"), get_sample("geonames").domain,
             np.geomspace(1e-5, 1e-2, 6)),
            ("synthetic skewed 1M", synthetic.skewed(1_000_000, unit, rng), unit, np.geomspace(1e-4, 1e-1, 6))]
    lines = ["| data | N | epsilon | suggested m | error at suggested | best m | error at best | "
             "sizes within 10% of best |", "|---|---|---|---|---|---|---|---|"]
    for name, pts, dom, fracs in sets:
        q, truth = workload(pts, dom, fracs, rng)
        n = pts.shape[0]
        for eps in EPSILONS:
            sug = ug_size(n, eps)
            grid = sorted(set(SWEEP) | {sug})
            err = {m: np.mean([mean_re(pv.build(pts, dom, "ug", eps, seed=s, grid_size=m), q, truth, n)
                               for s in SEEDS]) for m in grid}
            best = min(err, key=err.get)
            near = [m for m in grid if err[m] <= 1.1 * err[best]]
            lines.append(f"| {name} | {n:,} | {eps} | {sug} | {err[sug]:.3f} | {best} | {err[best]:.3f} | "
                         f"{min(near)}-{max(near)} |")
    return lines


OUTLIER_SCALES = (10, 100)        # public domain side / data side in the outlier settings
EXTRA_ROWS = [("htree", {"variant": "composite"}), ("htree", {"variant": "hybrid"})]


@contextlib.contextmanager
def _nonprivate_quantile(kind: str):
    """DIAGNOSTIC ONLY, NOT DIFFERENTIALLY PRIVATE: swap the h-tree's private quantile
    (:func:`psdviz.splits.quantile.private_quantiles`, as the slicing module calls it) for
    "exact" (the same exponential mechanism with a 1e6-times larger epsilon: splits at the true quantiles)
    or "data" (the exponential mechanism over the range's own data values: run on the keys' ranks, so
    every gap between two consecutive distinct keys gets the same weight whatever empty space lies
    between them, and the split is the first key of the right part; this reveals data values)."""
    original = slicing.private_quantiles

    def exact(rng, keys, offsets, lo, hi, frac, epsilon, *args, **kw):
        return original(rng, keys, offsets, lo, hi, frac, epsilon * 1e6, *args, **kw)

    def data(rng, keys, offsets, lo, hi, frac, epsilon, *args, **kw):
        keys, offsets = np.asarray(keys, np.int64), np.asarray(offsets, np.int64)
        n = np.diff(offsets)
        seg = np.repeat(np.arange(n.size), n)
        ranks = np.arange(keys.size) - offsets[:-1][seg]           # rank space: keys 0 .. n_s - 1
        _, r = original(rng, ranks, offsets, 0, np.maximum(n, 1), frac, epsilon)
        lo_b, hi_b = np.broadcast_to(lo, n.shape), np.broadcast_to(hi, n.shape)
        first_right = keys[np.minimum(offsets[:-1] + r, np.maximum(offsets[1:] - 1, 0))]
        value = np.where((n > 0) & (r < n), first_right, hi_b)
        value = np.clip(np.where(n > 0, value, (lo_b + hi_b) // 2), lo_b, hi_b)
        below = np.array([np.searchsorted(keys[a:b], v) for a, b, v in zip(offsets[:-1], offsets[1:], value)],
                         dtype=np.int64)                            # diagnostic only: a loop is fine
        return value.astype(np.int64), below

    slicing.private_quantiles = exact if kind == "exact" else data
    try:
        yield
    finally:
        slicing.private_quantiles = original


def _settings(rng):
    unit = pv.Domain(0, 0, 1, 1)
    base = synthetic.skewed(200_000, unit, rng)
    out = [("dense (no outliers)", base, unit, np.geomspace(1e-4, 1e-2, 3))]
    for scale in OUTLIER_SCALES:
        big = pv.Domain(0, 0, scale, scale)
        out.append((f"far outliers, domain {scale}x", synthetic.with_outliers(base, big, rng, 0.001, 0.02), big,
                    np.geomspace(1e-4, 1e-2, 3) / scale ** 2))
    return base, out


def _mean_error(pts, dom, q, truth, method, eps, kw, diag=None):
    with (_nonprivate_quantile(diag) if diag else contextlib.nullcontext()):
        return float(np.mean([mean_re(pv.build(pts, dom, method, eps, seed=s, **kw), q, truth, pts.shape[0])
                              for s in SEEDS]))


def _empty_leaf_share(pts, dom, eps, diag=None) -> float:
    """Share of h-tree leaves holding no point (a non-private diagnostic of where the splits fell)."""
    with (_nonprivate_quantile(diag) if diag else contextlib.nullcontext()):
        rel = pv.build(pts, dom, "htree", eps, seed=SEEDS[0])
    leaves = rel.tree.rect[rel.tree.is_leaf]
    return float((pv.PointIndex(pts).count(leaves) == 0).mean())


def outlier_table() -> tuple[list[str], dict, list[str]]:
    rng = np.random.default_rng(1)
    base, sets = _settings(rng)
    cols = [f"{d} eps={e}" for d, *_ in sets for e in EPSILONS]
    lines = ["| method | " + " | ".join(cols) + " |", "|---|" + "---|" * len(cols)]
    work = []
    for _name, pts, dom, fr in sets:
        q, truth = workload(base, dom, fr, rng)  # centred on the main data, same absolute sizes
        work.append((pts, dom, q, pv.PointIndex(pts).count(q)))
    rows = [(m, m, {}, None) for m in pv.METHODS]
    rows += [(f"htree ({kw['variant']})", m, kw, None) for m, kw in EXTRA_ROWS]
    rows += [("htree, exact medians (NOT private)", "htree", {}, "exact"),
             ("htree, EM over the data values (NOT private)", "htree", {}, "data")]
    err = {}
    for label, method, kw, diag in rows:
        cells = []
        for pts, dom, q, truth in work:
            for eps in EPSILONS:
                try:
                    e = _mean_error(pts, dom, q, truth, method, eps, kw, diag)
                    err[label, len(cells)] = e
                    cells.append(f"{e:.3f}")
                except Exception as exc:  # report, do not hide: another engineer's method may be mid-work
                    cells.append(f"error: {type(exc).__name__}")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    diag = ["| h-tree splits | " + " | ".join(cols) + " |", "|---|" + "---|" * len(cols)]
    for label, kind in (("private EM over the region", None), ("EM over the data values (NOT private)", "data")):
        cells = [f"{_empty_leaf_share(pts, dom, eps, kind):.0%}" for pts, dom, _, _ in work for eps in EPSILONS]
        diag.append(f"| {label} | " + " | ".join(cells) + " |")
    return lines, {"cols": cols, "err": err}, diag


def _verdicts(res: dict) -> list[str]:
    """Per outlier column: which of UG, AG and the quadtree each h-tree row beats (computed)."""
    out = []
    rivals = ("ug", "ag", "quadtree")
    for label in ("htree", "htree (composite)", "htree (hybrid)", "htree, EM over the data values (NOT private)"):
        parts = []
        for j, col in enumerate(res["cols"]):
            if not col.startswith("far"):
                continue
            mine = res["err"].get((label, j))
            beaten = [r for r in rivals if mine is not None and (r, j) in res["err"] and mine < res["err"][r, j]]
            parts.append(f"{col}: {', '.join(beaten) if beaten else 'none'}")
        out.append(f"- {label} beats " + "; ".join(parts))
    return out


EXPLANATION = """**Re-check against the paper (code vs paper).** The build follows the paper where it is explicit: size
m = sqrt(N eps_c / c) with c = 3 (Eq. 3, N for W, eps_c the count budget); eps_m = 0.4 eps; every slice
costs eps_m / (2 ceil(log2 m)) (section 4.2.4, Eq. 5); Algorithm 1's recursive slicing with
random(P/2, (P+1)/2) parts on the left, no split below T = 32 points; count budget by the cube-root
rule (section 4.2.3); Algorithm 3's post-processing (as the exact least-squares estimate the text
says it equals). Two readings differ from a literal transcription, both forced by privacy: the T test
uses the expected count from released values instead of the true count, and the exponential mechanism
ranges over the node's *region* (the issue's requirement; the paper only writes EM(A[Split]), with
score -|rank - target|, sensitivity 1).

**What reproduces and what does not.** The paper finds the h-tree immune to far outliers and ahead of the
space-based methods there. Here ht-standard beats UG and the quadtree in the outlier columns (quad-opt's
default height comes from N and epsilon, so on a domain 10-100x wider than the data its cells are coarse
where the data are), but AG only on the widest domain at 0.1, and its own error grows with the domain
(see the verdicts computed above and its row). Why it is not immune: each slice gets only eps_m / (2 ceil(log2 m))
(printed above:
about 0.003 at eps = 0.1 and 0.02-0.03 at eps = 1). The score of a split differs by at most n/2 across a
range of n points, so once n * eps_slice / 4 is of order 1 (n of order 200 points at eps = 1, 1,000 at
eps = 0.1; the strips hold about 1,000 and 3,200 points) the mechanism is close to uniform over the region's *length*.
Algorithm 1
always reaches such ranges (it recurses down to T = 32), so late splits land wherever the region is
long: in empty space. With far outliers the regions are 10x or 100x longer than the data, so even more
splits fall outside the data: many leaves are empty and the data sit in a few large leaves, whose
non-uniformity error dominates (see the empty-leaf shares). The two non-private diagnostic rows locate
the cause: with exact medians the h-tree's error is nearly the same with and without outliers, and with an
exponential mechanism that picks among the data values (gaps between consecutive points weighted
equally, whatever their length), the reading under which the paper's "data-dependent methods are
immune to outliers" holds, the h-tree is again outlier-invariant and beats the space-based methods on
the 100x domain. That mechanism is not differentially private (its output is next to an input value
and its support depends on the data), so psdviz does not offer it; the paper does not state which
mechanism its experiments used. The data-dependent variants with fewer, larger slicing ranges
(composite, hybrid) suffer less. The same cause explains the dense columns: the paper finds AG best
followed by ht-standard; here AG, PrivTree and auto are best and ht-standard is far behind, with a
quarter to two fifths of its leaves empty even without outliers, while exact medians would cut its error
by half or more. Among the private methods here, PrivTree, kd-privtree and the Hilbert R-tree are nearly
outlier-invariant; PrivTree's splits are decided by noisy counts, not by positions drawn over the region.
"""


def _slice_budgets() -> list[str]:
    out = []
    for n, eps in ((200_000, 0.1), (200_000, 1.0)):
        rel = pv.build(synthetic.skewed(n, pv.Domain(0, 0, 1, 1), np.random.default_rng(0)), pv.Domain(0, 0, 1, 1),
                       "htree", eps, seed=1)
        out.append(f"N = {n:,}, eps = {eps}: m = {rel.params['size']}, {rel.params['planned_rounds']} planned "
                   f"slicing rounds, eps per slice = {rel.params['slice_epsilon']:.4f}, "
                   f"{rel.params['leaves']:,} leaves")
    return out


def main() -> None:
    t = time.time()
    a = size_table()
    b, res, diag = outlier_table()
    text = ["## Grids and shallow trees", "",
            "Produced by `benchmarks/repro_grids.py`; mean relative error with floor rho = 0.001 N, "
            f"seeds {SEEDS} averaged (seeded runs, for reproducibility).", "",
            "### (a) Uniform grid: suggested size sqrt(N eps / 10) vs best size by sweeping", "",
            "Queries: 6 sizes (area fractions log-spaced) x 100, centred on random data points. "
            f"Sweep: {', '.join(map(str, SWEEP))} plus the suggested size. N declared public.", "", *a, "",
            "Qardaji et al. (slides) report e.g. road 1.6M: suggested 126 / best 48-128 at eps 0.1 and "
            "400 / 96-192 at eps 1.0; checkin 1M: 100 / 64-128 and 316 / 192-384.", "",
            "### (b) Far outliers (h-tree paper, Tiger-Syn construction)", "",
            "200,000 skewed points in [0,1]^2. Dense: public domain [0,1]^2. With outliers: 0.1% extra points "
            "in the top-right 2% corner of the public domain [0,S]^2, S = "
            f"{' or '.join(map(str, OUTLIER_SCALES))} (the paper adds outliers at (180, -90); if its Tiger set "
            "spans New Mexico and Washington, our reading of \"NMWA\", the data's bounding box then covers about 1% "
            "of the domain's area, as with S = 10). Queries: 3 sizes x 100 centred on the "
            "main data, same absolute sizes in every setting. Default parameters of every method "
            "(N estimated with 5% of epsilon where a method needs it). The last two rows are diagnostics that "
            "break privacy, never offered by psdviz.", "", *b, "",
            "Computed from the table (lower error than the rival, outlier columns):", "", *_verdicts(res), "",
            "Share of h-tree leaves (ht-standard, seed 1) that hold no point (non-private diagnostic):", "",
            *diag, "", "Slicing budget of ht-standard on the dense set: " + "; ".join(_slice_budgets()) + ".", "",
            EXPLANATION,
            f"(script run time {time.time() - t:.0f} s)", ""]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text("\n".join(text))
    print("\n".join(text))


if __name__ == "__main__":
    main()
