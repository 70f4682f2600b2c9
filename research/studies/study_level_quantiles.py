"""One bound L per level of the tree over time: which quantile of the users' totals at the leaves and which at the
root? A tuning family of streams chooses it; bench_time's own two streams (never used here) check it.

The rule studied: level d of the tree (root d = 0, leaves d = h) takes L_d, the smallest rung of the public ladder
(``psdviz.temporal.user_bound.ladder``) at or above the q_d-quantile of the users' totals after the bound of m a
window, where q_d runs linearly in d from ``q_root`` at the root to ``q_leaf`` at the leaves (the exact quantile:
the rule is compared, not its private draw). Each user's kept events are put in one random order and level d
counts the first L_d of them (nested sets; sensitivity L_d at level d; epsilon / (h + 1) a level), and the tree's
least squares combines the levels with their own variances. Measured as bench_time measures it (epsilon 1, m = 1,
40 whole-cell rectangles of the 8 x 8 grid, 20 ranges of one window, a week, a month and the span), on the tuning
streams of ``study_user_bound`` (two streams of each: seeds 7001+ and 7101+). Beside the pairs: one L at q = 0.9
(the rule of one L).

With ``--rescale`` each level's noisy counts are first divided by its share of the root's events (its noisy sum
over the root's, clipped to [0.05, 1]; the variance by the share's square), as the product's
``TreeTimeModel.for_values`` does, and the output goes to level_quantiles_rescaled.md.

A rule's regret in a cell is its error over the best rule's in that cell; the table gives the geometric mean and
the worst over ranges of a week or more (what the tree over time is for) and over single windows.

    python research/studies/study_level_quantiles.py              # writes research/studies/level_quantiles.md
    python research/studies/study_level_quantiles.py --rescale    # level_quantiles_rescaled.md
    python research/studies/study_level_quantiles.py --joint      # both, against the best of either: _joint.md
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "research" / "studies"))
import bench_time as bt  # noqa: E402
from study_user_bound import TUNING, tuning_stream  # noqa: E402

from psdviz.core.noise import geometric_noise, geometric_variance  # noqa: E402
from psdviz.lab.metrics import relative_error  # noqa: E402
from psdviz.temporal.bounding import bound_per_window, kept_totals  # noqa: E402
from psdviz.temporal.mechanisms import choose_fanout  # noqa: E402
from psdviz.temporal.timetree import TimeTree, TreeModel  # noqa: E402
from psdviz.temporal.user_bound import ladder  # noqa: E402

RESCALE = "--rescale" in sys.argv  # each level scaled to the root's kept total before the least squares
OUT = Path(__file__).with_name("level_quantiles_rescaled.md" if RESCALE else "level_quantiles.md")
LEAF = (0.5, 0.6, 0.75, 0.9)
ROOT_Q = (0.9, 0.95, 0.99)
SEEDS = (7001, 7101)           # two streams of each setting
RULES = [("one L", 0.9, 0.9)] + [(f"leaves {a:g}, root {b:g}", a, b) for a in LEAF for b in ROOT_Q if b >= a]


def level_bounds(totals: np.ndarray, m: int, windows: int, levels: int, q_leaf: float, q_root: float) -> list[int]:
    """L_d, root first: the ladder's rung at or above the q_d-quantile, q_d linear in depth."""
    rungs = ladder(m, windows)
    qs = np.linspace(q_root, q_leaf, levels) if levels > 1 else np.array([q_leaf])
    return [int(rungs[min(np.searchsorted(rungs, np.quantile(totals, q)), rungs.size - 1)]) for q in qs]


