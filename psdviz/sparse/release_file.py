"""Sparse-summary release files (JSON, ``psdviz/kernel/json_release.py``): read back what
``SparseRelease.save`` wrote.

The file holds the publishable report (resolved parameters, m, layout, ledger) and the kept entries
(cell or dyadic node, noisy value, estimation weight). Reading checks the entries against m before a
release is made of them.
"""
from __future__ import annotations

import numpy as np

from ..kernel import json_release as jr
from ..kernel.file_checks import bad
from .dyadic import DyadicIndex
from .release import FORMAT, SparseRelease

MAX_CELLS = 10 ** 15


def load_sparse(path) -> SparseRelease:
    """Read a sparse-summary release file; every bad file is a ValueError naming what is wrong."""
    doc = jr.read(path, FORMAT)
    rep = doc["report"]
    ledger, rnd = jr.ledger_and_randomness(rep)
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
    params, layout = rep.get("parameters", rep.get("params")), rep.get("layout")   # "params": earlier files
    if not isinstance(params, dict) or not isinstance(layout, dict) or not isinstance(rep.get("method"), str):
        raise bad("method, params and layout must be text and objects")
    sens = params.get("sensitivity", 1.0)
    if not jr.finite_number(sens) or not sens > 0:
        raise bad(f"sensitivity must be a finite number > 0 (got {str(sens)[:40]})")
    return SparseRelease(rep["method"], params, m, idx, values, weights, ledger, rnd, layout, dyadic,
                         tuple(jr.text_list(rep.get("notes"), "notes")))
