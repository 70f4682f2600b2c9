"""Counts over time against what a publisher would do today, and the speed of a year of daily windows.

Accuracy. Synthetic streams of events by users (``psdviz.lab.synthetic.event_stream``: a trend, weekly cycles,
bursts) over T = 64 and T = 365 daily windows, one total epsilon under user-level privacy, the public 8 x 8 grid
of the unit square shared by all windows. Compared:

- per-window releases (today's practice): T independent ``pv.build`` (UG on the same 8 x 8 cells) at epsilon / T
  each, every user bounded to m events a window (sequential composition over the windows);
- the tree mechanism over time (``pv.build_over_time``, unit user: m a window, L in all; its fanout chosen from T,
  and the binary tree of Chan et al. and Dwork et al.);
- one noisy count per (cell, window) at sensitivity L (``mechanism="flat"``);
- the tree with L chosen privately from the users' totals (``max_points_per_user="auto"``: one L a level of the
  tree, near a quantile that rises from the leaves to the root).

Queries: 40 rectangles of whole grid cells (1.6 % to 25 % of the domain: the cells cut by a rectangle's edges
would add the same uniformity error to every method) over ranges of one window, a week, a month and the span (20
random starts each); mean relative error against the true counts of all the events (before any bound), with the
floor 0.001 x the mean whole-domain count of a range of that length. The bound L is public and fixed before the
data: T / 24 rounded up to a power of two (a user counted in at most one window in 24 on average). Two streams:
"sparse users" (users active on few days: the setting the tree is for) and "heavy users" (a lognormal activity
with a long tail: many users exceed L, and bounding them costs more than noise saves).

Speed. 10^7 timestamped events written once to benchmarks/.data/ (Parquet, gitignored); one release of 365 daily
windows read from the file (the scans of the file counted by wrapping pyarrow's reader), event-level and
user-level.

    python benchmarks/bench_time.py            # both parts, writes docs/reproduction/time.md
    python benchmarks/bench_time.py --quick    # smaller streams, prints only
"""
from __future__ import annotations

import argparse
import os
import platform
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from reproduction import publish_section  # noqa: E402

import psdviz as pv  # noqa: E402
from psdviz.lab.metrics import relative_error  # noqa: E402
from psdviz.lab.synthetic import event_stream  # noqa: E402
from psdviz.temporal import user_bound as ub  # noqa: E402

OUT = ROOT / "docs" / "reproduction" / "time.md"
DATA = ROOT / "benchmarks" / ".data"
DOM = pv.Domain(0, 0, 1, 1)
EPS, M, LEVEL = 1.0, 1, 3
STREAMS = {"sparse users": {"n_users": 1_000_000, "rate": 0.01, "spread_of_activity": 0.5},
           "heavy users": {"n_users": 200_000, "rate": 0.05, "spread_of_activity": 1.0}}
RANGES = ("one window", "a week", "a month", "the span")
CHOSEN = "tree, L chosen"      # max_points_per_user="auto": one L a level bought from the users' totals


def bound_for(windows: int) -> int:
    """L = T / 24 rounded up to a power of two (public, fixed before the data)."""
    return 1 << int(np.ceil(np.log2(max(windows / 24, 1))))


def rectangles(rng: np.random.Generator, k: int = 40) -> np.ndarray:
    """k rectangles of whole cells of the 8 x 8 grid (1 to 4 cells a side: 1.6 % to 25 % of the domain), so that
    every method's error is its noise and bounding, not the uniformity assumption inside cut cells (which all of
    them share: the per-window releases use the same cells)."""
    g = 1 << LEVEL
    w, h = rng.integers(1, 5, k), rng.integers(1, 5, k)
    x0, y0 = rng.integers(0, g - w + 1), rng.integers(0, g - h + 1)
    return np.column_stack([x0, y0, x0 + w, y0 + h]) / g


