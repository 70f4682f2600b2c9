"""Reproduce the synthetic setting of ICDT'12 section 4 (sparse data) -> docs/reproduction/sparse.md.

Section 4.1/4.3: m = 10^6 cells, density 0.1 (n = 10^5 non-zero at uniform positions), non-zero
values ~ N(100, 20) rounded to positive integers, epsilon = 0.1, summaries of size 10^5: two-sided
filter theta = 50, priority sampling s = 10^5, filter-priority theta = 40 and s = 10^5, threshold
sampling with tau from the target size (appendix C.2), and the full geometric mechanism (all m
noisy cells) as the baseline. Errors are absolute errors |estimate - truth| of subset queries
(random sets of R cells) and range queries (R consecutive cells), averaged over queries and
seeded trials; the median relative error is reported too. Also Figure 2(a) (filter threshold
sweep), Figure 3(d) (density 0.01), section 4.4 / Figure 5 (dyadic ranges, uniform and skewed
data, with the consistency check of section 3), and a section 4.5-like real table (flights).

As in the paper, n and ||M||_1 are treated as public (stats="public") when a parameter is derived
from the target size. Run: python benchmarks/repro_sparse.py [--trials 3] [--queries 100]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from psdviz.sparse import make_table, summarize  # noqa: E402
from psdviz.sparse.sample import flights_sparse_table  # noqa: E402

OUT = ROOT / "docs" / "reproduction" / "sparse.md"
M, RHO, MU, SIGMA, EPS, S = 10 ** 6, 0.1, 100, 20, 0.1, 10 ** 5
FLAT = [("geometric (full, m entries)", "geometric", {}),
        ("filter theta=50", "filter", dict(theta=50)),
        ("threshold (tau for t=10^5)", "threshold", dict(target_size=S, stats="public")),
        ("priority s=10^5", "priority", dict(size=S)),
        ("filter-priority theta=40, s=10^5", "filter-priority", dict(theta=40, size=S))]
SUBSET_SIZES = (100, 1_000, 10_000, 100_000)
RANGE_SIZES = (100, 1_000, 10_000, 100_000, 500_000)


def synthetic(seed: int = 0):
    rng = np.random.default_rng(seed)
    n = int(M * RHO)
    idx = np.sort(rng.choice(M, n, replace=False))
    cnt = np.maximum(1, np.rint(rng.normal(MU, SIGMA, n))).astype(np.int64)
    return make_table(idx, cnt, M)


def skewed(seed: int = 1, clusters: int = 50, spread: float = 2_000.0):
    """Section 4.4 "skewed": non-zeros placed close together (Gaussian clusters of cells)."""
    rng = np.random.default_rng(seed)
    n = int(M * RHO)
    centres = rng.integers(0, M, clusters)
    idx = np.empty(0, dtype=np.int64)
    while idx.size < n:
        c = centres[rng.integers(0, clusters, n)]
        cand = np.clip(np.rint(c + rng.normal(0, spread, n)), 0, M - 1).astype(np.int64)
        idx = np.unique(np.concatenate([idx, cand]))
    idx = np.sort(rng.choice(idx, n, replace=False))
    cnt = np.maximum(1, np.rint(rng.normal(MU, SIGMA, n))).astype(np.int64)
    return make_table(idx, cnt, M)


def dense_weights(rel) -> np.ndarray:
    out = np.zeros(rel.m)
    out[rel.indices] = rel.weights
    return out


def fmt(x: float) -> str:
    return f"{x:,.0f}" if abs(x) >= 100 else f"{x:,.1f}" if abs(x) >= 1 else f"{x:.3f}"


def table_md(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def flat_experiment(table, trials: int, q: int):
    """Mean absolute error and median relative error per method and query size."""
    rng = np.random.default_rng(123)
    truth = table.dense().astype(float)
    subsets = {r: np.array([rng.choice(M, r, replace=False) for _ in range(q)]) for r in SUBSET_SIZES}
    starts = {r: rng.integers(0, M - r + 1, q) for r in RANGE_SIZES}
    res = {}
    for label, method, kw in FLAT:
        sub_err = {r: [] for r in SUBSET_SIZES}
        rng_err = {r: [] for r in RANGE_SIZES}
        sizes = []
        for t in range(trials):
            rel = summarize(table, method, EPS, seed=1000 + t, **kw)
            sizes.append(rel.size)
            w = dense_weights(rel)
            for r, sets in subsets.items():
                sub_err[r].append((w[sets].sum(1), truth[sets].sum(1)))
            for r, lo in starts.items():
                rng_err[r].append((rel.range_sums(lo, lo + r), table.range_sums(lo, lo + r)))
        res[label] = {"size": float(np.mean(sizes)), "subset": _errors(sub_err), "range": _errors(rng_err)}
    return res


def _errors(pairs: dict) -> dict:
    out = {}
    for r, lst in pairs.items():
        est = np.concatenate([e for e, _ in lst])
        tru = np.concatenate([t for _, t in lst])
        err = np.abs(est - tru)
        out[r] = (float(err.mean()), float(np.median(err / np.maximum(tru, 1.0))))
    return out


def filter_sweep(table, trials: int, q: int, r: int = 5_000):
    """Figure 2(a): one-sided vs two-sided filter as theta varies (range size 5000)."""
    rng = np.random.default_rng(11)
    lo = rng.integers(0, M - r + 1, q)
    truth = table.range_sums(lo, lo + r)
    rows = []
    for theta in (10, 20, 30, 40, 50, 60, 70):
        row = [str(theta)]
        for two in (False, True):
            errs, sizes = [], []
            for t in range(trials):
                rel = summarize(table, "filter", EPS, seed=4000 + t, theta=theta, two_sided=two)
                errs.append(np.abs(rel.range_sums(lo, lo + r) - truth).mean())
                sizes.append(rel.size)
            row += [f"{np.mean(sizes):,.0f}", fmt(float(np.mean(errs)))]
        rows.append(row)
    return rows


def sparse_density_experiment(trials: int, q: int):
    """Figure 3(d): density 0.01, summary size s = n = 10^4, subset queries."""
    rng = np.random.default_rng(0)
    n = M // 100
    idx = np.sort(rng.choice(M, n, replace=False))
    table = make_table(idx, np.maximum(1, np.rint(rng.normal(MU, SIGMA, n))).astype(np.int64), M)
    truth = table.dense().astype(float)
    sizes = (100, 1_000, 10_000, 100_000)
    sets = {r: np.array([rng.choice(M, r, replace=False) for _ in range(q)]) for r in sizes}
    runs = [("geometric", "geometric", {}), ("filter theta=50", "filter", dict(theta=50)),
            ("priority s=10^4", "priority", dict(size=n)),
            ("filter-priority theta=50, s=10^4", "filter-priority", dict(theta=50, size=n))]
    res = {}
    for label, method, kw in runs:
        errs = {r: [] for r in sizes}
        n_kept = []
        for t in range(trials):
            rel = summarize(table, method, EPS, seed=5000 + t, **kw)
            n_kept.append(rel.size)
            w = dense_weights(rel)
            for r, ss in sets.items():
                errs[r].append((w[ss].sum(1), truth[ss].sum(1)))
        res[label] = {"size": float(np.mean(n_kept)), "subset": _errors(errs)}
    return res, sizes


def dyadic_experiment(table, trials: int, q: int):
    rng = np.random.default_rng(7)
    sizes = (1_000, 10_000, 100_000, 500_000)
    starts = {r: rng.integers(0, M - r + 1, q) for r in sizes}
    runs = [("geometric, flat", "geometric", {}),
            ("geometric, dyadic (2m entries)", "geometric", dict(dyadic=True)),
            ("filter (t=10^5), dyadic", "filter", dict(dyadic=True, target_size=S, stats="public")),
            ("filter (t=10^5), dyadic + consistency", "filter",
             dict(dyadic=True, consistency=True, target_size=S, stats="public")),
            ("priority s=10^5, dyadic", "priority", dict(dyadic=True, size=S)),
            ("filter-priority (theta=filter's/2, s=10^5), dyadic + consistency", "filter-priority",
             dict(dyadic=True, consistency=True, size=S))]
    res = {}
    theta_f = None
    for label, method, kw in runs:
        errs = {r: [] for r in sizes}
        n_kept = []
        for t in range(trials):
            kw2 = dict(kw)
            if method == "filter-priority":
                kw2["theta"] = max(1, theta_f // 2)
            rel = summarize(table, method, EPS, seed=2000 + t, **kw2)
            if method == "filter":
                theta_f = rel.params["theta"]
            n_kept.append(rel.size)
            for r, lo in starts.items():
                errs[r].append((rel.range_sums(lo, lo + r), table.range_sums(lo, lo + r)))
        res[label] = {"size": float(np.mean(n_kept)), "range": _errors(errs),
                      "theta": kw2.get("theta", theta_f if method == "filter" else None)}
    return res, sizes


def flights_experiment(trials: int, q: int, eps: float = 1.0):
    table = flights_sparse_table()
    nrow, ncol = table.layout["shape"]
    rng = np.random.default_rng(5)
    tails = rng.integers(0, nrow, q)
    block = rng.integers(0, nrow - 50, q)
    queries = {"one tail (row sum)": (tails * ncol, (tails + 1) * ncol),
               "50 consecutive tails": (block * ncol, (block + 50) * ncol),
               "all flights": (np.array([0]), np.array([table.m]))}
    runs = [("filter (t = n)", "filter", dict(stats="public")),
            ("priority s = n", "priority", dict(stats="public")),
            ("filter-priority theta=2, s = n", "filter-priority", dict(theta=2, stats="public")),
            ("threshold (t = n)", "threshold", dict(stats="public"))]
    res = {}
    for label, method, kw in runs:
        errs = {k: [] for k in queries}
        sizes, secs = [], []
        for t in range(trials):
            t0 = time.perf_counter()
            rel = summarize(table, method, eps, seed=3000 + t, **kw)
            secs.append(time.perf_counter() - t0)
            sizes.append(rel.size)
            for k, (lo, hi) in queries.items():
                errs[k].append((rel.range_sums(lo, hi), table.range_sums(lo, hi)))
        res[label] = {"size": float(np.mean(sizes)), "sec": float(np.min(secs)), "err": _errors(errs)}
    return table, res, list(queries), eps


def extra_sections(sweep, dens, dens_sizes, skew, skew_sizes) -> list[str]:
    parts = ["### Filter threshold sweep (paper Figure 2(a)): one-sided vs two-sided, range R = 5,000", "",
             table_md(["theta", "one-sided size", "one-sided error", "two-sided size", "two-sided error"], sweep),
             ""]
    dl = list(dens)
    rows = [["summary size"] + [f"{dens[k]['size']:,.0f}" for k in dl]]
    rows += [[f"subset R={r:,}"] + [f"{fmt(dens[k]['subset'][r][0])} ({dens[k]['subset'][r][1]:.2%})" for k in dl]
             for r in dens_sizes]
    parts += ["### Density 0.01 (paper Figure 3(d)), n = 10^4, subset queries", "",
              table_md(["query"] + dl, rows), ""]
    sl = list(skew)
    rows = [["summary size"] + [f"{skew[k]['size']:,.0f}" for k in sl],
            ["theta"] + [str(skew[k]["theta"] or "-") for k in sl]]
    rows += [[f"range R={r:,}"] + [f"{fmt(skew[k]['range'][r][0])} ({skew[k]['range'][r][1]:.2%})" for k in sl]
             for r in skew_sizes]
    f, fc = sl[2], sl[3]
    change = ", ".join(f"{r:,}: {skew[fc]['range'][r][0] / skew[f]['range'][r][0] - 1:+.0%}" for r in skew_sizes)
    parts += ["### Dyadic ranges on skewed data (paper Figure 5(b), 5(c)): 50 Gaussian clusters of cells", "",
              table_md(["query"] + sl, rows), "",
              f"Measured: the consistency check changes the dyadic filter's mean error by {change} (range "
              "size: change); the paper reports 30% to 60% lower errors on skewed data, about 10% on uniform "
              "data.", ""]
    return parts


def write(flat, dyadic, dy_sizes, flights, trials: int, q: int, extra: list[str]) -> str:
    parts = ["## Sparse data: compact private summaries", "",
             f"Produced by `benchmarks/repro_sparse.py --trials {trials} --queries {q}`. ICDT'12 section 4 "
             f"synthetic setting: m = 10^6 cells, density {RHO}, non-zero values ~ N({MU}, {SIGMA}) at uniform "
             f"positions, epsilon = {EPS}, summaries of size 10^5; absolute error |estimate - truth| averaged over "
             f"{q} queries x {trials} seeded trials (median relative error in brackets). Subset = R random cells, "
             "range = R consecutive cells. Estimates use the summaries' adjusted weights (threshold/priority: "
             "unbiased; filters: kept values).", ""]
    labels = list(flat)
    hdr = ["query"] + labels
    sizes = ["summary size"] + [f"{flat[k]['size']:,.0f}" for k in labels]
    for kind, rs in (("subset", SUBSET_SIZES), ("range", RANGE_SIZES)):
        rows = [sizes] if kind == "subset" else []
        for r in rs:
            rows.append([f"{kind} R={r:,}"] + [f"{fmt(flat[k][kind][r][0])} ({flat[k][kind][r][1]:.2%})"
                                                for k in labels])
        parts += [f"### {kind.capitalize()} queries (paper Figure 3(a), 3(b))", "", table_md(hdr, rows), ""]
    geo, fp = labels[0], labels[-1]
    ratios = [flat[fp]["subset"][r][0] / flat[geo]["subset"][r][0] for r in SUBSET_SIZES]
    parts += ["Measured: filter-priority / full geometric mean-error ratio on subsets of size "
              + ", ".join(f"{r:,}: {x:.2f}" for r, x in zip(SUBSET_SIZES, ratios))
              + ". The paper reports filter-priority comparable to, sometimes better than, the full "
              "geometric mechanism; a ratio below 1 means the 10x smaller summary is more accurate.", ""]
    dl = list(dyadic)
    rows = [["summary size"] + [f"{dyadic[k]['size']:,.0f}" for k in dl],
            ["theta"] + [str(dyadic[k]["theta"] or "-") for k in dl]]
    rows += [[f"range R={r:,}"] + [f"{fmt(dyadic[k]['range'][r][0])} ({dyadic[k]['range'][r][1]:.2%})" for k in dl]
             for r in dy_sizes]
    parts += ["### Dyadic ranges (paper section 4.4, Figure 5(a), uniform data)", "",
              "Sensitivity = tree height + 1 = 21 levels; each range uses at most 2 nodes per level.", "",
              table_md(["query"] + dl, rows), ""]
    parts += extra
    table, fres, qnames, eps = flights
    fl = list(fres)
    rows = [["summary size"] + [f"{fres[k]['size']:,.0f}" for k in fl],
            ["seconds (best)"] + [f"{fres[k]['sec']:.2f}" for k in fl]]
    rows += [[qn] + [f"{fmt(fres[k]['err'][qn][0])} ({fres[k]['err'][qn][1]:.1%})" for k in fl] for qn in qnames]
    nrow, ncol = table.layout["shape"]
    parts += ["### Real table: flights sample, tail number x scheduled service", "",
              f"{nrow:,} tail numbers x {ncol:,} services = m = {table.m:,} cells, n = {table.n:,} non-zero "
              f"(density {table.density:.2%}), {table.l1:,} flights (mean {table.l1 / table.n:.2f} per non-zero "
              f"cell); epsilon = {eps}; cells ordered by tail number, so a tail is a range of {ncol:,} cells. "
              "The laborious approach would draw 48.8 million noisy cells.", "",
              table_md(["query"] + fl, rows), ""]
    return "\n".join(parts) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--queries", type=int, default=100)
    a = ap.parse_args()
    table = synthetic()
    flat = flat_experiment(table, a.trials, a.queries)
    dyadic, dy_sizes = dyadic_experiment(table, a.trials, a.queries)
    sweep = filter_sweep(table, a.trials, a.queries)
    dens, dens_sizes = sparse_density_experiment(a.trials, a.queries)
    skew, skew_sizes = dyadic_experiment(skewed(), a.trials, a.queries)
    extra = extra_sections(sweep, dens, dens_sizes, skew, skew_sizes)
    flights = flights_experiment(a.trials, a.queries)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(write(flat, dyadic, dy_sizes, flights, a.trials, a.queries, extra))
    print(OUT.read_text())


if __name__ == "__main__":
    main()
