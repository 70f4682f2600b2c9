"""auto against the best single method it could have picked, on a corpus split once into tuning and validation.

The corpus (``psdviz.lab.corpus``: the DPBench files, real point sets and attribute pairs rasterised over public
bounds, members of the lab's families) is split once (``corpus.SPLIT``); auto's rules are chosen on the tuning part
only and this table reports them on both. Protocol (psdviz.lab.dpbench): resolution 8 on [0, 256)^2, MRE with
the 0.001 N floor, epsilon 0.1 and 1. At resolution 8 a point's key is its histogram cell, so every build reads the
histogram's occupied cells and their counts (:class:`HistogramCells`): the same release for the same seed as the
points placed inside their cells, at the cost of the occupied cells instead of N points.

Workloads: "none" (every method built without one, scored on the protocol's 200 rectangles), and given one:
"test" (those 200 rectangles), "prefix" (every row's prefix sums, 65,536 queries) and "squares" (1,000 squares of
4 x 4 cells centred on data, RandomState(9)), each scored on its own queries. A method that plans for a workload
(``registry.accepts_workload``) is built once per workload and given it; any other method is built once per run and
answers every workload from the same release.

Columns: every private method of the registry (so a method registered later is one more column with no change
here) and the variants auto's plan picks (``auto.candidates()``: e.g. hybrid+nnls), all with the same points and
seeds in a run. A cell's regret is auto's mean MRE over the runs over the smallest mean MRE of the methods auto could
have picked (its plan's candidates); "best registered" is the same against every column. Per rule, auto without
that rule: auto is built again without it on the runs where the rule chose (elsewhere the pick is the same and auto's
own error is kept).

    python benchmarks/bench_auto_validation.py                  # every data set, 3 runs, writes the table
    python benchmarks/bench_auto_validation.py --parts tuning --columns auto --refresh auto   # rerun auto only
    python benchmarks/bench_auto_validation.py --ablate         # and auto without each rule
    python benchmarks/bench_auto_validation.py --report         # the table from cached runs only
"""
from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import platform
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT))
from reproduction import publish_section  # noqa: E402

import psdviz as pv  # noqa: E402
from psdviz.core.cells import CellTable  # noqa: E402
from psdviz.lab import corpus  # noqa: E402
from psdviz.lab.dpbench import histogram_truth, protocol_queries  # noqa: E402
from psdviz.lab.metrics import relative_error  # noqa: E402
from psdviz.methods import auto, registry  # noqa: E402

OUT = ROOT / "docs" / "reproduction" / "auto_validation.md"
CACHE = ROOT / "docs" / "reproduction" / "auto_validation_runs.json"   # per-run results (resumable)
DOMAIN = pv.Domain(0.0, 0.0, 256.0, 256.0)
EPSILONS = (0.1, 1.0)
RESOLUTION = 8
WORKLOADS = ("none", "test", "prefix", "squares")
TARGET_WORST, TARGET_MEAN = 1.25, 1.1


class HistogramCells:
    """A DPBench histogram as the source of a build at resolution 8 on [0, 256)^2: its occupied cells and their
    counts (:class:`psdviz.core.cells.CellTable`), the same grouped counts as the points placed inside the cells,
    so the same release for the same seed, with every pass over the occupied cells instead of the N points."""

    def __init__(self, hist: np.ndarray):
        self.hist = hist


def _prepare(points, domain, *args, **kw):
    """``prepare_points`` for :class:`HistogramCells` (any other input goes to psdviz's own)."""
    if not isinstance(points, HistogramCells):
        return _PREPARE(points, domain, *args, **kw)
    i, j = np.nonzero(points.hist)
    counts = points.hist[i, j].astype(np.int64)
    centres = _PREPARE(np.column_stack([i + 0.5, j + 0.5]), domain, *args, **kw)
    n = int(counts.sum())
    meta = dataclasses.replace(centres, n_input=n)
    return CellTable(meta, np.column_stack([i, j]).astype(np.int64), counts)


