"""Parameter choices from a target output size (ICDT'12 appendix C.1, C.2) and table statistics.

- Filter: pick p_theta ~ t / (m - n) so that about t zero cells pass:
  theta = log((1 + a) t / (m - n)) / log a (one-sided; two-sided halves p: (1 + a) t / (2 (m - n))).
  We round up to an integer >= 1 (so the expected number of upgraded zeros is at most t).
- Threshold sampling: tau = (||M||_1 + 2 m a / (1 - a^2)) / t (appendix C.2).
- Priority / filter-priority default size s = n (section 4: "sample size equal to the number of
  non-zeros"); filter-priority default theta = half the mean non-zero count (section 4.2: "theta =
  40 is about optimal ... in the region of half of the mean mu").

These formulas need n and ||M||_1. The paper assumes both public (section 2.1) "otherwise it is
straightforward to add the necessary noise": ``stats="public"`` follows the paper's assumption
(the caller declares them public); ``stats="noisy"`` (default) buys both with a slice
``stats_fraction`` of epsilon, half each, geometric noise with the table's declared sensitivity s
(one individual changes ||M||_1 by at most s and, spreading those s units over s cells, n by at most
s; s = 1 for one row per individual), recorded in the ledger. They are only measured when a default
or a target size needs them.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal, get_args

from ..core.errors import ParameterError
from ..core.ledger import Ledger
from ..core.noise import geometric_noise
from ..core.rng import Randomness
from ..core.validation import check_fraction
from .table import SparseTable

Stats = Literal["noisy", "public"]   # where n and ||M||_1 for the formulas come from
STATS_MODES: tuple[str, ...] = get_args(Stats)


@dataclass(frozen=True)
class TableStats:
    n: float            # non-zero cells used in formulas (>= 1)
    l1: float           # ||M||_1 used in formulas (>= n)
    source: str
    epsilon: float


def table_stats(table: SparseTable, epsilon: float, rnd: Randomness, ledger: Ledger,
                stats: str, stats_fraction: float, sensitivity: float = 1.0) -> TableStats:
    """n and ||M||_1 for the parameter formulas: declared public, or noisy (sensitivity ``sensitivity``
    each, the L1 sensitivity of the table's cell counts)."""
    if stats not in STATS_MODES:
        raise ParameterError(f"stats must be one of {STATS_MODES} (got {stats!r})")
    if stats == "public":
        return TableStats(float(max(table.n, 1)), float(max(table.l1, 1)),
                          "declared public (paper section 2.1 assumption)", 0.0)
    frac = check_fraction(stats_fraction, "stats_fraction")
    eps = frac * epsilon
    ledger.spend("table statistics (n, ||M||_1)", eps, "geometric", nodes=2, sensitivity=sensitivity,
                 note=f"two counts of sensitivity {sensitivity:g} with epsilon/2 each; used only to pick parameters")
    noise = geometric_noise(rnd.rng, 2, eps / 2.0, sensitivity)
    n_hat = float(max(table.n + int(noise[0]), 1))
    l1_hat = float(max(table.l1 + int(noise[1]), n_hat))
    return TableStats(n_hat, l1_hat, f"noisy, epsilon {eps:g} ({frac:.0%} of the budget)", eps)


def theta_for_size(alpha: float, target: float, n_zero: float, two_sided: bool) -> int:
    """Appendix C.1: the filter threshold that upgrades about ``target`` zero cells."""
    p = target / max(n_zero, 1.0) / (2.0 if two_sided else 1.0) * (1.0 + alpha)
    if p >= 1.0 or alpha <= 0.0:
        return 1
    return max(1, math.ceil(math.log(p) / math.log(alpha)))


def tau_for_size(alpha: float, target: float, l1: float, m: int) -> float:
    """Appendix C.2: tau = (||M||_1 + 2 m a / (1 - a^2)) / t."""
    return max((l1 + 2.0 * m * alpha / (1.0 - alpha * alpha)) / target, 1e-9)
