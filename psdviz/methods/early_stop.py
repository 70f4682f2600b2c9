"""Pruning during the build: a node whose noisy count is small is not split, and its count is measured
again with the count budget of the levels below it (ICDE'12 section 7, as the authors' prototype
applies it).

Section 7 states the rule ("stop if the noisy count estimated for a node is less than a threshold
m") and the paper applies it after post-processing on the complete tree (``inference/prune.py``). The
authors' code (KTree.buildIndex / testLeaf, ported by Hien To) applies it while building, and gives a
node that stops at depth d the count budget of depths d+1..h for a second count; that is what makes
its kd-standard accurate on very sparse data (ADULT-2D at epsilon 0.1: 0.97 against 4.9 with pruning
after OLS). The prototype also stops at nodes with *no* points, an exact test that is not private; here
the decision reads only the noisy count of the node's own level, so it is post-processing of released
values and the structure below is never measured.

The threshold is at least one noise standard deviation (``STOP_SDS``; session 11): a node stops when its
noisy count is <= max(m, sd of that count). Reading of "less than a threshold m": the rule is meant to
stop nodes with few points, but when the count's noise is wider than m a noisy count above m says little,
and an *empty* node is split with probability 1/2 exp(-m / b) (Laplace-like noise of scale b): at
epsilon 0.1 (b = 100-400 per level on the height-8 kd-tree, 50-170 on the hybrid's height 5) that is
0.27-0.46, so each falsely split empty node has 1.1-1.9 falsely split children and the empty space grows a tree of noisy leaves (ADULT-2D: 600-1,500
leaves, the kd-tree's whole error there). With max(m, sd) the chance is at most 1/2 exp(-sqrt 2) = 0.12
per child, under 1/2 per node: the false tree dies out. Where the noise is below m (epsilon 1 on most
files) the rule is m as before. Measured (benchmarks/bench_dpbench.py protocol, 10 runs, MRE at epsilon 0.1,
m -> max(m, sd)): kd-tree ADULT-2D 2.39 -> 0.55 (the prototype's kd-standard: 0.97), STROKE 1.07 -> 0.73,
SF-CABS-S 0.342 -> 0.333, synthetic1M 0.050 -> 0.045, BJ-CABS-E 0.216 -> 0.218, GOWALLA 0.088 -> 0.088;
hybrid ADULT-2D 0.75 -> 0.30, STROKE 0.544 -> 0.407, SF-CABS-S 0.146 -> 0.087, BJ-CABS-E 0.026 -> 0.019,
synthetic1M 0.032 -> 0.025, GOWALLA 0.034 -> 0.031; at epsilon 1 every cell within 2 % (the noise is
below m). Two sds stopped too much (kd-tree ADULT-2D 0.78, STROKE 0.75); m + sd cost the kd-tree on STROKE
at epsilon 1 (0.222 -> 0.268), where max(m, sd) leaves it unchanged. The decision still reads only the
released noisy count and its public variance.

Privacy: every root-to-leaf path pays its count levels once: a node alive at depth k is measured with
eps_k; a node stopped at depth d is measured with eps_d, then once with eps_{d+1} + ... + eps_h, which
costs what the levels below would have (the regions are disjoint from the nodes still alive at those
depths, so each ledger line "count" at depth k covers both). The medians of a stopped node's subtree
were drawn before the decision, so they stay in the ledger and in the node's ``pruned_eps``. The second
count *replaces* the first, as in the prototype: the first was selected for being small (it is biased
low given the stop; averaging it in gave a bias of tens of points per stopped node at epsilon 0.1 and
made synthetic1M 16 % worse), the second is unbiased given the stop. The tree is then post-processed
by the general GLS (``inference/tree_gls.py``; the ICDE'12 OLS needs a complete tree).
"""
from __future__ import annotations

import numpy as np

from ..core.ledger import Ledger
from ..core.noise import geometric_noise, geometric_variance
from ..core.rng import Randomness
from ..core.tree import FlatTree

STOP_SDS = 1.0   # a node stops when its noisy count <= max(threshold, STOP_SDS * its noise sd)


def measure_with_stops(rnd: Randomness, ledger: Ledger, full: FlatTree, level_counts: list[np.ndarray],
                       eps: np.ndarray, threshold: float, split_by_depth: np.ndarray,
                       sds: float = STOP_SDS) -> FlatTree:
    """Measure the complete tree ``full`` top-down, stopping below nodes whose noisy count is <=
    max(threshold, sds * noise sd) (module docstring).

    ``level_counts``: exact counts per depth (root first, node order of ``full``); ``eps``: count
    epsilon per depth; ``split_by_depth``: the split epsilon of a node at each depth. Returns the
    measured sub-tree (noisy, noise_var, count_eps, pruned_eps set)."""
    counts = np.concatenate(level_counts).astype(np.int64)
    n, height = counts.size, full.height
    bounds = full.level_bounds()
    noisy, var, ceps = np.full(n, np.nan), np.full(n, np.inf), np.zeros(n)
    alive = np.zeros(n, bool)
    alive[0] = True
    stopped_above = 0
    rest = np.r_[np.cumsum(eps[::-1])[::-1][1:], 0.0]        # rest[d] = eps[d+1] + ... + eps[h]
    for d in range(height + 1):
        idx = bounds[d] + np.flatnonzero(alive[bounds[d]:bounds[d + 1]])
        if eps[d] > 0:
            ledger.spend("count", float(eps[d]), "geometric", level=d, nodes=int(idx.size) + stopped_above,
                         note="" if not stopped_above else
                         f"also {stopped_above} nodes stopped above this depth, measured once with the "
                         "count budget of the depths below them (pruning during the build)")
            noisy[idx] = counts[idx] + geometric_noise(rnd.rng, idx.size, float(eps[d]))
            var[idx], ceps[idx] = geometric_variance(float(eps[d])), eps[d]
        if d == height:
            break
        limit = np.maximum(threshold, sds * np.sqrt(var[idx])) if sds > 0 else threshold
        stop = idx[np.isfinite(noisy[idx]) & (noisy[idx] <= limit)]
        if stop.size and rest[d] > 0:
            _second_count(rnd, counts, stop, float(rest[d]), noisy, var, ceps)
        stopped_above += stop.size
        grow = np.setdiff1d(idx, stop, assume_unique=True)
        kids = (full.first_child[grow][:, None] + np.arange(4)).ravel()
        alive[kids] = True
    tree = FlatTree(rect=full.rect, depth=full.depth, parent=full.parent, first_child=full.first_child,
                    n_children=full.n_children, noisy=noisy, count_eps=ceps, split_eps=full.split_eps,
                    noise_var=var)
    kept = tree.take(alive)
    below = np.r_[np.cumsum(split_by_depth[::-1])[::-1][1:], 0.0]   # splits drawn under a node
    kept.pruned_eps = np.where(kept.is_leaf & (kept.depth < height), below[kept.depth], 0.0)
    return kept


def _second_count(rnd: Randomness, counts: np.ndarray, nodes: np.ndarray, eps: float, noisy: np.ndarray,
                  var: np.ndarray, ceps: np.ndarray) -> None:
    """Measure ``nodes`` again with ``eps``; the new count replaces the one that stopped them."""
    noisy[nodes] = counts[nodes] + geometric_noise(rnd.rng, nodes.size, eps)
    var[nodes] = geometric_variance(eps)
    ceps[nodes] += eps
