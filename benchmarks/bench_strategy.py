"""Answers planned for the publisher's queries: auto and the workload strategy against HDMM and DAWA-2D.

Three workloads on the five shared DPBench files (as in ../shared/dpbench/peers.md, section "Workloads"):
the protocol's 200 random rectangles ("test"), 1,000 squares of 4 x 4 cells centred on data ("squares",
RandomState(9)) and every row's prefix sums ("prefix", 65,536 queries). For each (workload, file, epsilon):
auto given the workload (auto+W), the strategy method given it, each at resolution 8, and auto+W again at the
default resolution (the points' own precision, what a user who sets nothing gets), mean relative error over
the workload (floor 0.001 N), mean of RUNS runs; beside them HDMM's figures and, on the test queries,
DAWA-2D's (published: its partition is not epsilon-DP as implemented; x4: its partition's noise raised
until an audit of it finds no leak), both from peers.md. Then the strategy's planning and release times
on the 2-core machine. Writes docs/reproduction/workload_strategy.md.

    python benchmarks/bench_strategy.py [runs]
"""
from __future__ import annotations

import platform
import re
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_dpbench import DOMAIN, DPBENCH, FILES, load_hist, place, queries, truth  # noqa: E402
from reproduction import publish_section  # noqa: E402

import psdviz as pv  # noqa: E402
from psdviz.lab.metrics import relative_error  # noqa: E402
from psdviz.methods.strategy import PLANS, plan_strategy  # noqa: E402

OUT = ROOT / "docs" / "reproduction" / "workload_strategy.md"
COLUMNS = {"auto": ("auto", {"resolution": 8}), "strategy": ("strategy", {"resolution": 8}),
           "default": ("auto", {})}      # the table's columns: method and build options (default: resolution 20)
PEER_NAMES = {"BeijingTaxiE": "BeijingTaxiE_256_256", "cabspottingS": "cabspottingS_256_256",
              "checkin": "checkin_256_256", "Adult_2D": "Adult_2D_256_256", "Stroke_2D": "Stroke_2D_256_256"}


def squares(hist: np.ndarray) -> np.ndarray:
    rs = np.random.RandomState(9)
    cell = rs.choice(hist.size, 1000, p=hist.ravel() / hist.sum())
    i, j = np.divmod(cell, 256)
    return np.column_stack([i - 2, j - 2, i + 2, j + 2]).clip(0, 256).astype(float)


def prefix() -> np.ndarray:
    i, j = (a.ravel() for a in np.meshgrid(np.arange(256), np.arange(256), indexing="ij"))
    return np.column_stack([i, np.zeros_like(i), i + 1, j + 1]).astype(float)


def peers() -> tuple[dict, dict]:
    """HDMM {(workload, file, eps): MRE} and DAWA-2D {(file, eps): (published, x4)} from peers.md."""
    text = (DPBENCH / "peers.md").read_text()
    hdmm, dawa = {}, {}
    row = r"^\| (test|squares|prefix) \| (\w+) \| ([0-9.]+) \(\d+\) \| ([0-9.]+) \(\d+\) \|$"
    for m in re.finditer(row, text, re.M):
        hdmm[(m[1], PEER_NAMES[m[2]], 0.1)], hdmm[(m[1], PEER_NAMES[m[2]], 1.0)] = float(m[3]), float(m[4])
    for m in re.finditer(r"^\| (\w+) \| ([0-9.]+) \| ([0-9.]+) \| ([0-9.]+) \| ([0-9.]+) \|$", text, re.M):
        if m[1] in PEER_NAMES:
            dawa[(PEER_NAMES[m[1]], 0.1)] = (float(m[2]), float(m[3]))
            dawa[(PEER_NAMES[m[1]], 1.0)] = (float(m[4]), float(m[5]))
    return hdmm, dawa


