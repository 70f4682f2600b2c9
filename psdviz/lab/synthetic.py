"""Synthetic point sets: uniform, gaussian mixture, mixture plus far outliers, zero-inflated pairs, few lines, and
streams of timestamped events by users (trends, weekly cycles, bursts).

The outlier set mimics the h-tree paper's Tiger-Syn construction: a small share of points placed
at a far corner of the domain, so that data-independent structures waste cells on empty space.
The zero-inflated set mimics tabular pairs such as DPBench's ADULT-2D (capital gain x capital loss):
most rows share one value pair (an atom), most others vary one attribute only (two lines through the
atom), a few are anywhere.
"""
from __future__ import annotations

import numpy as np

from ..core.domain import Domain
from ..core.errors import ParameterError


def uniform(n: int, domain: Domain, rng: np.random.Generator) -> np.ndarray:
    return np.column_stack([rng.uniform(domain.xmin, domain.xmax, n), rng.uniform(domain.ymin, domain.ymax, n)])


def gaussian_mixture(n: int, domain: Domain, rng: np.random.Generator, k: int = 5,
                     spread: float = 0.05) -> np.ndarray:
    """k gaussian clusters with random centres and weights; points clipped into the domain."""
    centres = np.column_stack([rng.uniform(domain.xmin + 0.2 * domain.width, domain.xmax - 0.2 * domain.width, k),
                               rng.uniform(domain.ymin + 0.2 * domain.height, domain.ymax - 0.2 * domain.height, k)])
    weights = rng.dirichlet(np.ones(k))
    scale = rng.uniform(0.3, 1.0, k) * spread
    which = rng.choice(k, size=n, p=weights)
    pts = centres[which] + rng.normal(size=(n, 2)) * (scale[which, None] * [domain.width, domain.height])
    pts[:, 0] = np.clip(pts[:, 0], domain.xmin, domain.xmax)
    pts[:, 1] = np.clip(pts[:, 1], domain.ymin, domain.ymax)
    return pts


def with_outliers(points: np.ndarray, domain: Domain, rng: np.random.Generator, fraction: float = 0.001,
                  corner_size: float = 0.02) -> np.ndarray:
    """Append ``fraction`` x n points in a small square at the domain's top-right corner."""
    m = max(1, int(round(fraction * points.shape[0])))
    x = rng.uniform(domain.xmax - corner_size * domain.width, domain.xmax, m)
    y = rng.uniform(domain.ymax - corner_size * domain.height, domain.ymax, m)
    return np.vstack([points, np.column_stack([x, y])])


def skewed(n: int, domain: Domain, rng: np.random.Generator) -> np.ndarray:
    """The benchmark set: a tight gaussian mixture (10 clusters) plus 5% uniform background."""
    k = n - n // 20
    return np.vstack([gaussian_mixture(k, domain, rng, k=10, spread=0.03), uniform(n - k, domain, rng)])


