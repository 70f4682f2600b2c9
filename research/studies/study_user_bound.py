"""Which quantile of the users' totals should a release over time take as its bound L? A tuning family of streams
chooses it; bench_time's own two streams (never used here) check it.

For each tuning stream (``psdviz.lab.synthetic.event_stream`` with the settings below, seeds 7001+) and each
candidate quantile q, L is the smallest rung of the public ladder (``psdviz.temporal.user_bound.ladder``) at or
above the exact q-quantile of the users' totals (the rule without its noise, so that the rule is compared, not the
draw); the tree over time is built at epsilon 1 (user level, m = 1, the 8 x 8 grid) and its mean relative error is
measured as bench_time measures it (40 whole-cell rectangles, 20 ranges of one window, a week, a month and the
span). A quantile's regret in a cell is its error over the best quantile's in that cell, summarised over every
range length and over ranges of a week or more (the ranges the tree over time is for: a single window only has to
do no worse than a release of its own). The public rule it replaces, L = T / 24 rounded up to a
power of two, is shown beside it.

    python research/studies/study_user_bound.py        # writes research/studies/user_bound.md
"""
from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
import bench_time as bt  # noqa: E402

import psdviz as pv  # noqa: E402
from psdviz.lab.metrics import relative_error  # noqa: E402
from psdviz.lab.synthetic import event_stream  # noqa: E402
from psdviz.temporal.bounding import bound_per_window, kept_totals  # noqa: E402
from psdviz.temporal.user_bound import ladder  # noqa: E402

OUT = Path(__file__).with_name("user_bound.md")
QUANTILES = (0.5, 0.75, 0.85, 0.9, 0.95, 0.99)
TUNING = (  # (users, events a day a user, log-sd of activity, days): none is a bench_time stream
    (100_000, 0.03, 0.75, 64), (100_000, 0.03, 0.75, 182), (50_000, 0.1, 1.25, 64), (50_000, 0.1, 1.25, 182),
    (300_000, 0.01, 0.5, 182), (300_000, 0.02, 1.5, 182))


def errors(xy, secs, user, windows: int, bound: int, rects, starts, cum) -> list[float]:
    common = {"time": secs, "span": (0, windows * 86_400), "epsilon": bt.EPS, "unit": "user", "user": user,
              "max_points_per_window": bt.M, "max_points_per_user": int(bound), "grid_level": bt.LEVEL, "seed": 5}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rel = pv.build_over_time(xy, bt.DOM, **common)
    n = len(secs)
    out = []
    for name, r in zip(bt.RANGES, (1, 7, 30, windows)):
        out.append(float(np.mean([relative_error(rel.answer(rects, int(a), int(a + r - 1)), cum[a + r] - cum[a],
                                                 int(n * r / windows)) for a in starts[name]])))
    return out


def tuning_stream(setting, seed: int):
    """One tuning stream and what it is measured on: (rng, xy, seconds, user, window, rectangles, the rectangles'
    cumulative true counts over the windows, the 20 starts of each range length)."""
    users, rate, spread, windows = setting
    rng = np.random.default_rng(seed)
    xy, secs, user = event_stream(users, windows, bt.DOM, rng, rate=rate, spread_of_activity=spread)
    window = secs // 86_400
    rects = bt.rectangles(rng)
    truth = np.stack([pv.true_answer(xy[window == t], rects) for t in range(windows)])
    cum = np.vstack([np.zeros(len(rects)), np.cumsum(truth, axis=0)])
    starts = {name: rng.integers(0, windows - r + 1, 20) for name, r in zip(bt.RANGES, (1, 7, 30, windows))}
    return rng, xy, secs, user, window, rects, cum, starts


def stream_cells(setting, seed: int) -> dict:
    windows = setting[3]
    rng, xy, secs, user, window, rects, cum, starts = tuning_stream(setting, seed)
    totals = kept_totals(user, bound_per_window(user, window, bt.M, rng))
    rungs = ladder(bt.M, windows)
    out = {}
    for q in QUANTILES:
        bound = int(rungs[np.searchsorted(rungs, np.quantile(totals, q))])
        out[q] = (bound, errors(xy, secs, user, windows, bound, rects, starts, cum))
    public = bt.bound_for(windows)
    out["public"] = (public, errors(xy, secs, user, windows, public, rects, starts, cum))
    return out


def regret_table(cells: list[dict], ranges: slice) -> tuple[dict, dict]:
    """Per quantile (and the public rule), the geometric-mean and worst regret over the tuning cells of the
    ranges ``ranges`` (a slice of bt.RANGES)."""
    regrets: dict = {q: [] for q in (*QUANTILES, "public")}
    for c in cells:
        best = np.min([c[q][1][ranges] for q in QUANTILES], axis=0)
        for q in regrets:
            regrets[q] += list(np.asarray(c[q][1][ranges]) / best)
    return ({q: float(np.exp(np.mean(np.log(r)))) for q, r in regrets.items()},
            {q: float(np.max(r)) for q, r in regrets.items()})


def main() -> int:
    rows, cells = [], []
    for i, setting in enumerate(TUNING):
        c = stream_cells(setting, 7001 + i)
        cells.append(c)
        for q, (bound, errs) in c.items():
            rows.append(f"| {setting[0]:,} users, {setting[1]:g} a day, log-sd {setting[2]:g}, T = {setting[3]} | "
                        f"{q} | {bound} | " + " | ".join(f"{e:.3g}" for e in errs) + " |")
        print(rows[-1], flush=True)
    text = ["# The bound L over time: which quantile of the users' totals (tuning family only)", "",
            "_Generated by `python research/studies/study_user_bound.py`: epsilon 1, m = 1, the 8 x 8 grid, the "
            "tree over time; mean relative error of 40 whole-cell rectangles over 20 ranges of each length._", "",
            "| stream | q | L | " + " | ".join(bt.RANGES) + " |", "|---|---|---:|" + "---:|" * len(bt.RANGES), *rows]
    for title, ranges in (("every range length", slice(0, 4)), ("ranges of a week or more", slice(1, 4))):
        mean, worst = regret_table(cells, ranges)
        chosen = min(QUANTILES, key=lambda q: mean[q])
        text += ["", f"Regret over {title} (error over the best quantile's, per cell): geometric mean and worst over "
                 f"{len(TUNING) * len(bt.RANGES[ranges])} tuning cells.", "", "| q | geometric mean | worst |",
                 "|---|---:|---:|", *(f"| {q} | {mean[q]:.3f} | {worst[q]:.2f} |" for q in mean), "",
                 f"Least geometric-mean regret: q = {chosen}."]
    OUT.write_text("\n".join(text) + "\n")
    print("\n".join(text[len(rows) + 6:]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
