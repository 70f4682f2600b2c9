"""The privacy promises every release keeps (docs/privacy.md), as checks that take a way to build a release and so
run on any method, plug-ins included, and on any release kind. ``test_every_method.py`` and
``test_every_method_audit.py`` run them over the registry; their leaky toys show that each check can fail.

- :func:`float_channel`: no released value is a floating-point function of continuous noise. Every continuous draw
  (Laplace, exponential, uniform, Gumbel, ...) is scaled by 1 + 2^-30; a yes/no decision or a grid position read
  from such a draw rarely changes (when the release's structure changes, another seed is tried), while any value
  computed from it moves (Mironov, CCS 2012: the low-order bits of such a value tell which true value produced
  it). Randomness applied to values already released comes from :func:`psdviz.core.rng.post_processing`, which
  is not moved.
- :func:`audit`: a bounded D vs D' audit. Runs on D and on D' = D + one point pick, on tuning runs, the event of a
  release's features (its structure, its answers, its facts) whose frequencies differ most; fresh runs then count it
  on both, and a Clopper-Pearson lower bound on the log-ratio of its probabilities may not exceed the release's
  epsilon.
- :func:`ledger_problems`: the ledger's total never exceeds epsilon, nor any root-to-leaf path's sum the total.
"""
from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Hashable
from dataclasses import dataclass

import numpy as np

from psdviz.core.rng import SEEDED, Randomness

CONTINUOUS = frozenset({
    "random", "uniform", "laplace", "exponential", "standard_exponential", "normal", "standard_normal", "gumbel",
    "beta", "gamma", "standard_gamma", "logistic", "lognormal", "standard_cauchy", "standard_t", "triangular",
    "wald", "weibull", "pareto", "power", "rayleigh", "chisquare", "vonmises", "f", "noncentral_chisquare",
    "noncentral_f"})


class NudgedGenerator:
    """A numpy Generator whose continuous draws come back scaled by 1 + 2^-30 (``nudge``) or as drawn; every other
    method (integers, geometric, permutations, ...) is the Generator's own."""

    def __init__(self, seed: int, nudge: bool):
        self._rng = np.random.default_rng(seed)
        self._nudge = nudge
        self.continuous_draws = 0

    def __getattr__(self, name: str):
        attr = getattr(self._rng, name)
        if name not in CONTINUOUS or not callable(attr):
            return attr

        def draw(*args, **kwargs):
            out = attr(*args, **kwargs)
            self.continuous_draws += int(np.size(out))
            return out * (1.0 + 2.0 ** -30) if self._nudge else out
        return draw


def randomness(seed: int, nudge: bool = False) -> Randomness:
    """A seeded Randomness over a :class:`NudgedGenerator`."""
    return Randomness(NudgedGenerator(seed, nudge), SEEDED, seed)  # type: ignore[arg-type]


def released(rel, rects: np.ndarray | None = None) -> dict[str, object]:
    """Everything a release shows, as comparable values: its report, and for a spatial release its nodes and the
    answers and variances of ``rects``; for the other kinds their tables."""
    out: dict[str, object] = {"report": json.dumps(rel.report(), sort_keys=True, default=str)}
    if hasattr(rel, "nodes"):
        out["nodes"] = rel.nodes()
        if rects is not None:
            out["answers"] = rel.answer(rects)
            out["variances"] = rel.answer_variance(rects)
    for name in ("table", "counts", "summary", "noisy", "estimate"):
        value = getattr(rel, name, None)
        if value is not None and not callable(value):
            out[name] = value
    return out


def _same(a, b) -> bool:
    if hasattr(a, "equals"):
        return bool(a.equals(b))
    if isinstance(a, np.ndarray):
        return a.shape == np.shape(b) and bool(np.array_equal(a, b, equal_nan=a.dtype.kind == "f"))
    if hasattr(a, "__dataclass_fields__"):
        return repr(a) == repr(b)
    return a == b


def _discrete(rel) -> object:
    """What a release decides rather than measures: its structure and its named parameters (for a spatial
    release; None otherwise)."""
    tree = getattr(rel, "tree", None)
    if tree is None:
        return None
    named = {k: v for k, v in getattr(rel, "params", {}).items() if isinstance(v, (str, bool, int)) or v is None}
    return tree.rect.tobytes(), repr(sorted(named.items()))


def float_channel(build: Callable[[Randomness], object], rects: np.ndarray | None = None, seed: int = 5,
                  tries: int = 8) -> tuple[list[str], int]:
    """The released parts that change when every continuous draw is scaled by 1 + 2^-30 (empty when none does),
    and how many continuous values were drawn. A seed whose nudge changes a decision (the structure) is set aside
    for the next; when every one does, the structure itself is reported as moving."""
    for s in range(seed, seed + tries):
        plain, nudged = randomness(s), randomness(s, nudge=True)
        rel_a, rel_b = build(plain), build(nudged)
        if _discrete(rel_a) == _discrete(rel_b):
            a, b = released(rel_a, rects), released(rel_b, rects)
            return [k for k in a if not _same(a[k], b[k])], plain.rng.continuous_draws  # type: ignore[attr-defined]
    return ["structure (on every seed tried)"], plain.rng.continuous_draws  # type: ignore[attr-defined]


def ledger_problems(rel, epsilon: float) -> list[str]:
    """What a release's ledger breaks: a total above epsilon, a root-to-leaf path above the total, a spend that is
    negative or not finite."""
    problems = []
    total = rel.ledger.total()
    if not total <= epsilon * (1 + 1e-12):
        problems.append(f"ledger total {total!r} exceeds epsilon {epsilon!r}")
    if any(not (math.isfinite(s.epsilon) and s.epsilon >= 0) for s in rel.ledger.spends):
        problems.append("a spend is negative or not finite")
    tree = getattr(rel, "tree", None)
    if tree is not None and tree.path_epsilons().max(initial=0.0) > total * (1 + 1e-9):
        problems.append(f"a root-to-leaf path spends {tree.path_epsilons().max()!r} > ledger total {total!r}")
    return problems


