"""``psdviz.build_over_time``: one private release of counts for every window of a public span.

The data are read once (points, their timestamps and, for user-level or w-event privacy, their user ids: one
scan of a file's columns), quantised to the public grid and cut into windows; each user's contribution is
bounded (at most m events a window, L in all: :mod:`psdviz.temporal.bounding`); a partition shared by all
windows is taken from public input (one quadtree level) or bought once from the pooled events with a stated
slice of epsilon (a private quadtree or PrivTree, accounted by group privacy for the unit); the counts per
(cell, window) are measured under the unit's accounting (:mod:`psdviz.temporal.mechanisms`). Design and
measurements: docs/decisions/counts-over-time.md.
"""
from __future__ import annotations

import warnings

import numpy as np

from .core.contribution import user_codes
from .core.domain import Domain, as_points
from .core.errors import InputDataError, ParameterError
from .core.grid import DEFAULT_RESOLUTION, Grid, check_resolution
from .core.ledger import Ledger
from .core.noise import check_noise_scale
from .core.privacy_unit import PrivacyUnit
from .core.rng import make_randomness
from .core.validation import check_epsilon, check_fraction, check_int, warn_large_epsilon
from .temporal.axis import TimeAxis, to_seconds
from .temporal.bounding import bound_per_window, kept_totals, user_rank
from .temporal.cells import MAX_CELLS, Partition
from .temporal.mechanisms import (
    Accounting,
    check_fanout,
    check_mechanism,
    choose_fanout,
    measure,
    privacy_unit,
    window_sd,
)
from .temporal.release import TimeRelease
from .temporal.timetree import TimeTree
from .temporal.user_bound import FRACTION as BOUND_FRACTION
from .temporal.user_bound import (
    MAX_BOUND,
    QUANTILE,
    choose_bound,
    choose_level_bounds,
    level_quantiles,
    score_sensitivity,
)
from .temporal.user_bound import SPEND as BOUND_SPEND

PARTITIONS = ("grid", "privtree")
TREE_FRACTION = 0.95          # of the partition's epsilon for PrivTree's split decisions (its leaf counts are unused)
MAX_VALUES = 60_000_000       # cells x measured values held in memory (8 bytes each)


