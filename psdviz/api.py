"""The public entry point ``psdviz.build`` (docs/design.md "Public surface")."""
from __future__ import annotations

import warnings

import numpy as np

from .core.contribution import bound_contributions, user_codes
from .core.domain import Domain, as_points, prepare_points
from .core.grid import DEFAULT_RESOLUTION
from .core.ledger import TOLERANCE
from .core.progress import report, reporting
from .core.rng import make_randomness
from .core.validation import check_epsilon
from .methods.param_info import coerce_params
from .methods.registry import get_builder, methods, references
from .publish.group_privacy import to_user_level
from .publish.nonnegative import nonnegative as make_nonnegative
from .publish.release import Release
from .sources import is_table_source, open_source

METHODS_AND_REFERENCES = methods() + references()


class EmptyReleaseWarning(UserWarning):
    """No input point lies inside the domain: the release is pure noise (built, as the privacy
    argument needs: refusing would reveal that the data are empty, but the owner is told)."""


def build(points, domain: Domain, method: str = "auto", epsilon: float = 0.5, seed: int | None = None,
          *, outside: str = "drop", nonfinite: str = "error", resolution: int = DEFAULT_RESOLUTION,
          user=None, max_points_per_user: int | None = None, progress=None, lon: str | None = None,
          lat: str | None = None, memory_limit: str | None = None, nonnegative: bool = False,
          **params) -> Release:
    """Build a private spatial decomposition of ``points`` over the public ``domain``.

    Every method reads every source through the same grouped counts (:mod:`psdviz.core.source`),
    so the release is the same for the same seed whatever the source.

    Parameters
    ----------
    points : array (n, 2), DataFrame, path, glob, list of paths or Dask DataFrame
        In memory: x, y (e.g. lon, lat). Out of core, with the column names ``lon`` and ``lat``:
        Parquet / CSV files scanned by DuckDB (``memory_limit`` such as "2GB" caps it) or a Dask
        DataFrame (run by the active dask.distributed client).
    domain : Domain
        The public bounds, never derived from the data.
    method : str
        One of ``pv.METHODS`` (default "auto", the recommended private method) or a labelled
        non-private reference (``pv.REFERENCES``); its parameters: ``pv.method_parameters(method)``.
    epsilon : float
        The privacy budget; the ledger's total never exceeds it.
    seed : int or None
        None draws fresh randomness from the OS; an integer gives a reproducible run labelled as such
        (NOT private: such a release is saved only with ``allow_seeded=True``).
    outside : {"drop", "clip"}
        What happens to points outside the domain.
    nonfinite : {"error", "drop"}
        What happens to rows with NaN or inf.
    resolution : int
        k: every released coordinate lies on the public grid of 2^k positions per axis over the
        domain, and points are counted in its cells (the data's declared precision).
    user, max_points_per_user : array, int
        User-level privacy: one id per point, and k; at most k points per user are kept (at random,
        with the release's randomness) and the build runs at epsilon / k per point, so one user
        changes the output by at most epsilon (group privacy, ``publish/group_privacy.py``).
    progress : callable, optional
        ``callback(done, total, what)`` after each pass over the data (``core/progress.py``).
    lon, lat : str
        Column names, for files and Dask frames.
    memory_limit : str, optional
        DuckDB's memory cap for file sources.
    nonnegative : bool
        Replace the estimates by non-negative least squares over the released counts
        (post-processing, no epsilon; :mod:`psdviz.publish.nonnegative`).
    **params
        The method's parameters (defaults from its paper).

    Returns
    -------
    Release
        Immutable; answers rectangles (``answer``, ``answer_variance``), holds its ledger, reports
        (``report``) and saves (``save``). The data owner's exact input counts are in ``audit()``.

    Raises
    ------
    ValueError
        For any bad input, naming the parameter or column and its limit, before any noise is drawn.
    EmptyReleaseWarning
        (a warning) when no input row lies inside the domain: the release is pure noise.
    """
    epsilon = check_epsilon(epsilon)
    if not isinstance(nonnegative, (bool, np.bool_)):
        raise ValueError(f"nonnegative must be True or False (got {nonnegative!r})")
    if not isinstance(method, str):
        raise ValueError(f"method must be a method name, one of {sorted(METHODS_AND_REFERENCES)} (got {method!r})")
    builder = get_builder(method)
    params = coerce_params(method, params)
    rnd = make_randomness(seed)
    k, dropped = 1, None
    table = is_table_source(points)
    if user is not None or max_points_per_user is not None:
        if table:
            raise ValueError("user-level privacy (user, max_points_per_user) needs the points in memory; "
                             "files and Dask DataFrames are built at point level")
        if user is None or max_points_per_user is None:
            raise ValueError("user-level privacy needs both user (one id per point) and max_points_per_user")
        arr = as_points(points)
        keep = bound_contributions(user_codes(user, arr.shape[0]), max_points_per_user, rnd.rng)
        k, dropped, points = int(max_points_per_user), int((~keep).sum()), arr[keep]
    with reporting(progress):
        report(0, 1, f"{method}: quantising the points to the public grid")
        if table:
            ps = open_source(points, domain, lon=lon, lat=lat, outside=outside, nonfinite=nonfinite,
                             resolution=resolution, memory_limit=memory_limit)
        else:
            ps = prepare_points(points, domain, outside=outside, nonfinite=nonfinite, resolution=resolution)
        try:
            release = builder(ps, domain, epsilon / k, rnd, **params)
        finally:
            ps.close()
        report(1, 1, f"{method}: done")
    if dropped is not None:
        release = to_user_level(release, k, epsilon)
        release = release.evolve(points_report={**release.points_report, "rows_dropped_by_user_bound": dropped})
    spent = release.ledger.total()
    if spent > epsilon * (1 + TOLERANCE) + TOLERANCE:  # defensive: a builder bug must not ship
        raise RuntimeError(f"{method} spent {spent} > epsilon {epsilon}")
    if release.grid != ps.grid:      # every builder states its grid; the source's is the one used
        raise RuntimeError(f"{method} released on another grid than its source's")
    _warn_if_empty(release, domain)
    return make_nonnegative(release) if nonnegative else release


def _warn_if_empty(release: Release, domain: Domain) -> None:
    """Tell the data owner (a warning, never the release) when no point was used."""
    rep = release.points_report
    if rep.get("rows_used", 1) == 0:
        warnings.warn(f"none of the {rep.get('rows_in', 0):,} input rows lies inside the domain x [{domain.xmin:g}, "
                      f"{domain.xmax:g}], y [{domain.ymin:g}, {domain.ymax:g}]: this release is pure noise; check "
                      "the bounds or the column order (lon, lat)", EmptyReleaseWarning, stacklevel=3)
