"""Count-of-counts release files (JSON, ``psdviz/kernel/json_release.py``): read back what ``CocoRelease.save``
wrote.

The file holds the publishable report, the public hierarchy (names, parents, levels), K, G per node
and the non-zero entries of the released histograms and of the per-node estimates before
consistency. Reading checks every array against the hierarchy before a release is made of it.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ..core.privacy_unit import PrivacyUnit
from ..kernel import json_release as jr
from ..kernel.file_checks import bad
from ..kernel.header import ReleaseHeader
from .hierarchy import Hierarchy
from .publish import CONSISTENCY
from .release import FORMAT, CocoRelease

MAX_DENSE = 60_000_000     # nodes x (K + 1): two int64 matrices of this size stay under 1 GB
PER_BYTE = 500             # ... and at most this many per byte of the file (a 36 kB file cannot ask for GBs)


def _matrix(doc, name: str, n: int, k: int, low: int) -> np.ndarray:
    if not isinstance(doc, dict):
        raise bad(f"{name} must hold node, size and count lists")
    node = jr.int_array(doc.get("node"), f"{name}.node", 0, n)
    size = jr.int_array(doc.get("size"), f"{name}.size", 0, k)
    count = jr.int_array(doc.get("count"), f"{name}.count", low, None)
    if not node.size == size.size == count.size:
        raise bad(f"{name}: node, size and count must have one length")
    out = np.zeros((n, k), dtype=np.int64)
    out[node, size] = count
    return out


def load_coco(path) -> CocoRelease:
    """Read a count-of-counts release file; every bad file is a ValueError naming what is wrong."""
    doc = jr.read(path, FORMAT)
    rep = doc["report"]
    head = ReleaseHeader.from_report(rep, "count-of-counts", PrivacyUnit("record"))
    hd = doc.get("hierarchy")
    if not isinstance(hd, dict):
        raise bad("the file has no hierarchy")
    try:
        h = Hierarchy(tuple(jr.text_list(hd.get("names"), "hierarchy.names")),
                      jr.int_array(hd.get("parent"), "hierarchy.parent", -1, None),
                      jr.int_array(hd.get("level"), "hierarchy.level", 0, None))
    except ValueError as exc:
        raise bad(f"hierarchy: {exc}") from None
    k = rep.get("max_size")
    if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= 10 ** 6:
        raise bad("max_size must be a whole number in [1, 1e6]")
    n = h.n_nodes
    size = Path(path).stat().st_size
    if n * (k + 1) > min(MAX_DENSE, max(10_000_000, PER_BYTE * size)):
        raise bad(f"{n:,} nodes x {k + 1:,} group sizes is more than this {size:,}-byte file can hold "
                  f"(at most {min(MAX_DENSE, max(10_000_000, PER_BYTE * size)):,} cells are read)")
    groups = jr.int_array(doc.get("groups"), "groups", 0, None)
    hist = _matrix(doc.get("histograms"), "histograms", n, k + 1, 0)
    independent = _matrix(doc.get("independent"), "independent", n, k + 1, -1)
    if groups.size != n or not np.array_equal(hist.sum(axis=1), groups):
        raise bad("every node's histogram must count its G groups")
    methods = rep.get("methods")
    if not isinstance(methods, list) or len(methods) != h.n_levels or not set(methods) <= {"naive", "hg", "hc"}:
        raise bad("methods must name one of naive, hg, hc per level")
    if rep.get("consistency") not in CONSISTENCY:
        raise bad(f"consistency must be one of {CONSISTENCY}")
    return CocoRelease(h, k, groups, hist, independent, tuple(methods), str(rep.get("consistency")), head.parameters,
                       head.ledger, head.randomness, head.notes,
                       structure_public=rep.get("structure") == "public inputs")