def build_over_time(points, domain: Domain, *, time, span, window="1d", epsilon: float = 1.0,
                    unit: str = "event", mechanism: str | None = None, user=None,
                    max_points_per_window: int | None = None, max_points_per_user: int | str | None = None,
                    w: int | None = None, partition: str = "grid", grid_level: int = 4,
                    partition_fraction: float = 0.2, fanout: int | str = "auto", seed=None,
                    resolution: int = DEFAULT_RESOLUTION, nonfinite: str = "error", lon: str | None = None,
                    lat: str | None = None, privacy_budget=None) -> TimeRelease:
    """Private counts of every cell of a shared partition in every window of a public span.

    Parameters
    ----------
    points : array (n, 2), DataFrame, or path / glob of Parquet or CSV files
        The events' x, y (lon, lat); a frame or files with the columns ``lon`` and ``lat``.
    domain : Domain
        The public bounds.
    time : array or str
        One timestamp per event (datetimes, ISO text, or seconds since 1970-01-01 UTC); for a frame or files,
        the column's name.
    span : (start, end)
        The public time span (never read from the data); events outside it are dropped (the owner is told).
    window : str or int
        The window: "1h", "1d", "1w", "hour", "day", "week", or a number of seconds.
    epsilon : float
        The whole budget (w-event: in any w consecutive windows).
    unit : {"event", "user", "w-event"}
        The privacy unit: one event; one user over the whole span (``user``, ``max_points_per_window`` m and
        ``max_points_per_user`` L); one user's events in any ``w`` consecutive windows (``user`` and m; without
        ``user`` each event is its own user, m = 1). ``max_points_per_user="auto"``: L is bought from the users'
        own totals with a slice of epsilon (:mod:`psdviz.temporal.user_bound`; the tree over time buys one L a
        level, larger for longer intervals, ``params["max_points_per_user_levels"]``), and the privacy unit names
        the most a user can keep, m times the windows.
    mechanism : str, optional
        event: "flat" (default; one noisy count a cell and window, parallel composition) or "tree"; user: "tree"
        (default; the tree mechanism over time) or "flat"; w-event: "ba" (default, budget absorption) or "bd"
        (budget distribution).
    partition : {"grid", "privtree"}
        "grid": the public 2^grid_level x 2^grid_level grid; "privtree": the leaves of a PrivTree (Zhang, Xiao
        and Xie, SIGMOD 2016) of the pooled events, bought with ``partition_fraction`` of epsilon; a cell is
        split while its noisy pooled count exceeds the number of windows times one window's noise standard
        deviation (so a cell's mean count a window stays above its noise).
    fanout : int or "auto"
        The tree mechanism's branching (2: the binary tree of Chan et al. and Dwork et al.); "auto" (default)
        picks among 2, 4, 8, 16 the one whose ranges of a window, a week, a month and the span have the least
        noise (from the number of windows only: :func:`psdviz.temporal.mechanisms.choose_fanout`).
    seed, resolution, nonfinite, lon, lat, privacy_budget
        As for :func:`psdviz.build`.

    Returns
    -------
    psdviz.temporal.TimeRelease
        ``answer(rects, first, last)``, ``answer_interval``, ``series(rect)``, ``cells(window)``, the release
        protocol (report, audit, save, ledger).
    """
    epsilon = check_epsilon(epsilon)
    warn_large_epsilon(epsilon)
    mech = check_mechanism(unit, mechanism)
    acct = _accounting(unit, user is not None, max_points_per_window, max_points_per_user, w)
    if partition not in PARTITIONS:
        raise ParameterError(f"partition must be one of {PARTITIONS} (got {partition!r})")
    if not (isinstance(fanout, str) and fanout == "auto"):
        fanout = check_fanout(fanout)
    bits = check_resolution(resolution)
    if nonfinite not in ("error", "drop"):
        raise ParameterError(f"nonfinite must be 'error' or 'drop' (got {nonfinite!r})")
    axis = TimeAxis.over(span, window)
    fanout = (choose_fanout(axis.windows) if mech == "tree" else 2) if fanout == "auto" else int(fanout)
    grid = Grid(domain, bits)
    level = check_int(grid_level, "grid_level", 0, bits)
    if partition == "grid" and 4 ** level > MAX_CELLS:
        raise ParameterError(f"grid_level {level} makes {4 ** level:,} cells, above {MAX_CELLS:,}")
    cells_bound = 4 ** level if partition == "grid" else MAX_CELLS
    if cells_bound * 2 * axis.windows > MAX_VALUES:
        raise ParameterError(f"{cells_bound:,} cells x {axis.windows:,} windows is above {MAX_VALUES:,} counts: "
                             "choose a coarser grid_level or a longer window")
    eps_part = check_fraction(partition_fraction, "partition_fraction") * epsilon if partition != "grid" else 0.0
    auto_bound = acct.unit == "user" and acct.total == 0
    if auto_bound:
        _check_ladder(mech, axis.windows, epsilon, eps_part, acct.per_window, fanout)
    punit = _unit(acct, axis.windows)
    rnd = make_randomness(seed)
    if privacy_budget is not None:         # before any data is read
        privacy_budget.check(epsilon, 0.0, punit)
    xy, seconds, users, report = _read(points, time, user, lon, lat, nonfinite)
    inside = domain.contains(xy)
    win = axis.index(seconds)
    report["rows_outside_domain"] = int((~inside).sum())
    report["rows_outside_span"] = int((inside & (win < 0)).sum())
    keep = inside & (win >= 0)
    ledger = Ledger(epsilon)
    notes: list[str] = []
    eps_bound = 0.0
    rank = None
    if users is not None:
        kept = np.flatnonzero(keep)
        ok = bound_per_window(users[kept], win[kept], acct.per_window, rnd.rng)
        if auto_bound:
            eps_bound = BOUND_FRACTION * epsilon
            totals = kept_totals(users[kept], ok)
            levels = TimeTree(axis.windows, fanout).levels if mech == "tree" else 1
            acct = (_bought_level_bounds(totals, acct.per_window, axis.windows, levels, eps_bound, rnd, ledger, notes)
                    if levels > 1 else _bought_bound(totals, acct.per_window, axis.windows, eps_bound, rnd, ledger,
                                                     notes))
        if unit == "user":                  # L in all (the largest L, with one a level): bound_in_all's draws
            rank = user_rank(users[kept], ok, rnd.rng)
            ok &= rank < acct.total
            rank = rank[ok]
        keep[kept[~ok]] = False
        report["rows_dropped_by_contribution_bounds"] = int((~ok).sum())
    xy, win = xy[keep], win[keep]
    report["rows_used"] = int(keep.sum())
    keys = grid.keys(xy)
    eps_rest = epsilon - eps_part - eps_bound
    if partition == "grid":
        part = Partition.uniform(grid, level)
    else:
        theta = axis.windows * window_sd(mech, axis.windows, eps_rest, acct, fanout)
        part = _bought(xy, domain, bits, eps_part, theta, acct, rnd, ledger, notes)
    key = part.cell_of(keys) * axis.windows + win

    def counts_within(bound: int | None = None) -> np.ndarray:
        """(cells, windows): the kept events' counts, or only each user's first ``bound`` of them (one L a
        level)."""
        sel = key if bound is None or rank is None else key[rank < bound]
        return np.bincount(sel, minlength=part.size * axis.windows).reshape(part.size, axis.windows).astype(np.int64)

    noisy, model = measure(counts_within(), mech, eps_rest, acct, rnd.rng, ledger, fanout, counts_within)
    params = {"unit": unit, "span": [str(np.datetime64(axis.start, "s")), str(np.datetime64(axis.end, "s"))],
              "window_seconds": axis.window, "partition": partition, "resolution": bits,
              **({"grid_level": level} if partition == "grid" else {"partition_fraction": float(partition_fraction)}),
              **({"fanout": fanout} if mech == "tree" else {}),
              **({"max_points_per_window": acct.per_window} if unit != "event" else {}),
              **({"max_points_per_user": acct.total} if unit == "user" else {}),
              **({"max_points_per_user_chosen": True} if auto_bound else {}),
              **({"max_points_per_user_levels": list(acct.level_totals)} if acct.level_totals else {}),
              **({"w": acct.w} if unit == "w-event" else {})}
    rel = TimeRelease(axis, part, mech, noisy, model, params, ledger, rnd, tuple(notes), punit, report)
    if privacy_budget is not None:
        privacy_budget.draw(rel, "over-time")
    return rel


