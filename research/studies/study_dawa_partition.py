"""DAWA's private partition, studied before building it: which calibration can be argued, and how each fares.

DAWA (Li, Hay, Miklau, Wang, PVLDB 2014) orders the 256 x 256 cells along a Hilbert curve, picks a
partition of that order into intervals by minimising the sum over buckets of (noisy L1 cost + 1/eps2),
then measures each bucket with Laplace(1/eps2). This script runs its dyadic form (intervals aligned to
powers of two: a binary tree over the order, solved exactly bottom-up) with the bucket counts measured
once each, under four calibrations of the interval costs (eps1 = eps / 4, eps2 = 3 eps / 4):

- ``published``: mean-deviation cost, Laplace((2 - 1/len - 1/n) / eps1) per interval, noisy cost clamped
  at 1/eps2 (the scale and clamp of the authors' code as read in ektelo's ``cutil.cpp``);
- ``path-sum``: the same with the noise scaled to the whole vector of dyadic costs (a cell lies in
  log2(n) + 1 intervals, each cost moves by < 2), an argument that needs no structure;
- ``unclamped``: median-deviation cost (moves by at most 1 per point), Laplace(2 / eps1), no clamp;
- ``leaky``: the same with the cost passed through max(v, v / 4) and Laplace(5 / eps1).

Five more selections whose privacy can be argued without the clamp (eps1 = eps / 2 for the first two and
``em-prior``, the better of the shares 1/4 and 1/2 measured):

- ``em``: the exponential mechanism over all dyadic partitions, utility -(sum of median deviations +
  lam per bucket), lam = max(1/eps2, 4/eps1); a point moves one bucket's deviation by at most 1, so
  weights exp(-eps1 cost / 2) give eps1-DP; sampled exactly (partition functions bottom-up, then each
  node kept with its weight over its partition function);
- ``l1-privtree``: PrivTree's biased test on the median deviation over the binary tree of dyadic
  intervals, split while max(dev - depth delta, theta - delta) + Lap(lam) > theta, theta = 1/eps2; the
  deviation never grows from parent to child and moves by at most 1 per point, in either direction, so
  PrivTree's series plus one more 1/lam for the leaf gives eps1 = (2 + e^(1/lam) beta / (beta - 1)) / lam;
- ``privtree-merge``: psdviz's PrivTree leaves (quadtree nodes are Hilbert intervals; tree 0.4 eps),
  their counts measured once with 0.2 eps, runs of leaves whose noisy count is below 2 / (0.2 eps)
  merged into one bucket (post-processing), the buckets measured again with 0.4 eps;
- ``em-prior``: ``em`` with a data-independent base measure (p = 1/2 per kept interval, 1 - p per split one),
  which keeps an empty region's partition function finite, so lam = 1 / eps2;
- ``ahp``: AHP (Zhang, Chen, Xu, Meng, Xie, SDM 2014) on the cells as one vector, DPBench's defaults (0.85 eps
  for every cell's noisy count, threshold 0.35 ln(n) / eps1, groups of sorted noisy values measured with the
  rest); it ignores the Hilbert order.

``--audit`` instead checks the clamp's privacy on two neighbouring vectors of 16 and of 32 cells (x = 0, ..., 0, 4
and the same with 5): it draws the ``published`` selection (eps1 = 1, 1/eps2 = 2) 1,500,000 (600,000) times for
each with common noise and prints the partition whose probability moves most, with binomial standard errors,
beside the same selection without the clamp; then the same for DAWA-2D's own selection as dpcomp_core runs it
(``approx_codes``) on 32 cells with the atom in the middle, and both clamped selections with their noise doubled,
tripled (and, the dyadic one, four times) over a few such pairs. An eps1-DP selection keeps every such log-ratio at
or below 1; a selection that passes these pairs is not shown to be eps1-DP.

It prints the DPBench-protocol MRE (resolution 8, the 200 queries) of each beside psdviz's own methods on
ADULT-2D and on sparse synthetic families. The arguments and the reading are in research/accuracy-notes.md
("DAWA-2D: why psdviz does not ship it"); nothing here is part of the engine.

    python research/studies/study_dawa_partition.py --runs 3 [--only em-prior ahp]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from scipy.optimize import brentq

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))    # the lab the studies build on
sys.path.insert(0, str(Path(__file__).resolve().parent))                       # the other studies
from bench_dpbench import DOMAIN, load_hist, method_spec, place, queries, truth

import psdviz as pv
from psdviz.lab.metrics import relative_error
from psdviz.lab.synthetic import zero_inflated
from psdviz.splits.hilbert_curve import encode

CALIBRATIONS = ("published", "path-sum", "unclamped", "leaky", "em", "l1-privtree", "privtree-merge", "em-prior",
                "ahp")
EPS1_SHARE = {"em": 0.5, "l1-privtree": 0.5, "privtree-merge": 0.4, "em-prior": 0.5}   # 1/4 otherwise, as DAWA
AHP_RATIO, AHP_ETA = 0.85, 0.35     # dpcomp_core's defaults for AHP
PSDVIZ = ("auto", "privtree", "kd-privtree", "kdtree", "hybrid+nnls")


def hilbert_order(side: int = 256) -> np.ndarray:
    i, j = np.meshgrid(np.arange(side), np.arange(side), indexing="ij")
    return np.argsort(encode(int(np.log2(side)), i.ravel(), j.ravel()))


def noisy_costs(blk: np.ndarray, how: str, eps1: float, eps2: float, rng: np.random.Generator) -> np.ndarray:
    n_levels = int(np.log2(blk.shape[0] * blk.shape[1])) + 1
    if how in ("published", "path-sum"):
        cost = np.abs(blk - blk.mean(1, keepdims=True)).sum(1)
        scale = 2.0 * (n_levels if how == "path-sum" else 1.0) / eps1
        return np.maximum(cost + rng.laplace(0, scale, cost.size) + 1 / eps2, 1 / eps2)
    cost = np.abs(blk - np.median(blk, 1, keepdims=True)).sum(1)
    if how == "unclamped":
        return cost + rng.laplace(0, 2 / eps1, cost.size) + 1 / eps2
    v = cost + rng.laplace(0, 5 / eps1, cost.size)
    return np.maximum(v, v / 4) + 1 / eps2


def dyadic_partition(x: np.ndarray, how: str, eps1: float, eps2: float, rng) -> tuple[np.ndarray, np.ndarray]:
    """Bucket starts and sizes of the cheapest partition into dyadic intervals (bottom-up: keep a node as
    one bucket when its noisy cost is at most its children's best)."""
    levels = int(np.log2(x.size))
    best, keep = None, []
    for lev in range(levels + 1):
        c = noisy_costs(x.reshape(-1, 2 ** lev), how, eps1, eps2, rng)
        k = np.ones(c.size, bool) if best is None else c <= best.reshape(-1, 2).sum(1)
        best = c if lev == 0 else np.where(k, c, best.reshape(-1, 2).sum(1))
        keep.append(k)
    return covering(keep[::-1], 2, x.size)


def median_deviations(x: np.ndarray) -> list[np.ndarray]:
    """Median deviation of every dyadic interval, by depth (root first)."""
    out = []
    for depth in range(int(np.log2(x.size)) + 1):
        blk = x.reshape(2 ** depth, -1)
        out.append(np.abs(blk - np.median(blk, 1, keepdims=True)).sum(1))
    return out


def covering(keep: list[np.ndarray], fanout: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Bucket starts and sizes: the shallowest kept node on each root-to-cell path (keep[d]: depth d)."""
    size, covered = np.zeros(n, np.int64), np.zeros(1, bool)
    for depth, k in enumerate(keep):
        span = n // fanout ** depth
        chosen = k & ~covered
        size[np.flatnonzero(chosen) * span] = span
        covered = np.repeat(covered | chosen, fanout)
    starts = np.flatnonzero(size)
    return starts, size[starts]


def em_partition(x: np.ndarray, eps1: float, eps2: float, rng,
                 prior: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """A dyadic partition drawn with probability proportional to exp(-eps1 cost / 2); with ``prior`` = p, times
    the data-independent base measure p per kept interval and 1 - p per split one (a branching process), which
    keeps the partition function of an empty region finite for any lam, so lam can be 1 / eps2."""
    devs = median_deviations(x)
    lam = 1 / eps2 if prior else max(1 / eps2, 4 / eps1)
    keep_w, split_w = (np.log(prior), np.log1p(-prior)) if prior else (0.0, 0.0)
    log_w = [-eps1 / 2 * (d + lam) for d in devs]
    log_z = log_w[-1]
    keep_log_p = [np.zeros(log_z.size)]                      # a cell is always kept when reached
    for depth in range(len(devs) - 2, -1, -1):
        log_w[depth] = log_w[depth] + keep_w
        log_z = np.logaddexp(log_w[depth], split_w + log_z.reshape(-1, 2).sum(1))
        keep_log_p.append(log_w[depth] - log_z)
    keep = [np.log(rng.random(p.size)) < p for p in keep_log_p[::-1]]
    return covering(keep, 2, x.size)


def l1_privtree_partition(x: np.ndarray, eps1: float, eps2: float, rng) -> tuple[np.ndarray, np.ndarray]:
    """PrivTree's biased split test on the median deviation, binary tree of dyadic intervals."""
    lam = brentq(lambda v: (2 + np.exp(min(1 / v, 50)) * 2) / v - eps1, 1e-9, 1e12)
    delta, theta, devs = lam * np.log(2), 1 / eps2, median_deviations(x)
    keep, live = [], np.ones(1, bool)
    for depth, d in enumerate(devs):
        biased = np.maximum(d - depth * delta, theta - delta)
        split = live & (biased + rng.laplace(0, lam, d.size) > theta) & (depth < len(devs) - 1)
        keep.append(live & ~split)
        live = np.repeat(split, 2)
    return covering(keep, 2, x.size)


def privtree_partition(x: np.ndarray, eps_tree: float, rng, beta: float = 4.0, theta: float = 0.0,
                       forced: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """PrivTree's leaves over the Hilbert order (quadtree nodes are runs of 4^k cells): bucket starts and sizes.
    lam = (2 beta - 1) / ((beta - 1) eps_tree), delta = lam ln beta; a node at depth d splits iff
    max(c - (d - forced) delta, theta - delta) + Lap(lam) > theta; the top ``forced`` depths split without a
    test (data-independent), so each node at that depth roots its own PrivTree on disjoint cells (parallel
    composition); ``theta`` in units of delta. psdviz's defaults: beta = 4, theta = 0, forced = 0."""
    lam = (2 * beta - 1) / ((beta - 1) * eps_tree)
    delta, depths = lam * np.log(beta), int(round(np.log(x.size) / np.log(4)))
    keep, live = [], np.ones(1, bool)
    for depth in range(depths + 1):
        c = x.reshape(4 ** depth, -1).sum(1)
        test = (np.maximum(c - max(depth - forced, 0) * delta, (theta - 1) * delta) + rng.laplace(0, lam, c.size)
                > theta * delta)
        split = live & ((depth < forced) | test) & (depth < depths)
        keep.append(live & ~split)
        live = np.repeat(split, 4)
    return covering(keep, 4, x.size)


def privtree_merge_buckets(x: np.ndarray, eps: float, rng) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """PrivTree (fanout 4, 0.4 eps) leaves, counted with 0.2 eps; runs of leaves below 2 / (0.2 eps) merged;
    the buckets measured with 0.4 eps. Returns bucket starts, sizes and noisy counts."""
    starts, sizes = privtree_partition(x, 0.4 * eps, rng)
    counts = np.add.reduceat(x, starts)
    low = counts + rng.laplace(0, 1 / (0.2 * eps), counts.size) < 2 / (0.2 * eps)
    new = np.ones(starts.size, bool)
    new[1:] = ~(low[1:] & low[:-1])
    bucket = np.cumsum(new) - 1
    b_counts = np.bincount(bucket, weights=counts)
    return starts[new], np.bincount(bucket, weights=sizes).astype(np.int64), \
        b_counts + rng.laplace(0, 1 / (0.4 * eps), b_counts.size)


def optimal_runs(n: int, run_cost) -> np.ndarray:
    """Ends (0 first) of the cut of 0..n into contiguous runs minimising the sum of ``run_cost(j)[i]``, the cost of
    the run [i, j) for every i < j, exactly (dynamic programme over the last run's start)."""
    best, arg = np.zeros(n + 1), np.zeros(n + 1, np.int64)
    for j in range(1, n + 1):
        cost = best[:j] + run_cost(j)
        arg[j] = np.argmin(cost)
        best[j] = cost[arg[j]]
    ends = [n]
    while ends[-1] > 0:
        ends.append(arg[ends[-1]])
    return np.array(ends[::-1])


def sorted_segments(v: np.ndarray, eps2: float) -> np.ndarray:
    """Ends of the contiguous groups of the sorted values ``v`` minimising the sum over groups of (squared
    deviation from the group mean + 2 / (eps2^2 size)), AHP's clustering objective, solved exactly (the
    authors' greedy approximates it)."""
    csum, csq = np.concatenate([[0.0], np.cumsum(v)]), np.concatenate([[0.0], np.cumsum(v * v)])

    def run_cost(j: int) -> np.ndarray:
        size, s = j - np.arange(j), csum[j] - csum[:j]
        return (csq[j] - csq[:j]) - s * s / size + 2 / (eps2 ** 2 * size)
    return optimal_runs(v.size, run_cost)


def ahp_estimate(x: np.ndarray, eps: float, rng) -> np.ndarray:
    """AHP (Zhang, Chen, Xu, Meng, Xie, SDM 2014) as DPBench runs it in 2-D (the cells as one vector): every
    cell with Laplace noise (ratio eps), values at or below eta ln(n) / eps1 set to 0, the cells sorted by noisy
    value and cut into groups (the zeros one group), each group's count measured once with the rest of epsilon
    and spread evenly. The grouping reads only the noisy counts, so the whole is eps-DP by sequential
    composition."""
    eps1, eps2 = AHP_RATIO * eps, (1 - AHP_RATIO) * eps
    noisy = x + rng.laplace(0, 1 / eps1, x.size)
    noisy[noisy <= AHP_ETA * np.log(x.size) / eps1] = 0
    order = np.argsort(noisy, kind="stable")
    zeros = int(np.sum(noisy == 0))
    ends = np.concatenate([[0], zeros + sorted_segments(noisy[order][zeros:], eps2)]) if zeros else \
        sorted_segments(noisy[order], eps2)
    ends = np.unique(ends)
    sizes = np.diff(ends)
    counts = np.add.reduceat(x[order], ends[:-1]) + rng.laplace(0, 1 / eps2, sizes.size)
    est = np.empty(x.size)
    est[order] = np.repeat(counts / sizes, sizes)
    return est


def dawa_estimate(hist: np.ndarray, eps: float, how: str, rng, noise: float = 1.0) -> np.ndarray:
    """The cells' estimates from the partition ``how`` (``noise``: a multiple of the dyadic selections' cost noise,
    the scales ``audit_scales`` checks), the buckets measured once with eps2 and spread evenly."""
    order = hilbert_order(hist.shape[0])
    x = hist.ravel()[order]
    eps1 = EPS1_SHARE.get(how, 0.25) * eps
    eps2 = eps - eps1
    if how == "ahp":
        est = np.empty(x.size)
        est[order] = ahp_estimate(x, eps, rng)
        return est.reshape(hist.shape)
    if how == "privtree-merge":
        starts, sizes, noisy = privtree_merge_buckets(x, eps, rng)
    else:
        part = {"em": em_partition, "l1-privtree": l1_privtree_partition,
                "em-prior": lambda *a: em_partition(*a, prior=0.5)}.get(how)
        starts, sizes = part(x, eps1, eps2, rng) if part else dyadic_partition(x, how, eps1 / noise, eps2, rng)
        noisy = np.add.reduceat(x, starts) + rng.laplace(0, 1 / eps2, starts.size)
    est = np.empty(x.size)
    est[order] = np.repeat(noisy / sizes, sizes)
    return est.reshape(hist.shape)


def families(n: int, rng: np.random.Generator) -> list[tuple[str, np.ndarray]]:
    """Sparse 256 x 256 histograms: atoms at random cells (Zipf 1.2 weights), a product of two discrete
    attributes, a heavy line plus a cloud (a salary-like pair), an interior zero-inflated pair."""
    out = []
    for k in (100, 1000):
        cells = rng.choice(65536, k, replace=False)
        w = 1.0 / np.arange(1, k + 1) ** 1.2
        out.append((f"{k} atoms", np.bincount(rng.choice(cells, n, p=w / w.sum()), minlength=65536)
                    .reshape(256, 256).astype(float)))
    xs, ys = rng.choice(256, 40, replace=False), rng.choice(256, 30, replace=False)
    h = np.zeros((256, 256))
    np.add.at(h, (rng.choice(xs, n, p=rng.dirichlet(np.full(40, 0.5))),
                  rng.choice(ys, n, p=rng.dirichlet(np.full(30, 0.5)))), 1)
    out.append(("40 x 30 discrete values", h))
    x = np.minimum(rng.lognormal(3.5, 0.6, n).astype(int), 255)
    y = np.where(rng.random(n) < 0.7, 0, np.minimum(rng.exponential(20, n).astype(int), 255))
    h = np.zeros((256, 256))
    np.add.at(h, (x, y), 1)
    out.append(("line + cloud", h))
    pts = zero_inflated(n, DOMAIN, rng, 0.6, 0.35, False)
    out.append(("zero-inflated, interior atom",
                np.histogram2d(pts[:, 0], pts[:, 1], bins=256, range=[[0, 256], [0, 256]])[0]))
    return out


def selection_codes(x: np.ndarray, eps1: float, eps2: float, noise: np.ndarray, clamp: bool) -> np.ndarray:
    """The ``published`` dyadic selection for every row of ``noise`` (draws x intervals, root first, then
    depth by depth), each chosen partition coded as the bit set of its intervals."""
    draws, levels = noise.shape[0], int(np.log2(x.size))
    scores, col = [], 0
    for depth in range(levels + 1):
        blk = x.reshape(2 ** depth, -1)
        v = np.abs(blk - blk.mean(1, keepdims=True)).sum(1) + noise[:, col:col + 2 ** depth] * 2 / eps1
        scores.append((np.maximum(v, 0.0) if clamp else v) + 1 / eps2)
        col += 2 ** depth
    best, keep = scores[levels], [np.ones((draws, x.size), bool)]
    for depth in range(levels - 1, -1, -1):
        split = best[:, 0::2] + best[:, 1::2]
        keep.append(scores[depth] <= split)
        best = np.minimum(scores[depth], split)
    keep = keep[::-1]
    code, covered, bit = np.zeros(draws, np.int64), np.zeros((draws, 1), bool), 0
    for k in keep:
        chosen = k & ~covered
        code |= (chosen.astype(np.int64) << (bit + np.arange(k.shape[1]))).sum(1)
        covered = np.repeat(covered | chosen, 2, axis=1)
        bit += k.shape[1]
    return code


def neighbours(cells: int, at: int, atom: float) -> tuple[np.ndarray, np.ndarray]:
    """x with ``atom`` points in cell ``at`` of ``cells``, and x' with one point more there."""
    x = np.zeros(cells)
    x[at] = atom
    x2 = x.copy()
    x2[at] += 1
    return x, x2


def worst_ratio(codes: np.ndarray, codes2: np.ndarray, least: int) -> tuple[float, int, float, float, float]:
    """Over the outcomes drawn at least ``least`` times under both vectors: the largest |log ratio| of their
    frequencies, its outcome, the two probabilities (smaller first) and the ratio's lower bound at 5 binomial
    standard errors."""
    a, b = (dict(zip(*np.unique(c, return_counts=True))) for c in (codes, codes2))
    ratio, k = max((abs(np.log(a[k] / b[k])), k) for k in a.keys() & b.keys() if min(a[k], b[k]) > least)
    p, q = sorted([a[k] / codes.size, b[k] / codes.size])
    low = np.log((q - 5 * np.sqrt(q / codes.size)) / (p + 5 * np.sqrt(p / codes.size)))
    return ratio, k, p, q, low


def audit() -> None:
    """The clamp's privacy on neighbouring 16- and 32-cell vectors (module docstring)."""
    for cells, draws in ((16, 1_500_000), (32, 600_000)):
        print(f"{cells} cells, {draws:,} draws:")
        audit_cells(cells, draws)


def audit_cells(cells: int, draws: int) -> None:
    x, x2 = neighbours(cells, cells - 1, 4)
    for clamp in (True, False):
        noise = np.random.default_rng(cells).laplace(0, 1, (draws, 2 * cells - 1))
        ratio, k, p, q, low = worst_ratio(*(selection_codes(v, 1.0, 0.5, noise, clamp) for v in (x, x2)), 1000)
        print(f"{'clamped' if clamp else 'not clamped'}: partition {k:#x}: probabilities {p:.5f} and {q:.5f} "
              f"(se {np.sqrt(p / draws):.5f}, {np.sqrt(q / draws):.5f}), |log ratio| = {ratio:.3f}, at least "
              f"{low:.3f} at 5 standard errors, against eps1 = 1")


def approx_codes(x: np.ndarray, eps1: float, eps2: float, u: np.ndarray) -> np.ndarray:
    """DAWA-2D's own selection as dpcomp_core runs it (L1partition_approx in its cutil.cpp, read and re-derived
    here): candidate buckets of every power-of-two length at every offset, mean-deviation cost plus 1/eps2 plus
    Laplace((2 - 1/len - 1/n) / eps1) (none for single cells), clamped at 1/eps2, the cheapest cover found left
    to right (a later, longer bucket wins ties). ``u``: uniforms (draws, n, lengths). Returns each draw's
    bucket starts as a bit set."""
    n, draws = x.size, u.shape[0]
    score = np.full((draws, n, u.shape[2]), np.inf)
    for k in range(u.shape[2]):
        size = 2 ** k
        for i in range(size - 1, n):
            seg = x[i - size + 1:i + 1]
            r = 0.5 - u[:, i, k]
            lap = (2 - 1 / size - 1 / n) / eps1 * np.sign(r) * np.log(1 - 2 * np.abs(r)) if size > 1 else 0.0
            score[:, i, k] = np.maximum(np.abs(seg - seg.mean()).sum() + 1 / eps2 + lap, 1 / eps2)
    cum, start = np.zeros((draws, n + 1)), np.zeros((draws, n + 1), np.int64)
    for i in range(n):
        cum[:, i + 1], start[:, i + 1] = cum[:, i] + score[:, i, 0], i
        for k in range(1, u.shape[2]):
            if 2 ** k > i + 1:
                break
            cand = cum[:, i - 2 ** k + 1] + score[:, i, k]
            better = cand <= cum[:, i + 1]
            start[:, i + 1] = np.where(better, i - 2 ** k + 1, start[:, i + 1])
            cum[:, i + 1] = np.minimum(cand, cum[:, i + 1])
    code, pos = np.zeros(draws, np.int64), np.full(draws, n)
    for _ in range(n):
        live = pos > 0
        s0 = start[np.arange(draws), pos]
        code |= np.where(live, np.int64(1) << np.maximum(s0, 0), 0)
        pos = np.where(live, s0, 0)
    return code


def audit_scales(scales: tuple[float, ...] = (1.0, 2.0, 3.0, 4.0), own: bool = False) -> None:
    """The clamped selection (``own``: DAWA-2D's own, ``approx_codes``, with fewer draws) with its noise multiplied
    by each scale: the worst log ratio over neighbouring pairs (16 and 32 cells, atoms of 4 and 8 points at the end
    or the middle, 1/eps2 in 1, 2, 4)."""
    for k in scales:
        worst = 0.0
        for cells, draws in ((16, 300_000), (32, 200_000)) if own else ((16, 600_000), (32, 300_000)):
            for atom in (4, 8):
                rng = np.random.default_rng(cells + atom)
                noise = (rng.random((draws, cells, int(np.log2(cells)) + 1)) if own
                         else rng.laplace(0, 1, (draws, 2 * cells - 1)))
                for inv2 in (1.0, 2.0, 4.0):
                    for j in (cells - 1, cells // 2):
                        pair = neighbours(cells, j, atom)
                        codes = [approx_codes(v, 1 / k, 1 / inv2, noise) if own
                                 else selection_codes(v, 1 / k, 1 / inv2, noise, True) for v in pair]
                        worst = max(worst, worst_ratio(*codes, 300)[0])
        print(f"{'DAWA-2D' if own else 'dyadic'}, clamped, noise x {k:g}: worst |log ratio| {worst:.3f} "
              "against eps1 = 1", flush=True)


def audit_dpcomp(cells: int = 32, draws: int = 400_000) -> None:
    """DAWA-2D's own selection (eps1 = 1, 1/eps2 = 2) on x with 4 points in its middle cell and a fifth."""
    u = np.random.default_rng(cells + 4).random((draws, cells, int(np.log2(cells)) + 1))
    ratio, k, p, q, low = worst_ratio(*(approx_codes(v, 1.0, 0.5, u) for v in neighbours(cells, cells // 2, 4)), 400)
    print(f"DAWA-2D's own selection, {cells} cells, {draws:,} draws: bucket starts {k:#x}: probabilities {p:.5f} and "
          f"{q:.5f}, |log ratio| = {ratio:.3f}, at least {low:.3f} at 5 standard errors, against eps1 = 1")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--n", type=int, default=70_000)
    ap.add_argument("--audit", action="store_true", help="check the clamp's privacy on two 16-cell vectors")
    ap.add_argument("--only", nargs="+", choices=CALIBRATIONS, help="the calibrations to run (default: all)")
    a = ap.parse_args()
    calibrations = tuple(a.only or CALIBRATIONS)
    if a.audit:
        audit()
        audit_scales()
        audit_dpcomp()
        audit_scales((1.0, 2.0, 3.0), own=True)
        return 0
    q = queries()
    sets = [("ADULT-2D", load_hist("Adult_2D_256_256"))] + families(a.n, np.random.default_rng(a.n))
    print("| data | eps | " + " | ".join(calibrations + PSDVIZ) + " |")
    print("|---|---:|" + "---:|" * (len(calibrations) + len(PSDVIZ)))
    for label, hist in sets:
        n, t = hist.sum(), truth(hist, q)
        pts = [place(hist, np.random.default_rng(1000 + r)) for r in range(a.runs)]
        for eps in (0.1, 1.0):
            cells = []
            for how in calibrations:
                e = [np.mean(relative_error(truth(dawa_estimate(hist, eps, how, np.random.default_rng(r)), q), t, n))
                     for r in range(a.runs)]
                cells.append(np.mean(e))
            for m in PSDVIZ:
                name, extra = method_spec(m)
                e = [np.mean(relative_error(pv.build(pts[r], DOMAIN, name, eps, seed=10_000 * r + int(eps * 10),
                                                     resolution=8, **extra).answer(q), t, n)) for r in range(a.runs)]
                cells.append(np.mean(e))
            print(f"| {label} | {eps:g} | " + " | ".join(f"{c:.4f}" for c in cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
