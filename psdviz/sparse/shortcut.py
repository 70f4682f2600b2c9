"""Shortcut summaries: draw M'' directly from M without materialising M' (ICDT'12 sections 2.2-2.4).

Input: the *explicit* cells (sorted indices and their noisy values M'(i) = M(i) + noise, i.e. the
n non-zero cells of M) and m. Every other cell is a zero of M whose fate follows one
:class:`ZeroLaw` (Remark 1): the number kept is Bin(m - n, p), their positions are uniform among
the zero cells (:func:`sample_zero_cells`), their values come from the conditional law. Cost
O(n + k), independent of m.

Every function returns a :class:`Summary` with the kept cells, their noisy values M''(i) and the
estimation weights (Horvitz-Thompson / priority adjusted weights where the paper has them).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..core.rng import post_processing
from .zero_law import ZeroLaw
from .zeros import sample_zero_cells


@dataclass
class Summary:
    indices: np.ndarray          # kept cells, ascending
    values: np.ndarray           # M''(i): the noisy values, int64
    weights: np.ndarray          # estimation weights (float)
    params: dict = field(default_factory=dict)   # resolved public parameters (e.g. tau_s)
    diagnostics: dict = field(default_factory=dict)  # internal (may depend on n): never exported


def _zero_part(rng: np.random.Generator, explicit: np.ndarray, m: int, law: ZeroLaw):
    n_zero = m - explicit.size
    k = int(rng.binomial(n_zero, law.pass_probability())) if n_zero > 0 else 0
    return sample_zero_cells(rng, explicit, m, k), law.sample_values(rng, k)


def _merge(idx_a, val_a, idx_b, val_b):
    idx = np.concatenate([idx_a, idx_b])
    val = np.concatenate([val_a, val_b]).astype(np.int64)
    order = np.argsort(idx)                           # indices are distinct: no ties
    return idx[order], val[order]


def filter_summary(rng, explicit, noisy, m: int, alpha: float, theta: int, two_sided: bool) -> Summary:
    """High-pass filter (section 2.2, Algorithm Filter; two-sided variant of appendix C.1).

    Keeps M'(i) >= theta (one-sided) or |M'(i)| >= theta (two-sided). Estimation uses the kept
    values as they are (biased, as the paper says in C.1 "Query Answering").
    """
    keep = (np.abs(noisy) >= theta) if two_sided else (noisy >= theta)
    zi, zv = _zero_part(rng, explicit, m, ZeroLaw(alpha, theta, None, two_sided))
    idx, val = _merge(explicit[keep], noisy[keep], zi, zv)
    return Summary(idx, val, val.astype(float), {"theta": int(theta), "two_sided": bool(two_sided)})


def raise_filter(summ: Summary, max_size: int) -> Summary:
    """Appendix C.1: "if the output is too large ... apply a higher filter theta' on it".

    Post-processing of the released filter output: theta' is the smallest integer leaving at most
    ``max_size`` entries (so it is private at no extra cost).
    """
    if summ.indices.size <= max_size:
        return summ
    mag = np.abs(summ.values) if summ.params.get("two_sided", True) else summ.values
    kth = np.partition(mag, mag.size - max_size - 1)[mag.size - max_size - 1]   # (max_size+1)-th largest
    theta = int(kth) + 1
    keep = mag >= theta
    params = dict(summ.params, theta=theta, theta_initial=summ.params["theta"])
    return Summary(summ.indices[keep], summ.values[keep], summ.weights[keep], params, summ.diagnostics)


def _threshold_draw(rng, explicit, noisy, m, alpha, theta, tau):
    """Kept cells of (filter theta then) threshold sampling with tau (sections 2.3, 2.4)."""
    w = np.abs(noisy).astype(float)
    w[w < max(theta, 1)] = 0.0
    keep = rng.random(noisy.size) * tau < w           # P = min(w / tau, 1)
    zi, zv = _zero_part(rng, explicit, m, ZeroLaw(alpha, theta, tau, True))
    return _merge(explicit[keep], noisy[keep], zi, zv)


def threshold_summary(rng, explicit, noisy, m, alpha: float, tau: float, theta: int = 0) -> Summary:
    """Threshold sampling (section 2.3, Algorithm Threshold), optionally after a filter (C.4).

    Weights: Horvitz-Thompson, M''(i) / min(|M''(i)| / tau, 1) = sign * max(|M''(i)|, tau)
    (appendix C.2 "Query Answering"): unbiased for subset sums of M' (of M'_theta with a filter).
    """
    idx, val = _threshold_draw(rng, explicit, noisy, m, alpha, theta, tau)
    wts = np.sign(val) * np.maximum(np.abs(val), tau)
    return Summary(idx, val, wts.astype(float), {"tau": float(tau), "theta": int(theta)})


def _expected_size(tau: float, w_sorted: np.ndarray, w_prefix: np.ndarray, n_zero: int,
                   alpha: float, theta: int) -> float:
    """E[threshold sample size at tau] given the explicit weights (sorted) and the zero law."""
    j = np.searchsorted(w_sorted, tau)                 # weights < tau are sampled with w / tau
    explicit = (w_sorted.size - j) + w_prefix[j] / tau
    return float(explicit + n_zero * ZeroLaw(alpha, theta, tau, True).pass_probability())


def choose_pilot_tau(noisy, n_zero: int, alpha: float, theta: int, s: int, sigmas: float = 10.0) -> float:
    """A threshold tau' whose threshold sample holds >= s + 1 items except with negligible chance.

    The sample size is a sum of independent Bernoullis (variance <= mean), so we aim the mean at
    s + 1 + sigmas * sqrt(s + 1) + 10 and bisect (log scale) the monotone expected size. If even
    tau' = v0 (every cell with a non-zero weight kept) cannot reach it, tau' = v0 is returned:
    the threshold sample is then the complete set of candidates and the result is exact.
    """
    v0 = max(theta, 1)
    w = np.abs(noisy).astype(float)
    w = np.sort(w[w >= v0])
    prefix = np.concatenate([[0.0], np.cumsum(w)])
    target = s + 1 + sigmas * math.sqrt(s + 1) + 10
    size = lambda t: _expected_size(t, w, prefix, n_zero, alpha, theta)
    if size(float(v0)) < target:
        return float(v0)
    lo, hi = float(v0), 2.0 * float(v0)
    while size(hi) >= target:
        lo, hi = hi, hi * 2.0
    for _ in range(60):
        mid = math.sqrt(lo * hi)
        lo, hi = (mid, hi) if size(mid) >= target else (lo, mid)
        if hi / lo < 1 + 1e-9:
            break
    return lo


def top_priorities(rng, idx, val, s: int, cap: np.ndarray | float = 1.0):
    """Priority sampling of explicit items: r uniform on (0, cap], priority |v| / r, keep top s.

    Returns (indices, values, tau_s) with tau_s the (s+1)-th largest priority (0 if there are at
    most s items with a positive priority).
    """
    w = np.abs(val).astype(float)
    r = (1.0 - post_processing(rng).random(val.size)) * cap      # on released noisy values: post-processing
    pri = np.where(w > 0, w / r, 0.0)
    pos = np.flatnonzero(pri > 0)
    if pos.size <= s:
        return idx[pos], val[pos], 0.0
    part = pos[np.argpartition(-pri[pos], s)]     # part[s] is the (s+1)-th largest priority
    top = np.sort(part[:s])
    return idx[top], val[top], float(pri[part[s]])


def priority_summary(rng, explicit, noisy, m, alpha: float, s: int, theta: int = 0) -> Summary:
    """Priority sampling of size s (section 2.3), optionally after a two-sided filter (section 2.4).

    Shortcut of Theorem 3: draw a threshold sample with a pilot tau' (expected size well above
    s + 1), give each kept item a priority consistent with having passed (r uniform on
    (0, min(1, |v| / tau')]), keep the s largest and the (s+1)-th priority tau_s. Given >= s + 1
    items pass, the top s + 1 are exactly the top s + 1 priorities of the whole M'. If fewer pass
    (chance below ~1e-20 by the choice of tau'), the draw is repeated with tau' / 2 and the count
    of repeats is reported (``pilot_retries``). Weights: sign * max(|v|, tau_s) (appendix C.3).
    """
    n_zero = m - explicit.size
    v0 = max(theta, 1)
    tau_p = choose_pilot_tau(noisy, n_zero, alpha, theta, s)
    retries = 0
    while True:
        idx, val = _threshold_draw(rng, explicit, noisy, m, alpha, theta, tau_p)
        if idx.size >= s + 1 or tau_p <= v0:
            break
        tau_p, retries = max(tau_p / 2.0, float(v0)), retries + 1
    cap = np.minimum(1.0, np.abs(val) / tau_p)
    kidx, kval, tau_s = top_priorities(rng, idx, val, s, cap)
    wts = np.sign(kval) * np.maximum(np.abs(kval), tau_s)
    params = {"size": int(s), "theta": int(theta), "tau_s": tau_s}
    return Summary(kidx, kval, wts.astype(float), params, {"pilot_tau": tau_p, "pilot_retries": retries})
