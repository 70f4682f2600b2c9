"""Sparse-summary release files (JSON, ``psdviz/kernel/json_release.py``): read back what
``SparseRelease.save`` wrote.

The file holds the publishable report (resolved parameters, m, layout, ledger) and the kept entries
(cell or dyadic node, noisy value, estimation weight). Reading checks the entries against m before a
release is made of them.
"""
from __future__ import annotations

import numpy as np

from ..core.privacy_unit import PrivacyUnit
from ..kernel import json_release as jr
from ..kernel.file_checks import bad
from ..kernel.header import ReleaseHeader
from .dyadic import DyadicIndex
from .release import FORMAT, SparseRelease

MAX_CELLS = 10 ** 15


def load_sparse(path) -> SparseRelease:
    """Read a sparse-summary release file; every bad file is a ValueError naming what is wrong."""
    doc = jr.read(path, FORMAT)
    rep = doc["report"]
    params = ReleaseHeader.parameters_of(rep)
    sens = params.get("sensitivity", 1.0)
    if not jr.finite_number(sens) or not sens > 0:
        raise bad(f"sensitivity must be a finite number > 0 (got {str(sens)[:40]})")
    head = ReleaseHeader.from_report(rep, "sparse", PrivacyUnit("individual", float(sens)))
    m = rep.get("m")
    if not isinstance(m, int) or isinstance(m, bool) or not 1 <= m <= MAX_CELLS:
        raise bad(f"m must be a whole number in [1, {MAX_CELLS:g}]")
    dyadic = None if rep.get("dyadic_height") is None else DyadicIndex(m)
    if dyadic is not None and rep.get("dyadic_height") != dyadic.height:
        raise bad("dyadic_height does not match m")
    top = m if dyadic is None else int(dyadic.offsets()[-1])
    idx = jr.int_array(doc.get("indices"), "indices", 0, top)
    values = jr.int_array(doc.get("values"), "values")
    weights = jr.float_array(doc.get("weights"), "weights")
    if not idx.size == values.size == weights.size or (np.diff(idx) <= 0).any():
        raise bad("indices must ascend, one value and one weight each")
    layout = rep.get("layout")
    if not isinstance(layout, dict):
        raise bad("layout must be an object")
    return SparseRelease(head.method, params, m, idx, values, weights, head.ledger, head.randomness, layout, dyadic,
                         head.notes)
