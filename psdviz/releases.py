"""One way to open any psdviz release file: ``pv.load_release(path)``.

Spatial releases are GeoParquet (``docs/release-format.md``); count-of-counts and sparse summaries are
JSON files whose first key names their format. Each reader checks the whole file against its own
tables and refuses a damaged or edited one with a ValueError naming what is wrong.
"""
from __future__ import annotations

import re
from pathlib import Path

from .coco.release_file import FORMAT as COCO
from .coco.release_file import load_coco
from .kernel.protocol import PrivateRelease
from .methods.registry import methods, references
from .publish.release_checks import check_method
from .publish.release_load import load_release as load_spatial
from .regions.release import FORMAT as REGIONS
from .regions.release import load_regions
from .sparse.release_file import FORMAT as SPARSE
from .sparse.release_file import load_sparse
from .temporal.release import FORMAT as OVER_TIME
from .temporal.release import load_time

_FORMAT = re.compile(rb'^\s*\{\s*"format"\s*:\s*"([a-z-]+)"')


def load_release(path) -> PrivateRelease:
    """Open a release file written by any product line's ``save(path)``.

    Parameters
    ----------
    path : str or Path
        A spatial release (GeoParquet, from ``Release.save`` or ``psdviz build``), a count-of-counts
        release (``CocoRelease.save``), a sparse summary (``SparseRelease.save``), a region release or a release
        over time (``TimeRelease.save``).

    Returns
    -------
    Release, CocoRelease, SparseRelease, RegionRelease or TimeRelease
        The release, answering its queries exactly as the original did.
    """
    path = Path(path)
    try:
        with path.open("rb") as fh:
            head = fh.read(256)
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror or exc}") from None
    if head.startswith(b"PAR1"):
        rel = load_spatial(path)
        check_method(rel.method, methods(), references())
        return rel
    m = _FORMAT.match(head)
    kind = m.group(1).decode() if m else None
    if kind == COCO:
        return load_coco(path)
    if kind == SPARSE:
        return load_sparse(path)
    if kind == REGIONS:
        return load_regions(path)
    if kind == OVER_TIME:
        return load_time(path)
    if kind is not None:
        raise ValueError(f"{path} is format {kind!r}; this psdviz reads 'psdviz-release', {COCO!r}, {SPARSE!r}, "
                         f"{REGIONS!r} and {OVER_TIME!r}")
    raise ValueError(f"{path} is not a psdviz release file (neither GeoParquet nor a psdviz JSON release)")