_PREPARE = pv.api.prepare_points
pv.api.prepare_points = _prepare


def squares(hist: np.ndarray) -> np.ndarray:
    """1,000 squares of 4 x 4 cells centred on cells drawn in proportion to their counts (RandomState(9))."""
    rs = np.random.RandomState(9)
    cell = rs.choice(hist.size, 1000, p=hist.ravel() / hist.sum())
    i, j = np.divmod(cell, hist.shape[1])
    return np.column_stack([i - 2, j - 2, i + 2, j + 2]).clip(0, 256).astype(float)


def prefix() -> np.ndarray:
    """Every row's prefix sums [i, 0, i + 1, j + 1) on the 256 x 256 grid."""
    i, j = (a.ravel() for a in np.meshgrid(np.arange(256), np.arange(256), indexing="ij"))
    return np.column_stack([i, np.zeros_like(i), i + 1, j + 1]).astype(float)


def queries(workload: str, hist: np.ndarray) -> np.ndarray:
    """The workload's queries (what a method that plans for it is given)."""
    return {"none": protocol_queries, "test": protocol_queries, "prefix": prefix}.get(
        workload, lambda: squares(hist))()


def scored(workload: str, q: np.ndarray) -> np.ndarray:
    """The queries a workload is scored on: all of them, but a fixed random 4,096 of the 65,536 row prefix sums
    (RandomState(10); their MRE estimates the whole workload's without bias, at a sixteenth of the answering)."""
    if workload != "prefix":
        return q
    return q[np.sort(np.random.RandomState(10).choice(len(q), 4096, replace=False))]


def columns() -> dict[str, tuple[str, dict]]:
    """label -> (method, build options): every private registered method but auto at its defaults, auto's plan's
    candidates as auto builds them, and auto."""
    cols = {m: (m, {}) for m in registry.methods() if m != "auto" and registry.spec_of(m).private}
    for label, (method, kw) in auto.candidates().items():    # at resolution 8 the 256 grid is the release grid
        if kw.get("split_grid", 0) >= 2 ** RESOLUTION:
            label, kw = label.rsplit("/", 1)[0], {k: v for k, v in kw.items() if k != "split_grid"}
        cols[label] = (method, kw)
    cols["auto"] = ("auto", {})
    return cols


@contextlib.contextmanager
def without(rule: str) -> Iterator[None]:
    """auto's plan without the rule named ``rule`` (for the ablation columns)."""
    kept = auto.RULES
    auto.RULES = tuple(r for r in kept if r.name != rule)
    try:
        yield
    finally:
        auto.RULES = kept


def _build(method: str, kw: dict, pts: HistogramCells, eps: float, seed: int, work: np.ndarray | None):
    extra = dict(kw)
    if work is not None:
        extra["workload"] = work
    return pv.build(pts, DOMAIN, method, eps, seed=seed, resolution=RESOLUTION, **extra)


def chosen(rel) -> tuple[str, str]:
    """The label and the name of the rule that chose auto's pick (read from the release's rule text)."""
    rule = next(r for r in auto.RULES if r.when == rel.params["rule"])
    return rule.label, rule.name