def zero_inflated(n: int, domain: Domain, rng: np.random.Generator, atom: float = 0.8, lines: float = 0.18,
                  corner: bool = False, cells: int = 256, heaps: int = 0, heaped: float = 1.0) -> np.ndarray:
    """Points of a zero-inflated attribute pair on a ``cells`` x ``cells`` grid of the domain.

    A share ``atom`` sits in one cell (the domain's lower-left cell if ``corner``, else a random interior
    cell), a share ``lines`` on the row and column through that cell at geometric distances (mean 33
    cells; both directions unless ``corner``), the rest (1 - atom - lines) uniform. Points are placed
    uniformly inside their cells, as the DPBench protocol places a histogram's counts.

    ``heaps`` > 0 puts a share ``heaped`` of the line points on at most ``heaps`` distances from the atom along
    each line instead (drawn once per line from the same geometric law, weights from a Pareto law of index 1):
    values reported at a few round amounts, as incomes and gains are, rather than spread over every cell."""
    background = 1.0 - atom - lines
    if min(atom, lines, background) < -1e-12:     # atom + lines = 1 may round to a tiny negative rest
        raise ParameterError(f"atom + lines must be at most 1 with both >= 0 (got atom={atom}, lines={lines})")
    centre = np.zeros(2, np.int64) if corner else rng.integers(cells // 10, cells - cells // 10, 2)
    kind = rng.choice(3, size=n, p=[atom, lines, max(background, 0.0)])
    cell = np.tile(centre, (n, 1))
    on_line = np.flatnonzero(kind == 1)
    step = np.minimum(rng.geometric(0.03, on_line.size), cells - 1)
    if not corner:
        step = step * rng.choice([-1, 1], on_line.size)
    axis = rng.integers(0, 2, on_line.size)
    if heaps > 0:
        step = _heaped_steps(step, axis, rng, heaps, heaped, cells)
    cell[on_line, axis] = np.clip(centre[axis] + step, 0, cells - 1)
    anywhere = np.flatnonzero(kind == 2)
    cell[anywhere] = rng.integers(0, cells, (anywhere.size, 2))
    unit = (cell + rng.random((n, 2))) / cells
    return np.column_stack([domain.xmin + unit[:, 0] * domain.width, domain.ymin + unit[:, 1] * domain.height])


def few_lines(n: int, domain: Domain, rng: np.random.Generator, lines: int = 2, share: float = 0.8,
              profile: str = "smooth", edge: bool = True, vertical: bool = False, cells: int = 256) -> np.ndarray:
    """Points on a few full-length lines one cell wide (one attribute nearly categorical) on a ``cells`` x
    ``cells`` grid of the domain, plus a sparse background.

    ``lines`` lines (the first on the domain's lower edge if ``edge``, the others at random rows; columns if
    ``vertical``) hold ``share`` of the points, split between them by Dirichlet weights; along each line the
    points follow ``profile``: "smooth" (a gaussian bump with a random centre and width), "stepped" (three to six
    steps of random height) or "spiky" (a few random cells holding most of the line, the rest spread). The rest
    is uniform. Points are placed uniformly inside their cells, as the DPBench protocol places a histogram's."""
    if not 1 <= lines <= cells or not 0.0 <= share <= 1.0 or profile not in ("smooth", "stepped", "spiky"):
        raise ParameterError("lines in 1..cells, share in [0, 1], profile one of smooth, stepped, spiky")
    rows = rng.choice(np.arange(1 if edge else 0, cells), size=lines, replace=False)
    if edge:
        rows[0] = 0
    weights = rng.dirichlet(np.full(lines, 2.0))
    on = rng.random(n) < share
    which = rng.choice(lines, size=int(on.sum()), p=weights)
    along = np.empty(which.size, np.int64)
    for k in range(lines):
        sel = np.flatnonzero(which == k)
        along[sel] = rng.choice(cells, size=sel.size, p=_line_profile(profile, cells, rng))
    cell = rng.integers(0, cells, (n, 2))
    cell[on] = np.column_stack([along, rows[which]])
    if vertical:
        cell = cell[:, ::-1]
    unit = (cell + rng.random((n, 2))) / cells
    return np.column_stack([domain.xmin + unit[:, 0] * domain.width, domain.ymin + unit[:, 1] * domain.height])


def _line_profile(profile: str, cells: int, rng: np.random.Generator) -> np.ndarray:
    """The distribution of a line's points along it."""
    x = np.arange(cells)
    if profile == "smooth":
        p = np.exp(-0.5 * ((x - rng.uniform(0, cells)) / rng.uniform(0.05, 0.4) / cells) ** 2) + 1e-3
    elif profile == "stepped":
        cuts = np.sort(rng.choice(np.arange(1, cells), size=rng.integers(2, 6), replace=False))
        p = np.repeat(rng.uniform(0.05, 1.0, cuts.size + 1), np.diff(np.r_[0, cuts, cells]))
    else:
        p = np.full(cells, 0.2 / cells)
        spikes = rng.choice(cells, size=rng.integers(3, 12), replace=False)
        p[spikes] += 0.8 * rng.dirichlet(np.ones(spikes.size))
    return p / p.sum()


def _heaped_steps(step: np.ndarray, axis: np.ndarray, rng: np.random.Generator, heaps: int, heaped: float,
                  cells: int) -> np.ndarray:
    """``step`` with a share ``heaped`` of its entries moved to one of each line's ``heaps`` distances (sign kept)."""
    out = step.copy()
    moved = rng.random(step.size) < heaped
    for ax in (0, 1):
        at = np.flatnonzero(moved & (axis == ax))
        distances = np.unique(np.minimum(rng.geometric(0.03, heaps), cells - 1))
        weights = rng.pareto(1.0, distances.size) + 1.0
        out[at] = np.sign(step[at]) * rng.choice(distances, at.size, p=weights / weights.sum())
    return out


def event_stream(n_users: int, days: int, domain: Domain, rng: np.random.Generator, *, rate: float = 0.05,
                 spread_of_activity: float = 1.0, trend: float = 0.5, weekly: float = 0.4, bursts: int = 3,
                 burst_size: float = 2.0, clusters: int = 8, spread: float = 0.04
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A stream of timestamped events by users over ``days`` days: (xy (n, 2), seconds since the start (int64),
    user (int64)).

    Each user has a home (a gaussian mixture of ``clusters`` over the domain) and an activity drawn from a
    lognormal law of mean ``rate`` events a day and log standard deviation ``spread_of_activity`` (1: heavy-tailed,
    a few users far more active than most). The expected
    number of events on day t is the users' total activity times 1 + ``trend`` t / days (growth over the span),
    times 1 - ``weekly`` on weekend days (days 5 and 6 of each week), times 1 + ``burst_size`` on the days of
    ``bursts`` bursts (each two to five days long, its extra events around one random place, by random users).
    An event lies around its user's home (``spread`` of the domain's size); its time is uniform in its day."""
    homes = gaussian_mixture(n_users, domain, rng, k=clusters, spread=0.08)
    activity = rng.lognormal(0.0, spread_of_activity, n_users)
    activity *= rate / activity.mean()
    t = np.arange(days)
    level = (1.0 + trend * t / max(days, 1)) * np.where(t % 7 >= 5, 1.0 - weekly, 1.0)
    extra = np.zeros(days)
    places = np.empty((bursts, 2))
    for b in range(bursts):
        start, length = int(rng.integers(0, max(days - 1, 1))), int(rng.integers(2, 6))
        extra[start:start + length] = burst_size
        places[b] = homes[rng.integers(n_users)]
    per_day = rng.poisson(activity.sum() * level)
    day = np.repeat(t, per_day)
    user = rng.choice(n_users, size=day.size, p=activity / activity.sum())
    size = np.array([domain.width, domain.height])
    xy = homes[user] + rng.normal(0.0, spread, (day.size, 2)) * size
    burst_n = rng.poisson(activity.sum() * level * extra)
    b_day = np.repeat(t, burst_n)
    b_user = rng.integers(0, n_users, b_day.size)
    b_xy = places[rng.integers(0, max(bursts, 1), b_day.size)] + rng.normal(0.0, spread / 2, (b_day.size, 2)) * size
    day, user, xy = np.r_[day, b_day], np.r_[user, b_user], np.vstack([xy, b_xy]) if bursts else xy
    xy[:, 0] = np.clip(xy[:, 0], domain.xmin, domain.xmax)
    xy[:, 1] = np.clip(xy[:, 1], domain.ymin, domain.ymax)
    seconds = day.astype(np.int64) * 86_400 + rng.integers(0, 86_400, day.size)
    return xy, seconds, user.astype(np.int64)
