"""The public entry point ``psdviz.build`` (docs/design.md "Public surface")."""
from __future__ import annotations

import dataclasses
import math
import warnings
from contextlib import contextmanager

import numpy as np

from .core.cells import check_passes, hold_cells
from .core.contribution import bound_contributions, user_codes
from .core.domain import Domain, PointSet, as_points, prepare_points, reuse_points
from .core.errors import ParameterError
from .core.grid import DEFAULT_RESOLUTION
from .core.ledger import TOLERANCE
from .core.memory import memory_budget
from .core.progress import report, reporting
from .core.rng import make_randomness
from .core.validation import check_epsilon, warn_large_epsilon
from .methods.param_info import coerce_params
from .methods.registry import accepts_workload, get_builder, methods, references, spec_of
from .methods.workload_budget import check_workload
from .publish.group_privacy import to_user_level, unit_for, user_unit
from .publish.nonnegative import nonnegative as make_nonnegative
from .publish.release import Release
from .sources import is_table_source, open_source

METHODS_AND_REFERENCES = methods() + references()


class EmptyReleaseWarning(UserWarning):
    """No input point lies inside the domain: the release is pure noise (built, as the privacy
    argument needs: refusing would reveal that the data are empty, but the owner is told)."""


class NoiseDominatesWarning(UserWarning):
    """The release's noise swamps it: its total is within two noise standard deviations of zero, or every
    cell is. Decided from released values only (post-processing), so warning changes nothing private."""


def build(points, domain: Domain, method: str = "auto", epsilon: float = 0.5, seed: int | None = None,
          *, outside: str = "drop", nonfinite: str = "error", resolution: int = DEFAULT_RESOLUTION,
          user=None, max_points_per_user: int | None = None, progress=None, lon: str | None = None,
          lat: str | None = None, memory_limit: str | None = None, passes: str = "auto",
          nonnegative: bool = False, workload=None, privacy_budget=None, **params) -> Release:
    """Build a private spatial decomposition of ``points`` over the public ``domain``.

    Every method reads every source through the same grouped counts (:mod:`psdviz.core.source`),
    so the release is the same for the same seed whatever the source.

    Parameters
    ----------
    points : array (n, 2), DataFrame, PointSet, path, glob, list of paths or Dask DataFrame
        In memory: x, y (e.g. lon, lat), or points already checked and quantised by
        ``pv.prepare_points`` with this build's domain, resolution, ``outside`` and ``nonfinite`` (several
        builds of the same data then share them: :func:`psdviz.core.domain.reuse_points`). Out of core, with
        the column names ``lon`` and ``lat``: Parquet / CSV files scanned by DuckDB (``memory_limit`` such as
        "2GB" bounds the build) or a Dask DataFrame (run by the active dask.distributed client).
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
        The build's memory budget ("2GB", "500MB"), split (:mod:`psdviz.core.memory`): half caps DuckDB for
        file sources, the occupied cells are held when they fit in half, and the tree has at most half at
        400 bytes a node (a height or grid size beyond it is lowered, with a note in the release).
    passes : {"auto", "one", "per-level"}
        Files and Dask frames: "one" reads the data once into their occupied grid cells and builds from
        memory; "per-level" reads them once per pass of the method; "auto" (default) holds the cells
        when they fit in half of ``memory_limit`` (default: a quarter of the machine's memory) at 128
        bytes a cell (:mod:`psdviz.core.cells`). Same release either way; the path taken is in ``audit()``.
    nonnegative : bool
        Replace the estimates by non-negative least squares over the released counts
        (post-processing, no epsilon; :mod:`psdviz.publish.nonnegative`).
    workload : array (k, 4) or psdviz.regions.Regions, optional
        The queries the publisher will ask, public input: rectangles ([xmin, ymin, xmax, ymax] each,
        clipped to the domain) or a region layer in the release's coordinates (every region of every
        level one query). The quadtree plans its per-level budget for them
        (:mod:`psdviz.methods.workload_budget`) and, for a layer, grows deep enough that its borders cut
        little of each region (:mod:`psdviz.methods.workload_regions`); ``auto`` passes them on when it
        picks the quadtree (its note says when it does not). The release records them (a layer by its
        size and a SHA-256 of its ids and shapes) and still answers any rectangle or region.
    privacy_budget : psdviz.Budget, optional
        The data set's budget across releases: a build it cannot take is refused before any data is read;
        a build it can take is recorded in it (:mod:`psdviz.budget`). (Not ``budget``, which names the
        quadtree's and kd-tree's per-level plan.)
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
    warn_large_epsilon(epsilon)
    check_passes(passes)
    if not isinstance(nonnegative, (bool, np.bool_)):
        raise ParameterError(f"nonnegative must be True or False (got {nonnegative!r})")
    if not isinstance(method, str):
        raise ParameterError(f"method must be a method name, one of {sorted(METHODS_AND_REFERENCES)} (got {method!r})")
    builder = get_builder(method)
    if nonnegative and not spec_of(method).nonnegative:      # before any data is read
        raise ParameterError(f"nonnegative=True does not apply to {method!r}: its cells are estimated jointly from "
                         "correlated measurements; build without nonnegative")
    params = coerce_params(method, params)
    if workload is not None and not accepts_workload(method):
        raise ParameterError(f"workload= is planned for by the quadtree (and auto when it picks it); {method!r} "
                         "does not plan its measurements for queries: use method='quadtree' or drop workload")
    rnd = make_randomness(seed)
    if privacy_budget is not None:  # before any data is read: nothing is built when it does not fit
        if method not in methods():
            raise ParameterError(f"{method!r} is a non-private reference: it cannot draw from a privacy budget")
        privacy_budget.check(epsilon, 0.0, unit_for(max_points_per_user if user is not None else None))
    with reporting(progress):
        report(0, 1, f"{method}: quantising the points to the public grid")
        with _source(points, domain, rnd, user, max_points_per_user, outside, nonfinite, resolution, lon, lat,
                     memory_limit, passes) as (ps, k, dropped):
            if workload is not None:   # the domain is checked by now
                params["workload"] = check_workload(workload, domain)
            release = builder(ps, domain, epsilon / k, rnd, **params)
        report(1, 1, f"{method}: done")
    if dropped is not None:
        release = to_user_level(release, k, epsilon)
        release = release.evolve(input_report={**release.input_report, "rows_dropped_by_user_bound": dropped})
    spent = release.ledger.total()
    if spent > epsilon * (1 + TOLERANCE):  # defensive: a builder bug must not ship
        raise RuntimeError(f"{method} spent {spent} > epsilon {epsilon}")
    if release.grid != ps.grid:      # every builder states its grid; the source's is the one used
        raise RuntimeError(f"{method} released on another grid than its source's")
    _warn_if_empty(release, domain)
    release = make_nonnegative(release) if nonnegative else release
    if release.private:
        warn_if_swamped(release)
    if privacy_budget is not None:
        privacy_budget.draw(release, "spatial")
    return release


def warn_if_swamped(release: Release, target: float = 0.1) -> None:
    """Warn (:class:`NoiseDominatesWarning`) with :func:`swamped` 's message, if any."""
    message = swamped(release, target)
    if message:
        warnings.warn(message, NoiseDominatesWarning, stacklevel=3)