def per_window_baseline(xy, window, user, rects, windows: int) -> np.ndarray:
    """(windows, rects): the answers of T independent user-level releases at epsilon / T (today's practice)."""
    out = np.empty((windows, len(rects)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for t in range(windows):
            sel = window == t
            rel = pv.build(xy[sel], DOM, "ug", EPS / windows, user=user[sel], max_points_per_user=M, grid_size=8)
            out[t] = rel.answer(rects)
    return out


def accuracy(stream: dict, windows: int, seed: int) -> dict[str, dict[str, float]]:
    rng = np.random.default_rng(seed)
    xy, secs, user = event_stream(days=windows, domain=DOM, rng=rng, **stream)
    window = secs // 86_400
    rects = rectangles(rng)
    truth = np.stack([pv.true_answer(xy[window == t], rects) for t in range(windows)])
    cum = np.vstack([np.zeros(len(rects)), np.cumsum(truth, axis=0)])
    base = np.vstack([np.zeros(len(rects)), np.cumsum(per_window_baseline(xy, window, user, rects, windows), axis=0)])
    lengths = dict(zip(RANGES, (1, 7, 30, windows)))
    starts = {name: rng.integers(0, windows - r + 1, 20) for name, r in lengths.items()}
    L = bound_for(windows)
    common = {"time": secs, "span": (0, windows * 86_400), "epsilon": EPS, "unit": "user", "user": user,
              "max_points_per_window": M, "max_points_per_user": L, "grid_level": LEVEL}
    rels = {"tree": pv.build_over_time(xy, DOM, **common),
            "binary tree": pv.build_over_time(xy, DOM, fanout=2, **common),
            "flat at L": pv.build_over_time(xy, DOM, mechanism="flat", **common),
            CHOSEN: pv.build_over_time(xy, DOM, **{**common, "max_points_per_user": "auto"})}
    out: dict[str, dict[str, float]] = {"per-window releases": {}, **{k: {} for k in rels}}
    n = len(secs)
    for name, r in lengths.items():
        rho_n = n * r / windows            # the floor: 0.001 x the mean whole-domain count of such a range
        errs: dict[str, list] = {k: [] for k in out}
        for a in starts[name]:
            tru = cum[a + r] - cum[a]
            errs["per-window releases"].append(relative_error(base[a + r] - base[a], tru, int(rho_n)))
            for k, rel in rels.items():
                errs[k].append(relative_error(rel.answer(rects, int(a), int(a + r - 1)), tru, int(rho_n)))
        for k in out:
            out[k][name] = float(np.mean(errs[k]))
    out["_facts"] = {"events": n, "L": L, "fanout": rels["tree"].params.get("fanout", 2),
                     "kept": rels["tree"].audit()["rows_used"] / n,
                     "chosen": ", ".join(map(str, rels[CHOSEN].params.get(
                         "max_points_per_user_levels", [rels[CHOSEN].params["max_points_per_user"]]))),
                     "kept chosen": rels[CHOSEN].audit()["rows_used"] / n}
    return out


def accuracy_section(seeds: int, quick: bool) -> str:
    lines = ["## Counts over time: the tree mechanism against one release per window", "",
             "Rectangles of whole cells of the shared 8 x 8 grid, so the errors are the noise and the bounds'.", "",
             f"_Generated by `python benchmarks/bench_time.py` ({platform.machine()}, Python "
             f"{platform.python_version()}); {seeds} stream(s) a row, epsilon {EPS:g} per user, m = {M} event a "
             "window, the 8 x 8 grid._", "",
             "Mean relative error of 40 rectangles over 20 ranges of each length (lower is better); the ratio is the "
             "per-window releases' error over the tree's. L: the bound on a user's events over the span (T / 24 "
             "rounded up to a power of two); kept: the share of events left after the bounds. 'tree, L chosen': "
             "the same tree with max_points_per_user=\"auto\" (one L a level, root first, bought with 5 % of epsilon "
             f"near a quantile of the users' totals rising from {ub.LEAF_QUANTILE:.0%} at the leaves to "
             f"{ub.ROOT_QUANTILE:.0%} at the root: docs/decisions/user-bound.md).", ""]
    for stream_name, stream in STREAMS.items():
        if quick:
            stream = {**stream, "n_users": stream["n_users"] // 10}
        for windows in (64, 365):
            runs = [accuracy(stream, windows, 100 + s) for s in range(seeds)]
            facts = runs[0]["_facts"]
            lines += [f"### {stream_name}, T = {windows} daily windows", "",
                      f"{facts['events']:,} events by {stream['n_users']:,} users; L = {facts['L']}; kept "
                      f"{facts['kept']:.1%}; the tree's fanout {facts['fanout']}; L chosen privately (first "
                      f"stream, a level each, root first): {facts['chosen']}, kept at the root "
                      f"{facts['kept chosen']:.1%}.", "",
                      "| method | " + " | ".join(RANGES) + " |", "|---|" + "---:|" * len(RANGES)]
            methods = [k for k in runs[0] if not k.startswith("_")]
            mean = {k: {r: float(np.mean([run[k][r] for run in runs])) for r in RANGES} for k in methods}
            for k in methods:
                lines.append(f"| {k} | " + " | ".join(f"{mean[k][r]:.3g}" for r in RANGES) + " |")
            for k in ("tree", CHOSEN):
                lines.append(f"| per-window / {k} | " + " | ".join(
                    f"{mean['per-window releases'][r] / mean[k][r]:.2f}x" for r in RANGES) + " |")
            lines.append("")
    return "\n".join(lines)


def _coverage(rel, xy, window, rects) -> tuple[float, float, float]:
    """Share of (rectangle, window) pairs whose true count lies in the whole 95 % interval, in the noise-alone
    interval, and the median width of the whole interval over the true count (at least 1)."""
    from psdviz.lab.time_teaching import true_series
    whole, noise, width = [], [], []
    for r in rects:
        s = rel.series(r)
        truth = true_series(xy, window, rel.windows, r)
        z = 1.96 * s["standard_error"]
        whole.append((truth >= s["low"]) & (truth <= s["high"]))
        noise.append((truth >= s["estimate"] - z) & (truth <= s["estimate"] + z))
        width.append((s["high"] - s["low"]) / np.maximum(truth, 1))
    return float(np.mean(whole)), float(np.mean(noise)), float(np.median(np.concatenate(width)))


def coverage_section() -> str:
    """How often the whole interval of a rectangle in one window holds the truth: the public flights (event
    level) and the sparse-users stream (user level), on random rectangles that cut cells."""
    from psdviz import temporal
    rng = np.random.default_rng(5)
    lines = ["## Counts over time: the whole interval's coverage", "",
             "_Generated by `python benchmarks/bench_time.py`: 40 random rectangles (cutting cells) x every window; "
             "the share of (rectangle, window) pairs whose true count (of all events) lies in the whole 95 % interval "
             "(noise and the cut cells' model) and in the noise alone, and the whole interval's median width over the "
             "true count._", "",
             "| data | release | whole interval | noise alone | median width / truth |", "|---|---|---:|---:|---:|"]
    cases = []
    if temporal.flights_available():
        f = temporal.flight_departures()
        dom = pv.Domain(*temporal.FLIGHTS_DOMAIN)
        xy, secs = f[["lon", "lat"]].to_numpy(float), temporal.to_seconds(f["time"])[0]
        for mech in ("flat", "tree"):
            rel = pv.build_over_time(xy, dom, time=secs, span=temporal.FLIGHTS_SPAN, window="1d", epsilon=1.0,
                                     mechanism=mech, grid_level=4, nonfinite="drop")
            cases.append(("US flights 2001, 181 days", f"event level, {mech}, 16 x 16", rel, xy,
                          rel.axis.index(secs), dom))
    xy, secs, user = event_stream(domain=DOM, rng=np.random.default_rng(9), days=64, **STREAMS["sparse users"])
    rel = pv.build_over_time(xy, DOM, time=secs, span=(0, 64 * 86_400), epsilon=EPS, unit="user", user=user,
                             max_points_per_window=M, max_points_per_user=bound_for(64), grid_level=LEVEL)
    cases.append(("sparse users, 64 days", f"user level, tree, L = {bound_for(64)}, 8 x 8", rel, xy, secs // 86_400,
                  DOM))
    for data, what, rel, pts, window, dom in cases:
        c = np.sort(rng.random((40, 2, 2)), axis=1)
        rects = np.column_stack([dom.xmin + c[:, 0, 0] * dom.width, dom.ymin + c[:, 0, 1] * dom.height,
                                 dom.xmin + c[:, 1, 0] * dom.width, dom.ymin + c[:, 1, 1] * dom.height])
        whole, noise, width = _coverage(rel, pts, window, rects)
        lines.append(f"| {data} | {what} | {whole:.1%} | {noise:.1%} | {width:.2f} |")
    return "\n".join(lines) + "\n"


def speed_section(n: int) -> str:
    import pyarrow.parquet as pq
    DATA.mkdir(exist_ok=True)
    path = DATA / f"events_{n}.parquet"
    if not path.exists():
        xy, secs, user = event_stream(n // 20, 365, DOM, np.random.default_rng(7), rate=20 / 365 * 1.0)
        import pandas as pd
        pd.DataFrame({"x": xy[:n, 0], "y": xy[:n, 1], "t": secs[:n].astype("datetime64[s]"),
                      "u": user[:n]}).to_parquet(path)
    rows = pq.read_metadata(path).num_rows
    reads = {"n": 0}
    original = pq.read_table

    def counted(*args, **kwargs):
        reads["n"] += 1
        return original(*args, **kwargs)
    lines = ["## Counts over time: speed", "",
             f"_Generated by `python benchmarks/bench_time.py`: {rows:,} events in one Parquet file, 365 daily "
             "windows, the 16 x 16 grid; seconds on this machine (2 cores, shared: timings taken under load may be "
             "higher, so the process's CPU seconds and the load average (1 min) as the build started are beside "
             "them); file scans counted by wrapping pyarrow's reader._", "",
             "| release | seconds | CPU seconds | scans of the file | load |", "|---|---:|---:|---:|---:|"]
    cases = {"event level, flat": {}, "user level, tree (m = 2, L = 64)":
             {"unit": "user", "user": "u", "max_points_per_window": 2, "max_points_per_user": 64},
             "user level, tree (m = 2, L chosen a level)":
             {"unit": "user", "user": "u", "max_points_per_window": 2, "max_points_per_user": "auto"},
             "w-event (w = 7), BA": {"unit": "w-event", "w": 7, "user": "u", "max_points_per_window": 2}}
    pq.read_table = counted
    try:
        for name, kw in cases.items():
            reads["n"] = 0
            load = os.getloadavg()[0]
            t, cpu = time.perf_counter(), time.process_time()
            pv.build_over_time(str(path), DOM, time="t", lon="x", lat="y", span=(0, 365 * 86_400), epsilon=1.0,
                               **kw)
            lines.append(f"| {name} | {time.perf_counter() - t:.1f} | {time.process_time() - cpu:.1f} | "
                         f"{reads['n']} | {load:.1f} |")
    finally:
        pq.read_table = original
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller streams, one seed; prints without writing")
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--points", type=int, default=10_000_000)
    ap.add_argument("--only", choices=["accuracy", "coverage", "speed"], default=None,
                    help="run one part and print it (the file is written by a whole run)")
    a = ap.parse_args()
    parts = {"accuracy": lambda: accuracy_section(1 if a.quick else a.seeds, a.quick),
             "coverage": coverage_section,
             "speed": lambda: speed_section(a.points if not a.quick else 1_000_000)}
    if a.only:
        print(parts[a.only]())
        return 0
    text = "\n".join(parts[k]() for k in ("accuracy", "coverage", "speed"))
    publish_section(text, OUT, write=not a.quick)
    return 0


if __name__ == "__main__":
    sys.exit(main())
