"""The privacy ledger: every noisy quantity says what it cost (docs/design.md privacy rules).

Each :class:`Spend` is one step of the *sequential* composition along a root-to-leaf path (for
example "noisy counts at depth 3"); the nodes inside one step cover disjoint regions, so they
compose in parallel and cost the step's epsilon once. The ledger total is therefore the
worst-case path cost, and it must never exceed the epsilon the user asked for.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

from .errors import BudgetError, ParameterError

TOLERANCE = 1e-9
# The largest total delta a release may carry: delta is the probability that the epsilon guarantee
# fails outright, so it must be small (well below one over any plausible number of people); a
# per-measurement delta composed over many levels (0.5 x 16 medians = 8) is refused before it is spent.
MAX_TOTAL_DELTA = 1e-3


@dataclass(frozen=True)
class Spend:
    """One step of sequential composition."""

    what: str            # e.g. "count", "median", "N estimate", "split decisions"
    epsilon: float       # cost of this step along any path
    mechanism: str       # e.g. "geometric", "laplace", "exponential", "smooth sensitivity"
    level: int | None = None   # tree depth, if the step is one tree level
    nodes: int = 1       # how many disjoint regions were measured in this step
    sensitivity: float = 1.0
    delta: float = 0.0
    note: str = ""


@dataclass
class Ledger:
    """What epsilon went where; :meth:`total` is the worst-case path cost."""

    budget: float
    spends: list[Spend] = field(default_factory=list)

    def spend(self, what: str, epsilon: float, mechanism: str, **kw) -> Spend:
        """Record a step; refuses to go over the budget."""
        if epsilon < 0:
            raise ParameterError(f"a spend cannot be negative (got {epsilon})")
        item = Spend(what, float(epsilon), mechanism, **kw)
        if not 0 <= item.delta <= 1:
            raise ParameterError(f"delta must lie in [0, 1] (got {item.delta!r} for {what!r})")
        if self.delta() + item.delta > MAX_TOTAL_DELTA * (1 + TOLERANCE):
            raise ParameterError(
                f"the total delta would reach {self.delta() + item.delta:g} with {what!r} (delta {item.delta:g} per "
                f"step), above {MAX_TOTAL_DELTA:g}: lower delta so that delta times the number of steps "
                f"stays at most {MAX_TOTAL_DELTA:g}")
        if math.fsum([*(s.epsilon for s in self.spends), item.epsilon]) > self.budget * (1 + TOLERANCE):
            raise BudgetError(
                f"spending {epsilon:g} on {what!r} would exceed the budget {self.budget:g} "
                f"(already spent {self.total():g})")
        self.spends.append(item)
        return item

    def total(self) -> float:
        return float(sum(s.epsilon for s in self.spends))

    def delta(self) -> float:
        return float(sum(s.delta for s in self.spends))

    def remaining(self) -> float:
        return max(0.0, self.budget - self.total())

    def by_level(self, what: str | None = None) -> dict[int, float]:
        """Epsilon per tree depth (optionally for one kind of spend)."""
        out: dict[int, float] = {}
        for s in self.spends:
            if s.level is not None and (what is None or s.what == what):
                out[s.level] = out.get(s.level, 0.0) + s.epsilon
        return out

    def records(self) -> list[dict]:
        """Plain dicts, one per spend (for tables and JSON reports)."""
        return [asdict(s) for s in self.spends]

    def check_parallel(self, proof) -> None:
        """Refuse a step that composes several regions of one level in parallel when ``proof`` (a
        :class:`psdviz.core.parallel.Disjointness`) cannot show that level's regions are disjoint.

        Steps without a level (whole-release steps: a noisy N, PrivTree's decisions, a joint
        sensitivity) rest on their own argument, stated in their note, and are not checked here."""
        for s in self.spends:
            if s.level is not None and s.nodes > 1 and not proof.disjoint(s.level):
                raise ValueError(
                    f"the step {s.what!r} at level {s.level} charges {s.nodes} regions once (parallel "
                    f"composition), but the regions of level {s.level} are not proven disjoint "
                    f"({proof.reason}): a point in two of them would pay twice")

    def frozen(self) -> Ledger:
        """A read-only copy for a release: the same spends, and :meth:`spend` refused."""
        return FrozenLedger(self.budget, list(self.spends))   # held as a tuple from then on

    def then(self, later: Ledger) -> Ledger:
        """This ledger's spends followed by ``later``'s, under this budget (through :meth:`spend`, so
        the budget check applies): a build that hands the rest of its budget to another."""
        return _replayed(self.budget, (*self.spends, *later.spends))

    def per_user(self, k: int, epsilon: float) -> Ledger:
        """The ledger of a per-point build at ``epsilon / k`` accounted per user (at most k points each):
        every spend's epsilon and sensitivity times k (group privacy), under the budget ``epsilon``.
        Built through :meth:`spend`, so the budget check applies."""
        return _replayed(epsilon, self.spends, k, f"per user: {k} points, sensitivity x{k}")


def _replayed(budget: float, spends, k: float = 1, note: str = "") -> Ledger:
    """A new ledger under ``budget`` recording ``spends`` again through :meth:`Ledger.spend` (so the
    budget check applies), each epsilon and sensitivity times ``k`` and ``note`` appended."""
    out = Ledger(budget)
    for s in spends:
        out.spend(s.what, s.epsilon * k, s.mechanism, level=s.level, nodes=s.nodes, sensitivity=s.sensitivity * k,
                  delta=s.delta, note="; ".join(n for n in (s.note, note) if n))
    return out


@dataclass
class FrozenLedger(Ledger):
    """The ledger of a built release: it can be read, never spent from."""

    def spend(self, what: str, epsilon: float, mechanism: str, **kw) -> Spend:
        raise ParameterError(f"this ledger belongs to a built release and cannot record {what!r}; spend on the "
                             "builder's ledger before the release is made")

    def __post_init__(self) -> None:
        object.__setattr__(self, "spends", tuple(self.spends))

    def __setattr__(self, name, value) -> None:
        if name in self.__dict__:
            raise AttributeError(f"a released ledger cannot be changed (tried to set {name!r})")
        object.__setattr__(self, name, value)
