"""``psdviz run``: every release of a job file, one line per failure, nothing half-written."""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from .. import Domain
from ..api import build, build_regions
from ..errors import JobFileError, PsdvizError
from ..present import MissingExtraError
from .inputs import numeric_points, read_columns
from .output import region_output, write_drawn


def run_job(a: argparse.Namespace) -> int:
    from ..budget import Budget
    from ..jobs import columns as job_columns
    from ..jobs import load_job, plan, preflight
    job = load_job(a.job)
    for line in plan(job):
        print(line, flush=True)
    budget = None if job.budget is None else Budget(job.path.parent / job.budget)
    if budget is not None:              # the whole job must fit before any data is read
        from ..jobs import release_unit
        units = {str(release_unit(r)): release_unit(r) for r in job.releases}
        for unit in units.values():     # one unit a budget: a job of several units is refused here
            budget.check(job.epsilon, 0.0, unit, what=f"the job ({len(job.releases)} releases)")
    prepared = preflight(job)           # columns, layers, hierarchies, outputs: before any row or epsilon
    if a.dry_run:
        print("dry run: checked the columns, layers, hierarchies and outputs; no data row read, nothing written")
        return 0
    d = job.data
    cols = read_columns(str(job.path.parent / d["path"]), job_columns(job))     # the data, read once
    points = numeric_points(cols, d["lon"], d["lat"])
    written: list[tuple[Path, float]] = []
    for i, r in enumerate(job.releases):
        try:
            out, eps = job_release(job, r, i, prepared, points, cols, budget)
        except Exception as exc:
            raise failed_release(job_failure(r.line, exc, written, budget), exc) from None
        written.append((out, eps))
        print(f"wrote {out} (line {r.line}): epsilon {eps:g}", flush=True)
    return 0


def job_release(job, r, i: int, prepared, points: np.ndarray, cols: dict, budget) -> tuple[Path, float]:
    """Build and write one release of a job (drawn from its budget, if any): the file and its epsilon."""
    from ..jobs import job_coco
    s, domain = r.spec, Domain(*job.data["domain"])
    out = job.path.parent / s["out"]
    if r.kind == "spatial":
        grid = {"resolution": s["resolution"]} if "resolution" in s else {}
        rel = build(points, domain, s["method"], float(s["epsilon"]), nonfinite="drop", **grid, **s.get("params", {}))
        write_drawn(budget, rel, "spatial", out, lambda p: rel.save(p, crs=s.get("crs")))
    elif r.kind == "count-of-counts":
        rel = job_coco(s, cols, prepared.hierarchies[i])
        write_drawn(budget, rel, "count-of-counts", out, lambda p: rel.save(p))
    elif r.kind == "over-time":
        from ..over_time import build_over_time
        keys = ("unit", "mechanism", "max_points_per_window", "max_points_per_user", "w", "partition", "grid_level",
                "partition_fraction", "fanout")
        over = build_over_time(points, domain, time=cols[s["time"]], span=tuple(str(v) for v in s["span"]),
                               window=s["window"], epsilon=float(s["epsilon"]), nonfinite="drop",
                               user=cols[s["user"]] if s.get("user") else None, **{k: s[k] for k in keys if k in s})
        write_drawn(budget, over, "over-time", out, lambda p: over.save(p))
        return out, over.epsilon
    else:
        rel = build_regions(points, prepared.layers[i], epsilon=float(s["epsilon"]), pooling=s.get("pooling", "sparse"))
        write_drawn(budget, rel, "regions", out, lambda p: region_output(rel, p))
    return out, rel.epsilon


def user_error(exc: BaseException) -> bool:
    """Whether ``exc`` is a mistake of the command's user (told in one line, exit 2) rather than a bug: one of
    :mod:`psdviz.errors`' types, a file the system refuses or a missing optional package."""
    return isinstance(exc, (PsdvizError, OSError, MissingExtraError))


def failed_release(message: str, exc: BaseException) -> Exception:
    """The error to raise for a release that failed mid-job: the named type of a user's mistake (an OSError or a
    missing package: :class:`JobFileError`), a RuntimeError (reported as a bug) otherwise."""
    if isinstance(exc, PsdvizError):
        return type(exc)(message)
    return JobFileError(message) if user_error(exc) else RuntimeError(message)


def job_failure(line: int, exc: BaseException, written: list[tuple[Path, float]], budget) -> str:
    """One line for a release that failed mid-job: what failed, and what had been written and charged."""
    what = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    if not user_error(exc):
        what = f"unexpected {type(exc).__name__}: {what} (a bug in psdviz: please report it)"
    done = (f"already written: {', '.join(str(p) for p, _ in written)}" if written else "nothing was written")
    charged = sum(e for _, e in written)
    spent = (f"; the budget {budget.path.name} was charged epsilon {charged:g} for them ({budget.remaining:g} "
             "left)" if budget is not None and written else
             "; the budget is unchanged" if budget is not None else "")
    return f"the release on line {line} failed: {what}; {done}{spent}"
