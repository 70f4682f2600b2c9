"""Do the points show structure inside a level's parent cells? A private test that lets a tree stop
above levels the data fill evenly.

Rule. Level l has 2^l x 2^l cells; each cell c of level l - 1 is halved along x and along y, and
d_c = x1_c - x0_c (points in its right half less its left half; e_c likewise along y). The imbalance
S_l = sum_c (|d_c| + |e_c|) + sum_b (|sum_{c in b} d_c| + |sum_{c in b} e_c|), b the blocks of 8 x 8 cells
of level l - 1 (the level three above: a smooth gradient, too weak to see in one cell, adds up in a block),
is what level l can tell a query that level l - 1 cannot. Were the points spread evenly inside every parent
cell, each point's half would be a fair coin, so S_l would have the law of R_l, the same sums with d_c and
e_c replaced by 2 B_c - n_c, B_c ~ Bin(n_c, 1/2) drawn here (one coin per point and axis). The fact is
D_l = S_l - R_l + two-sided geometric noise: zero mean when the level adds nothing. Structure is claimed
when D_l exceeds three standard deviations of D_l without structure (sqrt(8 N): each |sum of k coins| has
variance at most k / 2) plus three noise scales. A tree keeps its rule's height h when level h shows
structure, else the finest tested level that does, else h - TESTED_LEVELS. The test is bought only where
it has power: three noise scales at most 1 % of N (N eps >= 7.2 10^5 with the defaults).

Why: with a grid finer than the data's precision (DPBench places each point uniformly inside its cell of
a 256 x 256 grid; the default grid has 2^20 cells per side) the height rule's deepest levels split cells
the points fill evenly: their counts only add noise and take budget from the levels that carry the
structure. Figures: docs/decisions/fine-structure.md.

Privacy: adding or removing one point changes d and e of one cell, and of its block, by one each, so S_l
moves by at most 4, and, coupling the point's own two coins, R_l by at most 4: D_l moves by at most 8
(sensitivity 8; the coins are drawn independently of the data, so the bound holds for every draw, hence
for the law). The levels tested are TESTED_LEVELS sequential steps of
epsilon_test / TESTED_LEVELS each. Whether the test is bought depends on the noisy N only (a released
value); the height it returns is post-processing of released facts.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.ledger import Ledger
from ..core.noise import geometric_noise
from ..core.rng import Randomness

STRUCTURE_FRACTION = 0.01    # share of epsilon the test spends when it is bought
TESTED_LEVELS = 3            # the rule's deepest levels tested
SENSITIVITY = 8              # one point: one cell and one block, two axes, its count and its coins
BLOCK_CELLS = 4 ** 3         # parent cells per block: 8 x 8 (the level three above the parents)
POWER_SHARE = 0.01           # bought when three noise scales are at most this share of N
Z = 3.0                      # standard deviations (of the no-structure law) and noise scales in the threshold


@dataclass(frozen=True)
class LevelTest:
    """One tested level: the noisy excess imbalance and the threshold it was compared with."""

    level: int
    noisy: int
    threshold: float

    @property
    def structured(self) -> bool:
        return self.noisy > self.threshold


def noise_scale(epsilon: float) -> float:
    """Noise scale of one level's fact when the test spends STRUCTURE_FRACTION of ``epsilon``."""
    return SENSITIVITY * TESTED_LEVELS / (STRUCTURE_FRACTION * epsilon)


def worth_testing(n: float, epsilon: float, height: int) -> bool:
    """Bought when three noise scales are at most POWER_SHARE of the (noisy) N and the tree keeps at least
    one level below the root after the deepest cut: a function of released values and public settings."""
    return height > TESTED_LEVELS and Z * noise_scale(epsilon) <= POWER_SHARE * n


def _imbalance(dx: np.ndarray, dy: np.ndarray) -> int:
    """sum |d| over the parent cells plus sum |sum d| over their blocks, both axes (d in Morton order)."""
    group = min(BLOCK_CELLS, dx.size)
    return int(sum(np.abs(d).sum() + np.abs(d.reshape(-1, group).sum(axis=1)).sum() for d in (dx, dy)))


def half_imbalance(children: np.ndarray) -> tuple[int, np.ndarray]:
    """S_l and the parents' counts from one level's counts in Morton order (four children per parent: x in
    bit 0, y in bit 1)."""
    c = np.asarray(children, np.int64).reshape(-1, 4)
    return _imbalance(c[:, 1] + c[:, 3] - c[:, 0] - c[:, 2], c[:, 2] + c[:, 3] - c[:, 0] - c[:, 1]), c.sum(axis=1)


def coin_imbalance(parents: np.ndarray, rng: np.random.Generator) -> int:
    """R_l: the same imbalance from fair coins, one per point and axis, drawn as Bin(n_c, 1/2) per cell."""
    n = np.asarray(parents, np.int64)
    return _imbalance(2 * rng.binomial(n, 0.5) - n, 2 * rng.binomial(n, 0.5) - n)


def excess_imbalance(children: np.ndarray, rng: np.random.Generator) -> int:
    """D_l before noise: S_l - R_l (module docstring)."""
    s, parents = half_imbalance(children)
    return s - coin_imbalance(parents, rng)


def threshold(n: float, epsilon: float) -> float:
    """Z standard deviations of D_l without structure (at most sqrt(8 N)) plus Z noise scales."""
    return Z * np.sqrt(8.0 * max(n, 1.0)) + Z * noise_scale(epsilon)


def test_levels(level_counts: list[np.ndarray], height: int, n: float, epsilon: float, rnd: Randomness,
                ledger: Ledger) -> tuple[int, list[LevelTest]]:
    """Test levels ``height``, ``height - 1``, ... (TESTED_LEVELS of them) with the counts of every level
    (root first, Morton order), STRUCTURE_FRACTION of ``epsilon`` in equal parts, one ledger line each.
    Returns the height to keep and the tests, deepest first."""
    eps_level = STRUCTURE_FRACTION * epsilon / TESTED_LEVELS
    limit = threshold(n, epsilon)
    tests = []
    for level in range(height, height - TESTED_LEVELS, -1):
        ledger.spend(f"structure test: level {level}", eps_level, "geometric", nodes=1, sensitivity=SENSITIVITY,
                     note=f"excess imbalance of the halves of the level-{level - 1} cells over fair coins "
                          "(one fact; sensitivity 8)")
        value = excess_imbalance(level_counts[level], rnd.rng)
        noisy = value + int(geometric_noise(rnd.rng, 1, eps_level, SENSITIVITY)[0])
        tests.append(LevelTest(level, noisy, limit))
    kept = next((t.level for t in tests if t.structured), height - TESTED_LEVELS)
    return kept, tests


def cut_note(height: int, kept: int, tests: list[LevelTest]) -> str | None:
    """The release's note when the test cut the tree (None when it kept the rule's height)."""
    if kept == height:
        return None
    deeper = f"level {height}" if height == kept + 1 else f"levels {kept + 1}-{height}"
    return (f"height {height} (from N and epsilon) cut to {kept}: a private test ({STRUCTURE_FRACTION:.0%} of "
            f"epsilon) found no structure inside the level-{kept} cells, so {deeper} would only add noise")
