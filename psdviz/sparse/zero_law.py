"""What happens to a cell whose true count is 0: pass probability and conditional value (ICDT'12).

Remark 1: every zero cell gets the same two-sided geometric noise nu, so it enters the summary with
one probability p and, given that, one conditional law. All the paper's methods are one weight
w(nu) = [pass the filter] * min(|nu| / tau, 1): the one-sided filter (section 2.2: nu >= theta), the
two-sided filter (C.1: |nu| >= theta), threshold sampling (section 2.3, C.2: theta = 0, tau) and
filter + threshold (section 2.4, C.4). With v0 = max(theta, 1) and T = floor(tau),

    p = c (1 - a)/(1 + a) [ sum_{v=v0..T} (v / tau) a^v + sum_{v >= max(v0, T+1)} a^v ]

with c = 2 for two-sided laws, 1 for the one-sided filter: for integer tau exactly the paper's
p_theta, p_tau and p_{theta,tau} (closed forms in :func:`paper_p_theta` etc.; a non-integer tau sums
the exact series). Values follow P(|nu| = v | pass) proportional to min(v / tau, 1) a^v (sign uniform
when two-sided), drawn as a mixture: the tail (weight 1) is ``start + geometric``, the CDF of C.1;
the body (v0 <= v <= T) is inverted from a cumulative table cut where a^(v - v0) < e^-60 and refused
beyond TABLE_MAX entries. Privacy: this samples the same law as noising every zero cell (Remark 1).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..core.errors import ParameterError
from ..core.noise import check_noise_scale

TABLE_MAX = 20_000_000
CUT_LOG = 60.0
# The zero cells' law works with a = exp(-epsilon / sensitivity) as a double, the explicit cells' noise
# with the exact -expm1 (core.noise). Rounding a to a double moves 1 - a by up to 1.1e-16 / (epsilon /
# sensitivity) relatively: 0.8 % at the samplers' floor of 7.1e-15 (an audit measured a loss of 0.0109 there
# against a claim of 7.2e-15), 1.1e-10 at 1e-6, where the two laws agree to well below the claim.
MIN_CELL_EPSILON = 1e-6


def alpha_of(epsilon: float, sensitivity: float = 1.0) -> float:
    """a = exp(-epsilon / sensitivity), the geometric mechanism's parameter (section 2.1); refused when
    the per-cell epsilon / sensitivity is below :data:`MIN_CELL_EPSILON`, where the zero cells' law (a
    computed in double precision) would no longer match the explicit cells' exact sampler."""
    check_noise_scale(sensitivity / epsilon)
    if epsilon / sensitivity < MIN_CELL_EPSILON:
        raise ParameterError(f"a sparse summary needs epsilon / sensitivity of at least {MIN_CELL_EPSILON:g} for its "
                             f"cell counts (got {epsilon / sensitivity:.3g}): below it the zero cells' law cannot be "
                             "sampled exactly in double precision; raise epsilon")
    return math.exp(-epsilon / sensitivity)


def _g(a: float, x: int) -> float:
    """sum_{v=0..x} v a^v = a (1 - (x+1) a^x + x a^(x+1)) / (1-a)^2  (appendix C.2, eq. 2)."""
    if x <= 0:
        return 0.0
    return a * (1.0 - (x + 1) * a ** x + x * a ** (x + 1)) / (1.0 - a) ** 2


def _vsum(a: float, lo: int, hi: int) -> float:
    """sum_{v=lo..hi} v a^v = a^lo [lo (1 - a^(J+1)) / (1-a) + g(J)], J = hi - lo.

    Written from a^lo so that no two large, nearly equal partial sums are subtracted.
    """
    if hi < lo:
        return 0.0
    span = hi - lo
    return a ** lo * (lo * (1.0 - a ** (span + 1)) / (1.0 - a) + _g(a, span))


@dataclass(frozen=True)
class ZeroLaw:
    """Fate of a zero cell under filter ``theta`` (0: none), sampling ``tau`` (None: none)."""

    alpha: float
    theta: int = 0
    tau: float | None = None
    two_sided: bool = True

    @property
    def v0(self) -> int:
        return max(int(self.theta), 1)

    @property
    def _tau(self) -> float:
        """tau as a number (inf when there is no sampling: then no magnitude lies in the body)."""
        return math.inf if self.tau is None else float(self.tau)

    @property
    def body_end(self) -> int:
        """Last magnitude with weight v/tau < 1 (v0 - 1 when there is no such magnitude)."""
        if self.tau is None:
            return self.v0 - 1
        return max(int(math.floor(self.tau)), self.v0 - 1)

    def pass_probability(self) -> float:
        """p: chance that a zero cell ends up in the summary (closed form, see module doc)."""
        a, v0, t_end = self.alpha, self.v0, self.body_end
        if a <= 0.0:
            return 0.0
        tail_start = max(v0, t_end + 1)
        tail = a ** tail_start / (1.0 - a)
        body = _vsum(a, v0, t_end) / self._tau if t_end >= v0 else 0.0
        side = 2.0 if self.two_sided else 1.0
        return min(1.0, side * (1.0 - a) / (1.0 + a) * (body + tail))

    def _body_table(self) -> np.ndarray:
        """Cumulative masses (scaled by a^-v0) of magnitudes v0..end with weight v/tau."""
        a, v0, t_end = self.alpha, self.v0, self.body_end
        span = t_end - v0 + 1
        if span <= 0 or a <= 0.0:
            return np.empty(0)
        cut = span if a >= 1.0 else min(span, int(CUT_LOG / -math.log(a)) + 1)
        if cut > TABLE_MAX:
            raise ParameterError(f"epsilon/sensitivity is too small for the sampling threshold tau={self.tau:g} "
                                 f"(value table of {cut} entries > {TABLE_MAX}); raise epsilon or lower tau")
        j = np.arange(cut, dtype=float)
        return np.cumsum((v0 + j) / self._tau * np.exp(j * math.log(a)))

    def sample_values(self, rng: np.random.Generator, k: int) -> np.ndarray:
        """k values of M'(i) for zero cells conditioned on being kept (exact law, see module doc)."""
        if k == 0:
            return np.empty(0, dtype=np.int64)
        a, v0 = self.alpha, self.v0
        table = self._body_table()
        tail_start = max(v0, self.body_end + 1)
        tail_mass = a ** (tail_start - v0) / (1.0 - a)      # scaled by a^-v0, like the table
        body_mass = float(table[-1]) if table.size else 0.0
        in_body = rng.random(k) * (body_mass + tail_mass) < body_mass
        mag = np.empty(k, dtype=np.int64)
        nb = int(in_body.sum())
        if nb:
            u = rng.random(nb) * body_mass
            mag[in_body] = v0 + np.minimum(np.searchsorted(table, u, side="right"), table.size - 1)
        nt = k - nb
        if nt:
            mag[~in_body] = tail_start + rng.geometric(1.0 - a, size=nt).astype(np.int64) - 1
        if self.two_sided:
            mag = np.where(rng.random(k) < 0.5, -mag, mag)
        return mag


def paper_p_theta(a: float, theta: int, two_sided: bool = False) -> float:
    """Appendix C.1: p_theta = a^theta / (1 + a); two-sided 2 a^theta / (1 + a)."""
    return (2.0 if two_sided else 1.0) * a ** theta / (1.0 + a)