def unit_over_time(unit: str, span, window="1d", max_points_per_window: int | None = None,
                   max_points_per_user: int | str | None = None, w: int | None = None) -> PrivacyUnit:
    """The privacy unit a release over time with these public settings protects (what a budget checks before
    any data is read): one point; one user with at most L points (``"auto"``: at most m times the windows, the
    most a user can keep); one user in any ``w`` consecutive windows."""
    if unit == "event":
        return privacy_unit("event")
    acct = _accounting(unit, True, max_points_per_window or 1, max_points_per_user, w)
    return _unit(acct, TimeAxis.over(span, window).windows)


def _unit(acct: Accounting, windows: int) -> PrivacyUnit:
    if acct.unit == "user" and acct.total == 0:
        return privacy_unit("user", min(acct.per_window * windows, MAX_BOUND))
    return privacy_unit(acct.unit, acct.total, acct.w)


def _accounting(unit: str, has_user: bool, m, total, w) -> Accounting:
    """The bounds one unit may add, checked before any data is read (``has_user``: user ids were given)."""
    if unit == "event":
        given = [n for n, v in (("user", True if has_user else None), ("max_points_per_window", m),
                                ("max_points_per_user", total), ("w", w)) if v is not None]
        if given:
            raise ParameterError(f"{given[0]} is for unit='user' or 'w-event'; an event-level release protects one "
                                 "event and takes none")
        return Accounting("event")
    if unit == "user":
        if not has_user or m is None or total is None:
            raise ParameterError("unit='user' needs user (one id per event), max_points_per_window (m) and "
                                 "max_points_per_user (L, in all, or 'auto' to choose it privately)")
        if w is not None:
            raise ParameterError("w is for unit='w-event'")
        m = check_int(m, "max_points_per_window", 1, 10_000)
        if isinstance(total, str) and total == "auto":
            return Accounting("user", m, 0)           # L: chosen from the data (_bought_bound)
        total = check_int(total, "max_points_per_user", 1, 1_000_000)
        if total < m:
            raise ParameterError(f"max_points_per_user ({total}) must be at least max_points_per_window ({m})")
        return Accounting("user", m, total)
    if w is None:
        raise ParameterError("unit='w-event' needs w, the number of consecutive windows protected")
    if total is not None:
        raise ParameterError("max_points_per_user is for unit='user'; w-event bounds each window only")
    if has_user != (m is not None):
        raise ParameterError("unit='w-event' with users needs both user and max_points_per_window (m); without "
                             "user each event is its own user (m = 1)")
    m = 1 if m is None else check_int(m, "max_points_per_window", 1, 10_000)
    return Accounting("w-event", m, m, check_int(w, "w", 1, 100_000))