def run(names: list[str], cols: list[str], runs: int, refresh: set[str], ablate: bool, keep: bool) -> dict:
    """The per-run cache {"data set|column|workload|eps|run": [mre, cpu s, pick, rule]} filled for ``names`` and
    ``cols`` (and, with ``ablate``, "auto-<rule>" where that rule chose)."""
    cache = json.loads(CACHE.read_text()) if CACHE.exists() else {}
    new: dict[str, list] = {}
    table = columns()
    for name in names:
        hist = corpus.load(name)
        n = hist.sum()
        qs = {w: queries(w, hist) for w in WORKLOADS}
        score = {w: scored(w, q) for w, q in qs.items()}
        truth = {w: histogram_truth(hist, q) for w, q in score.items()}
        pts = HistogramCells(hist)
        for r in range(runs):
            for eps in EPSILONS:
                seed = 10_000 * r + int(eps * 10)
                todo = [(c, *table[c]) for c in cols]
                if ablate:
                    todo += [(f"auto-{rule.name}", "auto", {"_without": rule.name}) for rule in auto.RULES[:-1]]
                for label, method, kw in todo:
                    planned = registry.accepts_workload(method)
                    for w in (WORKLOADS if planned else ("none",)):
                        key = f"{name}|{label}|{w}|{eps}|{r}"
                        if key in cache and label not in refresh:
                            continue
                        if "_without" in kw:
                            mine = cache.get(f"{name}|auto|{w}|{eps}|{r}")
                            if mine is None or mine[3] != kw["_without"]:
                                continue          # that rule did not choose: auto without it picks the same
                        t0 = time.process_time()
                        with without(kw["_without"]) if "_without" in kw else contextlib.nullcontext():
                            opts = {k: v for k, v in kw.items() if k != "_without"}
                            rel = _build(method, opts, pts, eps, seed, qs[w] if planned and w != "none" else None)
                        dt = time.process_time() - t0
                        pick, rule = chosen(rel) if method == "auto" else (label, "")
                        for w2 in ((w,) if planned else WORKLOADS):
                            err = float(np.mean(relative_error(rel.answer(score[w2]), truth[w2], n)))
                            cache[f"{name}|{label}|{w2}|{eps}|{r}"] = new[f"{name}|{label}|{w2}|{eps}|{r}"] = [
                                err, dt, pick, rule]
                        print(f"{name:40s} eps {eps:<4g} run {r} {label:22s} {w:8s} MRE {err:.4g} ({dt:.1f} s)"
                              + (f" {pick} [{rule}]" if method == "auto" else ""), flush=True)
                if keep and new:
                    cache = save(new)
                    new = {}
    return cache


def save(new: dict) -> dict:
    """Merge this process's new runs into the cache file (several runs of the script may fill it at once)."""
    cache = json.loads(CACHE.read_text()) if CACHE.exists() else {}
    cache.update(new)
    tmp = CACHE.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(cache, indent=0, sort_keys=True))
    tmp.replace(CACHE)
    return cache


def cells(cache: dict, names: list[str], runs: int) -> list[dict]:
    """One row per (data set, eps, workload) with every column's mean MRE over the cached runs."""
    out = []
    cands = set(auto.candidates()) | {r.label for r in auto.RULES}
    for name in names:
        for eps in EPSILONS:
            for w in WORKLOADS:
                mre: dict[str, float] = {}
                picks: dict[str, int] = {}
                for key, v in cache.items():
                    d, col, w2, e, r = key.split("|")
                    if d != name or w2 != w or float(e) != eps or int(r) >= runs:
                        continue
                    mre.setdefault(col, []).append(v[0])       # type: ignore[attr-defined]
                    if col == "auto":
                        picks[v[2]] = picks.get(v[2], 0) + 1
                if "auto" not in mre:
                    continue
                means = {c: float(np.mean(v)) for c, v in mre.items()}
                ablated = {c: means[c] for c in means if c.startswith("auto-")}
                for rule in auto.RULES[:-1]:          # auto without a rule that never chose there is auto
                    c = f"auto-{rule.name}"
                    runs_c = [cache.get(f"{name}|{c}|{w}|{eps}|{r}", cache[f"{name}|auto|{w}|{eps}|{r}"])[0]
                              for r in range(runs) if f"{name}|auto|{w}|{eps}|{r}" in cache]
                    ablated[c] = float(np.mean(runs_c))
                plain = {c: v for c, v in means.items() if c != "auto" and not c.startswith("auto-")}
                cand = {c: v for c, v in plain.items() if c in cands}
                if not cands & set(columns()) <= set(cand):
                    continue                          # a candidate not run yet: no regret to state
                best_c = min(cand, key=cand.get)
                best_r = min(plain, key=plain.get)
                out.append({"name": name, "part": corpus.part(name), "eps": eps, "workload": w, "mre": plain,
                            "auto": means["auto"], "best": best_c, "best_any": best_r, "picks": picks,
                            "regret": means["auto"] / cand[best_c], "regret_any": means["auto"] / plain[best_r],
                            "ablated": {c: v / cand[best_c] for c, v in ablated.items()},
                            "strategy": means["auto"] / plain["strategy"] if w != "none" else None})
    return out