# ---- the bounded D vs D' audit -----------------------------------------------------------------------------

Features = dict[str, Hashable]


def spatial_features(rel, near: np.ndarray) -> Features:
    """What an event may look at in a spatial release: its structure (the leaves' rectangles), the answer of a
    rectangle ``near`` the added point and of the whole domain, and its numeric and named parameters (auto's facts
    and choice among them)."""
    feats: Features = {"structure": hashlib.sha1(np.ascontiguousarray(rel.tree.rect).tobytes()).hexdigest()}
    dom = rel.domain
    answers = rel.answer(np.vstack([near, [[dom.xmin, dom.ymin, dom.xmax, dom.ymax]]]))
    for i, value in enumerate(np.atleast_1d(answers)):
        feats[f"answer {i}"] = float(value)
    for key, value in rel.params.items():
        if isinstance(value, (bool, str)) or value is None:
            feats[f"param {key}"] = value
        elif isinstance(value, (int, float)) and math.isfinite(value):
            feats[f"param {key}"] = float(value)
    return feats


@dataclass(frozen=True)
class AuditResult:
    """The event chosen on tuning runs, its counts on fresh runs of D and D', and the lower bound of
    log(P[event | one] / P[event | other]) at the audit's confidence."""

    event: str
    counts: tuple[int, int]
    runs: int
    lower_bound: float

    def __str__(self) -> str:
        return (f"event {self.event!r}: {self.counts[0]} / {self.runs} against {self.counts[1]} / {self.runs}, "
                f"log-ratio at least {self.lower_bound:.3f}")


def _events(tuned: list[list[Features]]) -> list[tuple[str, Callable[[Features], bool]]]:
    """Candidate events: each value a discrete feature took, and each numeric feature above or below the deciles
    of its tuning values."""
    events: list[tuple[str, Callable[[Features], bool]]] = []
    runs = tuned[0] + tuned[1]
    for key in sorted({k for f in runs for k in f}):
        values = [f.get(key) for f in runs]
        numeric = [v for v in values if isinstance(v, float)]
        if numeric and len(numeric) == len(values):
            for t in sorted(set(np.quantile(numeric, np.linspace(0.1, 0.9, 9)).tolist())):
                events.append((f"{key} <= {t:.6g}", lambda f, k=key, t=t: f.get(k) <= t))
        else:
            for v in sorted({repr(v) for v in values}):
                events.append((f"{key} == {v}", lambda f, k=key, v=v: repr(f.get(k)) == v))
    return events


def clopper_pearson(k: int, n: int, alpha: float) -> tuple[float, float]:
    """The two one-sided (1 - alpha) Clopper-Pearson bounds of a binomial proportion."""
    from scipy.stats import beta
    lo = 0.0 if k == 0 else float(beta.ppf(alpha, k, n - k + 1))
    hi = 1.0 if k == n else float(beta.ppf(1 - alpha, k + 1, n - k))
    return lo, hi


def _log_ratio_low(k_high: int, k_low: int, runs: int, alpha: float) -> float:
    """The lower bound of log(P[event | high side] / P[event | low side]) from the counts of ``runs`` each."""
    p_high = clopper_pearson(k_high, runs, alpha / 2)[0]
    p_low = clopper_pearson(k_low, runs, alpha / 2)[1]
    return -math.inf if p_high == 0 else math.log(p_high / p_low)


def audit(run: Callable[[bool, int], Features], tune: int = 40, test: int = 160, alpha: float = 1e-3,
          seed: int = 1000, epsilon: float | None = None) -> AuditResult:
    """The bounded D vs D' audit (module docstring). ``run(neighbour, seed)`` builds the release of D
    (``neighbour`` False) or D' with fresh randomness from ``seed`` and returns its features. The event is fixed
    on ``tune`` runs a side before ``test`` fresh runs a side are counted; each bound holds with probability at
    least 1 - ``alpha``.

    Given ``epsilon``, the fresh runs are counted in pairs (run i of D, run i of D', the seeds of the full count)
    and counting stops once the remaining pairs cannot move the bound to the other side of ``epsilon``: the bound
    rises with the count on the side the event favours and falls with the other's, so the verdict is the full
    count's. The bound returned is then the one reachable from there that is nearest ``epsilon`` (the largest when
    the audit passes, the smallest when it fails), and ``runs`` the pairs counted."""
    tuned = [[run(side, seed + 2 * i + side) for i in range(tune)] for side in (False, True)]
    best = None
    for name, event in _events(tuned):
        k = [sum(bool(event(f)) for f in tuned[s]) for s in (0, 1)]
        score = math.log((k[0] + 1) / (k[1] + 1))
        if best is None or abs(score) > abs(best[0]):
            best = (score, name, event)
    assert best is not None
    score, name, event = best
    base = seed + 2 * tune + 10
    high, low = (0, 1) if score >= 0 else (1, 0)
    counts = [0, 0]
    bound = math.nan
    for i in range(test):
        for side in (0, 1):
            counts[side] += bool(event(run(bool(side), base + 2 * i + side)))
        left = test - i - 1
        if epsilon is None and left:
            continue
        most = _log_ratio_low(counts[high] + left, counts[low], test, alpha)
        least = _log_ratio_low(counts[high], counts[low] + left, test, alpha)
        if not left or most <= epsilon:
            bound = most
            break
        if least > epsilon:
            bound = least
            break
    return AuditResult(name if high == 0 else f"{name} (more often on D')", (counts[0], counts[1]), i + 1, bound)