def _check_ladder(mech: str, windows: int, epsilon: float, eps_part: float, m: int, fanout: int) -> None:
    """With L to be chosen: refuse, before any data is read, settings under which some rung of the ladder could
    not be measured (no epsilon left, or a noise scale beyond exact sampling at the top rung), so that nothing
    after the draw can fail on account of the L drawn (a refusal would reveal it)."""
    eps_rest = epsilon * (1 - BOUND_FRACTION) - eps_part
    if not eps_rest > 0:
        raise ParameterError(f"partition_fraction leaves no epsilon for the counts: max_points_per_user='auto' spends "
                             f"{BOUND_FRACTION:.0%} of epsilon on L, so partition_fraction must stay below "
                             f"{1 - BOUND_FRACTION:g}")
    top = float(min(m * windows, MAX_BOUND))
    per_measurement = eps_rest / TimeTree(windows, fanout).levels if mech == "tree" else eps_rest
    scales = [top / per_measurement]
    if eps_part > 0:        # PrivTree at eps_part / L: its tests' Laplace scale and its leaf counts'
        scales += [top * 3.0 / (TREE_FRACTION * eps_part), top / ((1 - TREE_FRACTION) * eps_part)]
    try:
        check_noise_scale(max(scales))
    except ParameterError as exc:
        raise ParameterError(f"with max_points_per_user='auto', L may reach {int(top):,} (m times the windows): "
                             f"{exc}, or give max_points_per_user") from None


def _bought_bound(totals: np.ndarray, m: int, windows: int, eps: float, rnd, ledger: Ledger, notes: list[str]
                  ) -> Accounting:
    """The user-level accounting with L drawn by :func:`psdviz.temporal.user_bound.choose_bound` at ``eps`` from
    the users' ``totals`` after the bound a window (its ledger line and note recorded)."""
    bound = choose_bound(totals, m, windows, eps, rnd.rng)
    ledger.spend(BOUND_SPEND, eps, "exponential", sensitivity=score_sensitivity(QUANTILE),
                 note=f"near the {QUANTILE:.0%} quantile of the users' totals")
    notes.append(f"L = {bound:,}: chosen privately at epsilon {eps:g}, near the number of events that "
                 f"{QUANTILE:.0%} of the users do not exceed; a user's events beyond L are dropped")
    return Accounting("user", m, bound)


def _bought_level_bounds(totals: np.ndarray, m: int, windows: int, levels: int, eps: float, rnd, ledger: Ledger,
                         notes: list[str]) -> Accounting:
    """The user-level accounting with one L a level of the tree over time, drawn by
    :func:`psdviz.temporal.user_bound.choose_level_bounds` at ``eps`` in all (its ledger lines and note)."""
    bounds = choose_level_bounds(totals, m, windows, levels, eps, rnd.rng)
    qs = level_quantiles(levels)
    for d, q in enumerate(qs):
        ledger.spend(f"{BOUND_SPEND}, level {d}", eps / levels, "exponential", level=d,
                     sensitivity=score_sensitivity(float(q)),
                     note=f"near the {q:.0%} quantile of the users' totals")
    notes.append(f"L per level of the tree over time, from the whole span to one window: "
                 f"{', '.join(f'{int(b):,}' for b in bounds)}, chosen privately at epsilon {eps:g} in all, near the "
                 f"numbers of events that {qs[0]:.0%} down to {qs[-1]:.0%} of the users do not exceed; a level "
                 "counts each user's first L of their events in one random order")
    return Accounting("user", m, int(bounds.max()), level_totals=tuple(int(b) for b in bounds))