def gmean(x: list[float]) -> float:
    return float(np.exp(np.mean(np.log(x)))) if x else float("nan")


def summary(rows: list[dict]) -> list[str]:
    lines = ["| part | workloads | cells | auto / best candidate: geometric mean | worst cell | cells above "
             f"{TARGET_WORST}x | auto / best registered method: geometric mean (worst) | given a workload: auto / "
             "the strategy, worst |", "|---|---|---:|---:|---|---:|---:|---:|"]
    for part in corpus.SPLIT:
        for label, ws in (("without", ("none",)), ("given one", WORKLOADS[1:]), ("all", WORKLOADS)):
            sel = [r for r in rows if r["part"] == part and r["workload"] in ws]
            if not sel:
                continue
            worst = max(sel, key=lambda r: r["regret"])
            strat = [r["strategy"] for r in sel if r["strategy"] is not None]
            vs_strategy = f"{max(strat):.2f}" if strat else "-"
            lines.append(f"| {part} | {label} | {len(sel)} | {gmean([r['regret'] for r in sel]):.3f} | "
                         f"{worst['regret']:.2f} ({worst['name']}, eps {worst['eps']:g}, {worst['workload']}) | "
                         f"{sum(r['regret'] > TARGET_WORST for r in sel)} | "
                         f"{gmean([r['regret_any'] for r in sel]):.3f} ({max(r['regret_any'] for r in sel):.2f}) | "
                         f"{vs_strategy} |")
    return lines


def rule_table(rows: list[dict]) -> list[str]:
    """Per rule: where it chose, and auto's regret with and without it, on each part."""
    lines = ["| rule | evidence | part | cells where it chose (of its runs) | with it: geometric mean (worst) | "
             "without it | on the cells where it chose: with / without |", "|---|---|---|---:|---:|---:|---:|"]
    for rule in auto.RULES[:-1]:
        for part in corpus.SPLIT:
            sel = [r for r in rows if r["part"] == part]
            fired = [r for r in sel if r["rules"].get(rule.name, 0) > 0]
            key = f"auto-{rule.name}"
            w = [r["regret"] for r in sel]
            wo = [r["ablated"].get(key, r["regret"]) for r in sel]
            f_w = [r["regret"] for r in fired]
            f_wo = [r["ablated"].get(key, r["regret"]) for r in fired]
            lines.append(f"| {rule.name} | {rule.evidence} | {part} | {len(fired)} | {gmean(w):.3f} ({max(w):.2f}) | "
                         f"{gmean(wo):.3f} ({max(wo):.2f}) | "
                         + (f"{gmean(f_w):.3f} / {gmean(f_wo):.3f} |" if fired else "- |"))
    return lines


def every_cell(rows: list[dict], cols: list[str]) -> list[str]:
    head = ("| data set | part | eps | workload | auto's picks | auto | " + " | ".join(cols)
            + " | regret | best registered |")
    lines = [head, "|---|---|---:|---|---|---:|" + "---:|" * len(cols) + "---:|---:|"]
    for r in rows:
        vals = " | ".join((f"**{r['mre'][c]:.4g}**" if c == r["best"] else f"{r['mre'][c]:.4g}")
                          if c in r["mre"] else "-" for c in cols)
        picks = ", ".join(f"{k} {v}" for k, v in sorted(r["picks"].items()))
        lines.append(f"| {r['name']} | {r['part']} | {r['eps']:g} | {r['workload']} | {picks} | {r['auto']:.4g} | "
                     f"{vals} | {r['regret']:.2f} | {r['best_any']} {r['regret_any']:.2f} |")
    return lines