def stream_cells(setting, seed: int) -> dict:
    windows = setting[3]
    rng, xy, secs, user, window, rects, cum, starts = tuning_stream(setting, seed)
    lengths = dict(zip(bt.RANGES, (1, 7, 30, windows)))
    keep = bound_per_window(user, window, bt.M, rng)
    totals = kept_totals(user, keep)
    kept = np.flatnonzero(keep)
    kk = kept[rng.permutation(kept.size)]
    kk = kk[np.argsort(user[kk], kind="stable")]
    u = user[kk]
    st = np.r_[0, np.flatnonzero(u[1:] != u[:-1]) + 1]
    rank = np.arange(u.size) - np.repeat(st, np.diff(np.r_[st, u.size]))
    g = 1 << bt.LEVEL
    cell = (np.minimum((xy[:, 1] * g).astype(int), g - 1) * g + np.minimum((xy[:, 0] * g).astype(int), g - 1))
    tree = TimeTree(windows, choose_fanout(windows))
    cx, cy = (np.arange(g * g) % g + 0.5) / g, (np.arange(g * g) // g + 0.5) / g
    inside = np.array([(cx > r[0]) & (cx < r[2]) & (cy > r[1]) & (cy < r[3]) for r in rects], float)
    n = len(secs)
    out = {}
    for name, q_leaf, q_root in RULES:
        bounds = level_bounds(totals, bt.M, windows, tree.levels, q_leaf, q_root)
        eps = bt.EPS / tree.levels
        noisy, var = np.empty((g * g, tree.n_nodes)), np.empty(tree.levels)
        for d, bound in enumerate(bounds):
            sel = kk[rank < bound]
            counts = np.bincount(cell[sel] * windows + window[sel], minlength=g * g * windows).reshape(g * g, -1)
            lo, hi = tree.bounds[d], tree.bounds[d + 1]
            noisy[:, lo:hi] = tree.node_counts(counts)[:, lo:hi] + geometric_noise(rng, (g * g, hi - lo), eps, bound)
            var[d] = geometric_variance(eps, bound)
        if RESCALE:                 # each level's sum over the span against the root's: its kept share
            sums = np.array([noisy[:, tree.bounds[d]:tree.bounds[d + 1]].sum() for d in range(tree.levels)])
            scale = np.clip(sums / sums[0], 0.05, 1.0)
            noisy = noisy / np.repeat(scale, tree.level_nodes)[None, :]
            var = var / scale ** 2
        est = TreeModel(tree, var).estimate(noisy)
        ecum = np.concatenate([np.zeros((g * g, 1)), np.cumsum(est, axis=1)], axis=1)
        errs = [float(np.mean([relative_error(inside @ (ecum[:, a + r] - ecum[:, a]), cum[a + r] - cum[a],
                                              int(n * r / windows)) for a in starts[rn]]))
                for rn, r in lengths.items()]
        out[name] = (bounds, errs)
    return out


def regrets(cells: list[dict], ranges: slice) -> tuple[dict, dict]:
    names = [r[0] for r in RULES]
    got: dict = {k: [] for k in names}
    for c in cells:
        best = np.min([c[k][1][ranges] for k in names], axis=0)
        for k in names:
            got[k] += list(np.asarray(c[k][1][ranges]) / best)
    mean = {k: float(np.exp(np.mean(np.log(v)))) for k, v in got.items()}
    return mean, {k: float(np.max(v)) for k, v in got.items()}


def joint() -> int:
    """Both outputs' rules (read as they are and rescaled) against the best of all of them, cell by cell."""
    errors: dict = {}
    for name, tag in (("level_quantiles.md", ""), ("level_quantiles_rescaled.md", "rescaled, ")):
        for line in Path(__file__).with_name(name).read_text().splitlines():
            c = [x.strip() for x in line.strip().strip("|").split("|")]
            if line.startswith("| ") and "seed" in c[0]:
                errors[(c[0], tag + c[1])] = np.array([float(x) for x in c[3:7]])
    cells, rules = sorted({k[0] for k in errors}), sorted({k[1] for k in errors})
    week: dict = {r: [] for r in rules}
    one: dict = {r: [] for r in rules}
    for c in cells:
        best = np.min([errors[(c, r)] for r in rules], axis=0)
        for r in rules:
            week[r] += list(errors[(c, r)][1:] / best[1:])
            one[r].append(errors[(c, r)][0] / best[0])
    gm = {r: float(np.exp(np.mean(np.log(week[r])))) for r in rules}
    text = ["# One L per level: read as they are or rescaled, against the best of both (tuning family only)", "",
            "_Generated by `python research/studies/study_level_quantiles.py --joint` from level_quantiles.md and "
            "level_quantiles_rescaled.md: regret over the best of every rule of both, per cell._", "",
            "| rule | a week or more: geometric mean | worst | one window: geometric mean | worst |",
            "|---|---:|---:|---:|---:|",
            *(f"| {r} | {gm[r]:.3f} | {max(week[r]):.2f} | {np.exp(np.mean(np.log(one[r]))):.3f} | "
              f"{max(one[r]):.2f} |" for r in sorted(rules, key=gm.get))]
    Path(__file__).with_name("level_quantiles_joint.md").write_text("\n".join(text) + "\n")
    print("\n".join(text))
    return 0


def main() -> int:
    rows, cells = [], []
    for i, setting in enumerate(TUNING):
        for seed in SEEDS:
            c = stream_cells(setting, seed + i)
            cells.append(c)
            for name, (bounds, errs) in c.items():
                rows.append(f"| {setting[0]:,} users, {setting[1]:g} a day, log-sd {setting[2]:g}, T = {setting[3]}, "
                            f"seed {seed + i} | {name} | {', '.join(map(str, bounds))} | "
                            + " | ".join(f"{e:.3g}" for e in errs) + " |")
                print(rows[-1], flush=True)
    text = ["# One L per level of the tree over time: the quantiles at the leaves and the root (tuning family only)",
            "", f"_Generated by `python research/studies/study_level_quantiles.py{' --rescale' if RESCALE else ''}`: "
            f"{'each level read at its share of the root' + chr(39) + 's events; ' if RESCALE else ''}epsilon 1, "
            "m = 1, the 8 x 8 grid, the tree over time; mean relative error of 40 whole-cell rectangles over 20 "
            "ranges of each length._", "",
            "| stream | rule | L per level (root first) | " + " | ".join(bt.RANGES) + " |",
            "|---|---|---|" + "---:|" * len(bt.RANGES), *rows]
    week_mean, week_worst = regrets(cells, slice(1, 4))
    one_mean, one_worst = regrets(cells, slice(0, 1))
    text += ["", f"Regret (error over the best rule's, per cell): geometric mean and worst over {len(cells) * 3} "
             f"cells of ranges of a week or more and {len(cells)} cells of one window.", "",
             "| rule | a week or more: geometric mean | worst | one window: geometric mean | worst |",
             "|---|---:|---:|---:|---:|",
             *(f"| {k} | {week_mean[k]:.3f} | {week_worst[k]:.2f} | {one_mean[k]:.3f} | {one_worst[k]:.2f} |"
               for k in week_mean)]
    chosen = min(week_mean, key=lambda k: week_mean[k])
    text += ["", f"Least geometric-mean regret over ranges of a week or more: {chosen}."]
    OUT.write_text("\n".join(text) + "\n")
    print("\n".join(text[-(len(week_mean) + 6):]))
    return 0


if __name__ == "__main__":
    raise SystemExit(joint() if "--joint" in sys.argv else main())