def _read(points, time, user, lon, lat, nonfinite):
    """(xy, seconds, user codes or None, the owner's report) from arrays, a frame or files (one scan)."""
    import pandas as pd
    table = isinstance(points, (str, list)) or hasattr(points, "__fspath__")
    frame = isinstance(points, pd.DataFrame)
    if table or frame:
        if not (isinstance(time, str) and lon and lat) or (user is not None and not isinstance(user, str)):
            raise ParameterError("a frame or files need lon=, lat= and time= (and user=) as column names")
        cols = [lon, lat, time] + ([user] if user is not None else [])
        data = points if frame else _read_files(points, cols)
        missing = [c for c in cols if c not in data.columns]
        if missing:
            have = ", ".join(map(str, data.columns[:20]))
            raise InputDataError(f"no column {missing[0]!r} in the data (its columns: {have})")
        xy = as_points(data[[lon, lat]].to_numpy(dtype=float))
        times, users = data[time], (data[user].to_numpy() if user is not None else None)
    else:
        xy = as_points(points)
        times, users = time, user
    n = xy.shape[0]
    seconds, no_time = to_seconds(times, "time")
    if seconds.size != n:
        raise InputDataError(f"time must give one timestamp per point: {n:,} points, {seconds.size:,} timestamps")
    codes = _user_codes(users, n) if users is not None else None
    bad = ~np.isfinite(xy).all(axis=1) | no_time
    if bad.any() and nonfinite == "error":
        raise InputDataError(f"{int(bad.sum()):,} of {n:,} rows have missing or non-finite coordinates or times: "
                             "drop them or pass nonfinite='drop'")
    report = {"rows_in": n, "rows_nonfinite_dropped": int(bad.sum()), "outside_rows": "dropped",
              "nonfinite_rows": "dropped" if nonfinite == "drop" else "refused"}
    ok = ~bad
    return (xy[ok], seconds[ok], None if codes is None else codes[ok], report)


def _user_codes(users, n: int) -> np.ndarray:
    """Integer codes of the user ids: pandas' hash factorisation (linear time, where sorting 10^7 ids is not); ids
    that are missing are refused as :func:`psdviz.core.contribution.user_codes` refuses them."""
    import pandas as pd
    arr = np.asarray(users)
    if arr.ndim != 1 or arr.shape[0] != n:
        return user_codes(users, n)           # its error names the shapes
    codes, _ = pd.factorize(arr, use_na_sentinel=True)
    if (codes < 0).any():
        return user_codes(users, n)           # its error names the missing ids
    return codes.astype(np.int64)


def _read_files(pattern, columns: list[str]):
    """The named columns of Parquet or CSV files (one scan: pyarrow reads those columns only)."""
    import pyarrow as pa
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    from .sources.files import expand_paths, file_kind
    tables = []
    for p in expand_paths(pattern):
        try:
            if file_kind(p) == "parquet":
                t = pq.read_table(p, columns=columns)
            else:
                t = pcsv.read_csv(p, convert_options=pcsv.ConvertOptions(include_columns=columns))
        except (pa.ArrowInvalid, KeyError) as exc:
            raise InputDataError(f"{p}: cannot read columns {columns}: {str(exc)[:200]}") from None
        tables.append(t.select(columns))
    return pa.concat_tables(tables, promote_options="permissive").to_pandas()


def _bought(xy, domain, bits, eps_part, theta, acct, rnd, ledger, notes) -> Partition:
    """The leaves of a PrivTree on the pooled events (split while its biased noisy count exceeds ``theta``, a
    public threshold), at ``eps_part`` for the unit: one unit
    changes the pooled events by at most k (1 event; L for a user; m w for w-event), so the build runs at
    eps_part / k per event and its ledger is recorded with every epsilon and sensitivity times k (group
    privacy)."""
    from .api import build
    k = {"event": 1, "user": acct.total, "w-event": acct.per_window * acct.w}[acct.unit]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rel = build(xy, domain, "privtree", eps_part / k, seed=rnd, resolution=bits, tree_fraction=TREE_FRACTION,
                    theta=float(theta))
    for s in rel.ledger.spends:
        ledger.spend(f"partition: {s.what}", s.epsilon * k, s.mechanism, level=s.level, nodes=s.nodes,
                     sensitivity=s.sensitivity * k, delta=s.delta,
                     note="; ".join(x for x in (s.note, f"pooled events; one unit adds at most {k} (group privacy)")
                                    if x))
    notes.append(f"the partition: the {int(rel.tree.is_leaf.sum()):,} cells of a PrivTree of the pooled events at "
                 f"epsilon {eps_part:g} (split while the noisy count exceeds {theta:,.0f}); its leaf counts are not "
                 "released")
    return Partition.from_rects(Grid(domain, bits), rel.tree.rect[rel.tree.leaf_index()])