def swamped(release: Release, target: float = 0.1) -> str | None:
    """Why the noise swamps ``release``, or None: its answer for the whole domain is within two standard
    errors of zero, or every cell's estimate is within two noise sds of zero; the words state the expected
    relative error at the root and the epsilon that would bring it to ``target``.

    Reads only the release (its answer and variance for the whole domain, its cells' estimates and noise
    variances): post-processing, so the message reveals nothing the release does not. Whether a release
    is written never depends on it (a decision on exact counts would leak)."""
    from .publish.cells import within_noise
    whole = release.domain.as_rect()[None, :]
    total = float(release.answer(whole)[0])
    var = float(release.answer_variance(whole)[0])
    if not (math.isfinite(var) and var > 0):
        return None
    sd = math.sqrt(var)
    root_swamped = abs(total) <= 2 * sd
    if not root_swamped and not within_noise(release.tree, release.tree.leaf_index()).all():
        return None
    # the total is at most |total| + 2 sd (about 95 %): the relative error is at least sd over that
    size = abs(total) + 2 * sd if root_swamped else abs(total)
    rel_err = sd / size
    needed = release.epsilon * rel_err / target        # noise sd scales as 1 / epsilon
    what = ("its total is within two noise standard deviations of zero" if root_swamped
            else "every cell's estimate is within two noise standard deviations of zero")
    bound = "at least " if root_swamped else ""
    return (f"the noise swamps this release: {what} (total {total:,.0f}, noise standard deviation "
            f"{sd:,.0f}); expected relative error of the whole domain's count {bound}{rel_err:.0%}, and an "
            f"epsilon of {bound}about {needed:.3g} (now {release.epsilon:g}) for {target:.0%} there "
            "(from released values only)")


