"""Would one bound L per level of the tree over time do better than one L for every range? (A study: the product
has one L.)

Each user's events after the bound of m = 1 a window are put in a random order once; level d of the tree (fanout 8
at T = 365: leaves of one window, then 8, 64, 512 windows) counts the user's first L_d events, so the kept sets are
nested and level d's sensitivity is L_d (the intervals of a level are disjoint): two-sided geometric noise at
epsilon / levels and sensitivity L_d per level is epsilon-DP by sequential composition, whatever the L_d (here
they are fixed by hand, not chosen from the data). The levels then estimate differently bounded counts; the tree's
least squares (psdviz.temporal.timetree.TreeModel, each level's own variance) combines them as it is. Measured as
bench_time measures (40 whole-cell rectangles of the 8 x 8 grid, 20 ranges of each length, epsilon 1, one stream),
against T per-window releases at epsilon / T.

    python research/studies/study_per_level_bound.py     # writes research/studies/per_level_bound.md
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import bench_time as bt
import numpy as np

import psdviz as pv
from psdviz.core.noise import geometric_noise, geometric_variance
from psdviz.lab.metrics import relative_error
from psdviz.lab.synthetic import event_stream
from psdviz.temporal.mechanisms import choose_fanout
from psdviz.temporal.timetree import TimeTree, TreeModel

OUT_LINES: list[str] = []


def run(stream, windows, seed, plans, label=""):
    rng = np.random.default_rng(seed)
    xy, secs, user = event_stream(days=windows, domain=bt.DOM, rng=rng, **stream)
    window = secs // 86_400
    rects = bt.rectangles(rng)
    truth = np.stack([pv.true_answer(xy[window == t], rects) for t in range(windows)])
    cum = np.vstack([np.zeros(len(rects)), np.cumsum(truth, axis=0)])
    per_window = bt.per_window_baseline(xy, window, user, rects, windows)
    base = np.vstack([np.zeros(len(rects)), np.cumsum(per_window, axis=0)])
    lengths = dict(zip(bt.RANGES, (1, 7, 30, windows)))
    starts = {name: rng.integers(0, windows - r + 1, 20) for name, r in lengths.items()}
    # per-window bound m = 1, then a random order of each user's kept events: rank within user
    g = 1 << bt.LEVEL
    cellx = np.minimum((xy[:, 0] * g).astype(int), g - 1)
    celly = np.minimum((xy[:, 1] * g).astype(int), g - 1)
    cell = celly * g + cellx
    perm = rng.permutation(len(secs))
    key = user[perm] * windows + window[perm]
    o = perm[np.argsort(key, kind="stable")]
    k = user[o] * windows + window[o]
    first = np.r_[True, k[1:] != k[:-1]]
    kept = o[first]                                   # one event per (user, window)
    perm2 = rng.permutation(kept.size)
    kk = kept[perm2][np.argsort(user[kept[perm2]], kind="stable")]
    u = user[kk]
    st = np.r_[0, np.flatnonzero(u[1:] != u[:-1]) + 1]
    rank = np.arange(u.size) - np.repeat(st, np.diff(np.r_[st, u.size]))
    fan = choose_fanout(windows)
    tree = TimeTree(windows, fan)
    levels = tree.levels
    n = len(secs)
    def mre(answers_cum, name, r):
        return float(np.mean([relative_error(answers_cum(a, r), cum[a + r] - cum[a], int(n * r / windows))
                              for a in starts[name]]))
    bres = {name: mre(lambda a, r: base[a + r] - base[a], name, r) for name, r in lengths.items()}
    OUT_LINES.append(f"| {label} | per-window releases | " + " | ".join(f"{v:.3g}" for v in bres.values()) + " |")
    for name, Ls in plans.items():
        Ls = (list(Ls) + [list(Ls)[-1]] * levels)[:levels][::-1]       # given leaves first; level 0 is the root
        eps_level = bt.EPS / levels
        noisy = np.empty((g * g, tree.n_nodes))
        var = np.empty(levels)
        for d, L in enumerate(Ls):
            sel = kk[rank < L]
            counts = np.bincount(cell[sel] * windows + window[sel], minlength=g * g * windows).reshape(g * g, windows)
            nodes = tree.node_counts(counts)
            lo, hi = tree.bounds[d], tree.bounds[d + 1]
            noisy[:, lo:hi] = nodes[:, lo:hi] + geometric_noise(rng, (g * g, hi - lo), eps_level, L)
            var[d] = geometric_variance(eps_level, L)
        model = TreeModel(tree, var)
        est = model.estimate(noisy)                  # (cells, windows)
        ecum = np.concatenate([np.zeros((g * g, 1)), np.cumsum(est, axis=1)], axis=1)
        # rectangles of whole cells: which cells each rect covers
        cx = (np.arange(g * g) % g + 0.5) / g
        cy = (np.arange(g * g) // g + 0.5) / g
        inside = np.array([(cx > r[0]) & (cx < r[2]) & (cy > r[1]) & (cy < r[3]) for r in rects])
        res = {}
        for rname, r in lengths.items():
            res[rname] = mre(lambda a, r: inside @ (ecum[:, a + r] - ecum[:, a]), rname, r)
        line = f"| {label} | {name} | " + " | ".join(f"{res[k]:.3g} ({bres[k] / res[k]:.2f}x)" for k in res) + " |"
        OUT_LINES.append(line)
        print(line, flush=True)

PLANS = {"one L 16 (T / 24)": [16], "one L 46": [46], "leaves 16, 32, 46, root 128": [16, 32, 46, 128],
         "leaves 16, 32, 64, root 256": [16, 32, 64, 256], "leaves 46, 46, 64, root 128": [46, 46, 64, 128],
         "leaves 16, 46, 128, root 256": [16, 46, 128, 256]}

if __name__ == "__main__":
    for stream in ("heavy users", "sparse users"):
        run(bt.STREAMS[stream], 365, 100, PLANS, f"{stream}, T = 365")
    head = ["# One bound L per level of the tree over time (a study)", "",
            "_Generated by `python research/studies/study_per_level_bound.py`: bench_time's two streams at T = 365, "
            "one stream each, epsilon 1, m = 1; mean relative error (per-window releases' error over it)._", "",
            "| stream | L per level (leaves first) | " + " | ".join(bt.RANGES) + " |", "|---|---|" + "---:|" * 4]
    Path(__file__).with_name("per_level_bound.md").write_text("\n".join(head + OUT_LINES) + "\n")
