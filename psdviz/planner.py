"""Choosing epsilon before touching the data: ``pv.plan_epsilon``.

For methods whose noise variance depends only on public structure, the standard error of a query's
answer is known before any data are read: the quadtree without pruning (its cells are fixed by the
domain and the height) and the uniform grid given a public N (its size m = sqrt(N eps / c) is then a
function of public values). The planner builds such a release on *no points at all* (the structure
and the noise law are the same as with the real data; only the noise is released) and reads the exact
``answer_variance`` of the query: no data is touched and no budget is spent.

The adaptive grid's level 1 is fixed by the public N, but its sub-grid sizes come from noisy level-1
counts. Its plan is the *expected* error under a uniform density of N points (the same assumption as
the target's "expected count"): each sub-grid sized from its cell's expected count N * area share
(``methods.ag.plan_release``). On clustered data the real sub-grids differ (finer where points are),
so the plan is a guide there, stated as such in the app.

The workload strategy is data-independent throughout: its variance is (2 / epsilon^2) (to 10^-12) times a factor of
the strategy alone (:mod:`psdviz.methods.strategy`), so one empty release at epsilon 1 gives every epsilon's.

Methods whose structure depends on the data (pruning, kd-trees, PrivTree, the h-tree) are refused:
their error is not a function of public values.

The answer: the smallest epsilon on a log grid (refined by bisection between grid points) whose
expected standard error meets the target, and the curve of standard error against epsilon.
"""
from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .api import EmptyReleaseWarning, NoiseDominatesWarning, build
from .core.domain import Domain, prepare_points, validate_rects
from .core.errors import ParameterError
from .core.grid import DEFAULT_RESOLUTION
from .core.validation import check_positive, is_number
from .methods.ag import plan_release as plan_ag
from .methods.param_info import coerce_params

PLANNABLE = ("quadtree", "ug", "ag", "strategy")
EPSILON_RANGE = (1e-3, 10.0)


@dataclass(frozen=True)
class EpsilonPlan:
    """The planned epsilon and the curve it was read from."""

    method: str
    epsilon: float | None       # None: the target is not met below the largest epsilon tried
    target: float               # the standard error asked for (a count)
    expected_count: float       # the query's expected count under uniform density (N * area share)
    curve: tuple[np.ndarray, np.ndarray]   # (epsilons, standard errors)
    params: dict
    se_fn: Callable[[float], float] = field(repr=False, compare=False, default=None)  # type: ignore[assignment]

    def standard_error_at(self, epsilon: float) -> float:
        """The expected standard error of the query's answer at ``epsilon`` (computed, no data)."""
        return self.se_fn(float(check_positive(epsilon, "epsilon")))


def plan_epsilon(method: str, domain: Domain, rect, *, n: int, target: float | None = None,
                 relative: float | None = None, points: int = 25, resolution: int = DEFAULT_RESOLUTION,
                 **params) -> EpsilonPlan:
    """The smallest epsilon whose expected standard error for ``rect`` meets the target.

    ``n``: the public number of points (declared, as UG needs it). Give either ``target`` (an absolute
    standard error, in points) or ``relative`` (a share of the query's expected count n * area share,
    e.g. 0.05). ``params`` are the method's parameters (e.g. ``height``); pruning is refused.
    ``resolution``: the public grid of the release to be built (it caps heights and grid sizes).
    """
    if method not in PLANNABLE:
        raise ParameterError(f"plan_epsilon works for methods whose noise depends only on public structure: "
                         f"{PLANNABLE} (got {method!r})")
    if params.get("prune") is not None:
        raise ParameterError("prune must be None for planning: pruning decides structure from the data")
    if not is_number(n) or not float(n).is_integer() or n < 1:
        raise ParameterError(f"n must be the public number of points, a positive integer (got {n!r})")
    r = validate_rects(rect)
    if r.shape[0] != 1:
        raise ParameterError("rect must be one rectangle [xmin, ymin, xmax, ymax]")
    share = _area_share(domain, r[0])
    expected = float(n) * share
    goal = _target(target, relative, expected)
    if method in ("ug", "quadtree"):
        params = {"n_public": int(n), **params}
    if method == "quadtree":
        params["prune"] = None    # the plan is for the tree without pruning (its structure is public)
    ag_params = coerce_params("ag", params) if method == "ag" else {}   # checked once, before any evaluation
    empty = np.zeros((0, 2))
    ps = prepare_points(empty, domain, resolution=resolution)

    def release(eps: float):
        if method == "ag":
            return plan_ag(ps, domain, eps, int(n), **ag_params)
        with warnings.catch_warnings():      # the plan's structure run is empty on purpose
            warnings.simplefilter("ignore", EmptyReleaseWarning)
            warnings.simplefilter("ignore", NoiseDominatesWarning)
            return build(empty, domain, method, eps, seed=0, resolution=resolution, **params)

    if method == "strategy":
        unit = float(np.sqrt(release(1.0).answer_variance(r)[0]))   # the sd scales as 1 / epsilon (to 10^-12)

        def se(eps: float) -> float:
            return unit / eps
    else:
        def se(eps: float) -> float:
            return float(np.sqrt(release(eps).answer_variance(r)[0]))

    eps_grid = np.geomspace(*EPSILON_RANGE, int(points))
    errors = np.array([se(e) for e in eps_grid])
    ok = np.flatnonzero(errors <= goal)
    best = None
    if ok.size:
        hi = float(eps_grid[ok[0]])
        lo = float(eps_grid[ok[0] - 1]) if ok[0] > 0 else hi
        for _ in range(12 if lo < hi else 0):      # bisection between the two grid points
            mid = float(np.sqrt(lo * hi))
            lo, hi = (lo, mid) if se(mid) <= goal else (mid, hi)
        best = hi
    return EpsilonPlan(method, best, goal, expected, (eps_grid, errors), dict(params), se)


def _area_share(domain: Domain, r: np.ndarray) -> float:
    w = max(0.0, min(r[2], domain.xmax) - max(r[0], domain.xmin))
    h = max(0.0, min(r[3], domain.ymax) - max(r[1], domain.ymin))
    return w * h / domain.area


def _target(target, relative, expected: float) -> float:
    if (target is None) == (relative is None):
        raise ParameterError("give exactly one of target (a standard error in points) or relative (a share of "
                         "the query's expected count, e.g. 0.05)")
    if target is not None:
        return check_positive(target, "target")
    rel = check_positive(relative, "relative")
    if expected <= 0:
        raise ParameterError("relative needs a query that overlaps the domain (its expected count is 0)")
    return rel * expected