def attach_rules(rows: list[dict], cache: dict, runs: int) -> None:
    """How many runs each rule chose in each cell (from auto's cached runs)."""
    for row in rows:
        counts: dict[str, int] = {}
        for r in range(runs):
            v = cache.get(f"{row['name']}|auto|{row['workload']}|{row['eps']}|{r}")
            if v is not None:
                counts[v[3]] = counts.get(v[3], 0) + 1
        row["rules"] = counts


def report(cache: dict, names: list[str], runs: int, seconds: float) -> str:
    rows = cells(cache, names, runs)
    attach_rules(rows, cache, runs)
    cols = [c for c in columns() if c != "auto"]
    machine = f"{platform.machine()}, Python {platform.python_version()}, numpy {np.__version__}"
    return "\n".join([
        "## auto on data it has never seen: the validation table", "",
        f"_Generated by `python benchmarks/bench_auto_validation.py --runs {runs}` ({machine}; cached per run in "
        f"{CACHE.relative_to(ROOT)}, {seconds:.0f} s of build CPU over the cached runs); do not edit by hand._ "
        "The corpus and its split: `psdviz/lab/corpus.py` (the split was made once, before any rule was chosen on "
        "it). DPBench protocol at resolution 8, epsilon 0.1 and 1, "
        f"{runs} runs a cell (same points and seeds for every column). A cell's regret is auto's mean MRE over the "
        "best mean MRE of the methods auto's plan could have picked (its candidates, given the workload when they "
        "plan for one); 'best registered' is against every private method of the registry. Targets on the "
        f"validation part: worst cell <= {TARGET_WORST}x, geometric mean <= {TARGET_MEAN}x.", "",
        "#### Summary", "", *summary(rows), "",
        "#### Each rule: auto with and without it", "",
        "Without a rule, auto is built again on the runs where that rule chose (same points and seeds); elsewhere "
        "it picks the same and its own error is kept. A rule whose validation regret is worse than not having it "
        "goes (docs/decisions/auto-rule.md).", "", *rule_table(rows), "",
        "#### Every cell", "", "Mean MRE over the runs; the best of auto's candidates in bold.", "",
        *every_cell(rows, cols), ""])


def size(name: str) -> float:
    try:
        return float(corpus.load(name).sum())
    except corpus.MissingData:
        return float("inf")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--parts", nargs="*", default=list(corpus.SPLIT))
    ap.add_argument("--datasets", nargs="*", default=None, help="a subset of the corpus (default: the parts')")
    ap.add_argument("--columns", nargs="*", default=None, help="a subset of the columns (default: all)")
    ap.add_argument("--refresh", nargs="*", default=[], help="columns to run again although cached")
    ap.add_argument("--ablate", action="store_true", help="also auto without each rule, where that rule chose")
    ap.add_argument("--report", action="store_true", help="write the table from the cached runs only")
    ap.add_argument("--no-write", action="store_true", help="print only; keep the table and the cache as they are")
    a = ap.parse_args()
    names = a.datasets or sorted((n for p in a.parts for n in corpus.SPLIT[p]), key=size)   # small ones first
    cache = json.loads(CACHE.read_text()) if CACHE.exists() else {}
    if not a.report:
        cache = run(names, a.columns or list(columns()), a.runs, set(a.refresh), a.ablate, keep=not a.no_write)
    all_names = [n for p in corpus.SPLIT for n in corpus.SPLIT[p]]
    seconds = sum(v[1] for v in cache.values())
    publish_section(report(cache, all_names, a.runs, seconds), OUT, not a.no_write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