def accuracy(runs: int) -> list[str]:
    hdmm, dawa = peers()
    lines = ["| workload | file | eps | auto+W (pick) | strategy | HDMM | auto+W / HDMM | "
             "DAWA-2D published (not eps-DP) | DAWA-2D x4 | auto+W, default resolution (pick) | its / HDMM |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name in FILES:
        hist = load_hist(name)
        n = hist.sum()
        pts = place(hist, np.random.default_rng(1000))
        for wl, w in (("test", queries()), ("squares", squares(hist)), ("prefix", prefix())):
            t = truth(hist, w)
            for eps in (0.1, 1.0):
                err: dict[str, list[float]] = {m: [] for m in COLUMNS}
                picks: dict[str, set[str]] = {"auto": set(), "default": set()}
                for r in range(runs):
                    for m, (method, kw) in COLUMNS.items():
                        rel = pv.build(pts, DOMAIN, method, eps, seed=1000 * r + int(eps * 10), workload=w, **kw)
                        err[m].append(float(np.mean(relative_error(rel.answer(w), t, n))))
                        if m in picks:
                            picks[m].add(rel.params["chosen"])
                h = hdmm[(wl, name, eps)]
                a, s, d = np.mean(err["auto"]), np.mean(err["strategy"]), np.mean(err["default"])
                pub, x4 = dawa.get((name, eps), (None, None)) if wl == "test" else (None, None)
                line = (f"| {wl} | {name.split('_256')[0]} | {eps:g} | {a:.4g} ({'/'.join(sorted(picks['auto']))}) | "
                        f"{s:.4g} | {h:.4g} | {a / h:.2f} | {'-' if pub is None else f'{pub:.4g}'} | "
                        f"{'-' if x4 is None else f'{x4:.4g}'} | {d:.4g} ({'/'.join(sorted(picks['default']))}) | "
                        f"{d / h:.2f} |")
                print(line, flush=True)
                lines.append(line)
    return lines


def timing() -> list[str]:
    lines = ["| grid | workload | plan (s) | release of 10^6 points, the plan kept (s) |", "|---|---|---:|---:|"]
    rng = np.random.default_rng(0)
    pts = rng.uniform(0, 256, (1_000_000, 2))
    plan_strategy(DOMAIN, np.linspace(0, 256, 17), np.linspace(0, 256, 17), queries())   # warm-up: imports
    for m in (256, 1024):
        for label, w in (("200 random rectangles", queries()), ("1,000 squares", squares(np.ones((256, 256))))):
            edges = np.linspace(0, 256, m + 1)
            PLANS.items.clear()                     # plans are kept for the process: time a fresh one
            t0 = time.perf_counter()
            plan_strategy(DOMAIN, edges, edges, w)
            plan_s = time.perf_counter() - t0
            t0 = time.perf_counter()
            pv.build(pts, DOMAIN, "strategy", 1.0, resolution=10, grid_size=m, workload=w)
            build_s = time.perf_counter() - t0      # the kept plan, then one pass, noise, least squares
            line = f"| {m} x {m} | {label} | {plan_s:.2f} | {build_s:.2f} |"
            print(line, flush=True)
            lines.append(line)
    return lines


def main() -> int:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    head = [f"## Answers planned for the publisher's queries ({runs} runs a cell)", "",
            f"_Generated by `python benchmarks/bench_strategy.py {runs}` ({platform.machine()}, Python "
            f"{platform.python_version()}, 2-core AMD EPYC VM); HDMM's and DAWA-2D's figures from "
            "../shared/dpbench/peers.md._", "",
            "Mean relative error over each workload (floor 0.001 N), resolution 8 (the files' own precision) but for "
            "the last two columns, auto+W at the default resolution (20: what a user who sets nothing gets; the "
            "points are placed uniformly inside their cells, as the protocol places a histogram's counts). "
            "DAWA-2D is given the test "
            "queries only; its published partition is not epsilon-DP as implemented (peers.md, "
            "[the audit](dawa_audit.md)), x4 raises its partition's noise until the audit finds no leak.", ""]
    body = accuracy(runs)
    times = ["", "Planning (the optimisation of the strategy, public input only) alone, and then the whole release "
             "(the plan kept for the process since, as public input; reading 10^6 points in one pass, noise, least "
             "squares):", "", *timing()]
    publish_section("\n".join(head + body + times), OUT)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