@contextmanager
def _source(points, domain, rnd, user, max_points_per_user, outside, nonfinite, resolution, lon, lat, memory_limit,
            passes="auto"):
    """The grouped-count source of any input (array, frame, files, Dask), after bounding each user's
    points when ``user`` is given: yields (source, k, rows dropped by the bound or None)."""
    k, dropped = 1, None
    table = is_table_source(points)
    if isinstance(points, PointSet) and (user is not None or max_points_per_user is not None):
        raise ParameterError("user-level privacy (user, max_points_per_user) needs the points as an array, not "
                         "prepared points")
    if user is not None or max_points_per_user is not None:
        if table:
            raise ParameterError("user-level privacy (user, max_points_per_user) needs the points in memory; "
                             "files and Dask DataFrames are built at point level")
        if user is None or max_points_per_user is None:
            raise ParameterError("user-level privacy needs both user (one id per point) and max_points_per_user")
        arr = as_points(points)
        keep = bound_contributions(user_codes(user, arr.shape[0]), max_points_per_user, rnd.rng)
        k, dropped, points = int(max_points_per_user), int((~keep).sum()), arr[keep]
    if table:
        ps = open_source(points, domain, lon=lon, lat=lat, outside=outside, nonfinite=nonfinite,
                         resolution=resolution, memory_limit=memory_limit)
        try:
            ps = hold_cells(ps, passes, memory_limit)
        except BaseException:
            ps.close()
            raise
    elif isinstance(points, PointSet):
        ps = reuse_points(points, domain, outside, nonfinite, resolution)
    else:
        ps = prepare_points(points, domain, outside=outside, nonfinite=nonfinite, resolution=resolution)
    try:
        with memory_budget(memory_limit):   # trees sized to the limit (psdviz.core.memory)
            yield ps, k, dropped
    finally:
        ps.close()


def _warn_if_empty(release: Release, domain: Domain) -> None:
    """Tell the data owner (a warning, never the release) when no point was used."""
    rep = release.input_report
    if rep.get("rows_used", 1) == 0:
        warnings.warn(f"none of the {rep.get('rows_in', 0):,} input rows lies inside the domain x [{domain.xmin:g}, "
                      f"{domain.xmax:g}], y [{domain.ymin:g}, {domain.ymax:g}]: this release is pure noise; check "
                      "the bounds or the column order (lon, lat)", EmptyReleaseWarning, stacklevel=3)


def build_regions(points, regions, method: str = "regions", epsilon: float = 0.5, seed: int | None = None, *,
                  domain: Domain | None = None, resolution: int = DEFAULT_RESOLUTION, user=None,
                  max_points_per_user: int | None = None, lon: str | None = None, lat: str | None = None,
                  memory_limit: str | None = None, nonfinite: str = "drop", passes: str = "auto",
                  pooling: str = "sparse", privacy_budget=None):
    """Private counts for every region of a public layer, consistent over its tree.

    Parameters
    ----------
    points : array (n, 2), DataFrame, path, glob, list of paths or Dask DataFrame
        As for :func:`build`; every source gives the same release for the same seed.
    regions : psdviz.regions.Regions
        The public layer (levels from its parent links; regions of a level do not overlap).
    method : str
        "regions" (the only one: noisy counts per level, least squares, non-negative integers).
    epsilon : float
        The budget, split evenly across the levels.
    seed : int or None
        None for fresh randomness; an integer for a reproducible, labelled teaching run.
    domain : Domain, optional
        The public domain of the grid the points are counted on; default: the layer's bounds (public).
    resolution : int
        Bits per axis of that grid; a point is placed by its cell's centre (the release states how far
        from a border that may misplace it).
    user, max_points_per_user, lon, lat, memory_limit, nonfinite, passes
        As for :func:`build`.
    pooling : {"sparse", "none"}
        "sparse": a region whose noisy count is at most its number of children times one noise
        standard deviation of a child's count is measured again with the budget of the levels below
        it, and its descendants get area shares of its count instead of noisy counts of their own
        (``counts()["source"]`` says which); "none": every region of every level is measured.
    privacy_budget : psdviz.Budget, optional
        As for :func:`build`.

    Returns
    -------
    RegionRelease
        ``counts()``: id, name, level, parent, estimate (non-negative integers, parent = sum of
        children), standard error; the release protocol (report, audit, save, ledger).
    """
    from .regions import Regions, measure_regions
    from .regions.build import check_pooling
    if not isinstance(regions, Regions):
        raise ParameterError("regions must be a psdviz.regions.Regions (Regions.from_file, Regions.from_frame, "
                         "us_counties(), ...)")
    if method != "regions":
        raise ParameterError(f"method must be 'regions' (got {method!r})")
    epsilon = check_epsilon(epsilon)
    warn_large_epsilon(epsilon)
    domain = domain if domain is not None else Domain(*regions.bounds())
    rnd = make_randomness(seed)
    check_passes(passes)
    check_pooling(pooling)
    if privacy_budget is not None:
        privacy_budget.check(epsilon, 0.0, unit_for(max_points_per_user if user is not None else None))
    with _source(points, domain, rnd, user, max_points_per_user, "drop", nonfinite, resolution, lon, lat,
                 memory_limit, passes) as (ps, k, dropped):
        rel = measure_regions(ps, regions, epsilon / k, rnd, pooling)
    if dropped is not None:
        rel = dataclasses.replace(rel, ledger=rel.ledger.per_user(k, epsilon), privacy_unit=user_unit(k),
                                  input_report={**rel.input_report, "rows_dropped_by_user_bound": dropped})
    if privacy_budget is not None:
        privacy_budget.draw(rel, "regions")
    return rel
