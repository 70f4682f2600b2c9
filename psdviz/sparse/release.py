"""SparseRelease: what could be published from a sparse-table summary (ICDT'12 M'').

Holds the kept cells as arrays (indices ascending, noisy values M''(i), estimation weights), the
ledger, the resolved public parameters and the randomness label. Query estimators:

- ``range_sums(lo, hi)``: sums over cell ranges [lo, hi) (prefix sums; for a dyadic release, the
  canonical <= 2 nodes per level of section 3);
- ``subset_sum(cells)``: sum over any set of cells.

``adjusted=True`` (default) uses the weights: Horvitz-Thompson / priority adjusted weights, which
are unbiased for threshold and priority samples (appendix C.2, C.3); for filters the weights are
the kept values (biased, appendix C.1). ``adjusted=False`` uses the raw noisy values (the paper
notes this can be better for point queries). True counts never live in a release; ``to_dict``
is JSON-ready.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from functools import cached_property
from typing import ClassVar, Literal, overload

import numpy as np
import pandas as pd

from ..core.errors import ParameterError
from ..core.ledger import Ledger
from ..core.privacy_unit import PrivacyUnit
from ..core.rng import Randomness, check_seeded_export
from ..kernel import json_release as jr
from ..kernel.freeze import freeze
from ..kernel.header import ReleaseHeader
from ..kernel.protocol import json_value, owner_audit
from .dyadic import DyadicIndex, decompose_ranges
from .table import _range_sums, _subset_sum

FORMAT = "psdviz-sparse"   # the release file (psdviz/sparse/release_file.py reads it)


@dataclass(frozen=True)
class SparseRelease:
    """A private summary of a sparse count table (immutable once built).

    The release protocol: ``epsilon``, ``ledger``, ``privacy_unit``, ``report()`` (publishable),
    ``audit()`` (the owner's exact input counts, not private), ``save(path)``; ``pv.load_release``
    opens the saved file."""

    method: str
    params: dict
    m: int                         # cells of the released domain (leaves for a dyadic release)
    indices: np.ndarray            # kept cells (dyadic: global node ids), ascending
    values: np.ndarray             # noisy values M''(i)
    weights: np.ndarray            # estimation weights
    ledger: Ledger
    randomness: Randomness
    layout: dict = field(default_factory=dict)
    dyadic: DyadicIndex | None = None
    notes: tuple[str, ...] = ()
    input_report: dict = field(default_factory=dict)   # the owner's exact input counts: audit() only
    kind: ClassVar[str] = "sparse"
    private: ClassVar[bool] = True

    def __post_init__(self) -> None:
        freeze(self, arrays=("indices", "values", "weights"), tuples=("notes",),
               dicts=("params", "layout", "input_report"))

    @property
    def privacy_unit(self) -> PrivacyUnit:
        """One individual, whose rows change the table's counts by at most the declared sensitivity."""
        return PrivacyUnit("individual", float(self.params.get("sensitivity", 1.0)))

    @cached_property
    def header(self) -> ReleaseHeader:
        """The facts every release kind states first (:class:`~psdviz.kernel.header.ReleaseHeader`)."""
        return ReleaseHeader(self.kind, self.method, self.params, self.ledger, self.randomness, self.privacy_unit,
                             notes=self.notes)

    @overload
    def report(self, format: Literal["json"] = "json") -> dict: ...

    @overload
    def report(self, format: str) -> dict | str: ...

    def report(self, format: str = "json") -> dict | str:
        """Publishable facts: method, resolved parameters, m, summary size, epsilon, ledger, randomness,
        privacy unit, layout, notes (no count of the input, no seed); with ``format="markdown"`` the privacy
        statement (:func:`psdviz.kernel.statement.markdown`)."""
        from ..kernel.statement import check_format, markdown
        if check_format(format) == "markdown":
            return markdown(self)
        return {**self.header.report(),
                "m": int(self.m), "size": self.size, "layout": json_value(self.layout),
                "dyadic_height": None if self.dyadic is None else self.dyadic.height}

    def audit(self) -> dict:
        """The data owner's audit: exact counts about the input table (non-zero cells, total). Not
        differentially private: never part of the report or of a file."""
        return owner_audit(self.input_report, self.randomness.seed)

    def save(self, path, *, allow_seeded: bool = False):
        """Write the release file (JSON: the report and the kept entries); ``pv.load_release`` opens it.
        A seeded run is refused unless ``allow_seeded=True``."""
        check_seeded_export(self.randomness, allow_seeded, "the sparse summary")
        return jr.write(path, FORMAT, {"report": self.report(), "indices": self.indices.tolist(),
                                       "values": self.values.tolist(), "weights": self.weights.tolist()})

    @property
    def size(self) -> int:
        return int(self.indices.size)

    @property
    def epsilon(self) -> float:
        return self.ledger.budget

    def _vals(self, adjusted: bool) -> np.ndarray:
        return self.weights if adjusted else self.values.astype(float)

    def range_sums(self, lo, hi, adjusted: bool = True) -> np.ndarray:
        """Estimated sums over cell ranges [lo, hi) (arrays of equal shape)."""
        lo_a = np.atleast_1d(np.asarray(lo, dtype=np.int64))
        hi_a = np.atleast_1d(np.asarray(hi, dtype=np.int64))
        if lo_a.shape != hi_a.shape or np.any(lo_a < 0) or np.any(hi_a > self.m) or np.any(hi_a < lo_a):
            raise ParameterError(f"ranges need equal shapes and 0 <= lo <= hi <= m = {self.m}")
        vals = self._vals(adjusted)
        if self.dyadic is None:
            return _range_sums(self.indices, vals, lo_a, hi_a)
        q, nodes = decompose_ranges(self.dyadic, lo_a, hi_a)
        pos = np.minimum(np.searchsorted(self.indices, nodes), max(self.size - 1, 0))
        hit = (self.indices[pos] == nodes) if self.size else np.zeros(nodes.size, dtype=bool)
        return np.bincount(q[hit], weights=vals[pos[hit]], minlength=lo_a.size).astype(float)

    def subset_sum(self, cells, adjusted: bool = True) -> float:
        """Estimated sum over a set of cells (a dyadic release uses its leaf level)."""
        cells = np.asarray(cells, dtype=np.int64).ravel()
        if cells.size and (cells.min() < 0 or cells.max() >= self.m):
            raise ParameterError(f"cells must lie in [0, m) = [0, {self.m})")
        if self.dyadic is not None:
            cells = self.dyadic.leaf_ids(cells)
        return _subset_sum(self.indices, self._vals(adjusted), cells)

    def subset_sums(self, subsets, adjusted: bool = True) -> np.ndarray:
        return np.array([self.subset_sum(c, adjusted) for c in subsets], dtype=float)

    def leaves(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Kept cells of the table itself (for a dyadic release: its leaf level) with values, weights."""
        if self.dyadic is None:
            return self.indices, self.values, self.weights
        first = self.dyadic.offsets()[self.dyadic.height]
        sel = self.indices >= first
        return self.indices[sel] - first, self.values[sel], self.weights[sel]

    def to_frame(self) -> pd.DataFrame:
        """One row per kept entry: cell (or node), level for dyadic, value, weight, labels."""
        df = pd.DataFrame({"cell": self.indices, "value": self.values, "weight": self.weights})
        if self.dyadic is not None:
            df["level"] = self.dyadic.level_of(self.indices)
            df["node"] = self.indices - self.dyadic.offsets()[df["level"].to_numpy()]
        elif self.layout.get("kind") == "contingency":
            ncol = self.layout["shape"][1]
            df["row"] = np.asarray(self.layout["rows"], dtype=object)[self.indices // ncol]
            df["col"] = np.asarray(self.layout["cols"], dtype=object)[self.indices % ncol]
        elif self.layout.get("kind") == "grid":
            from .builders import grid_cells
            rects = grid_cells(self.layout, self.indices)
            df[["xmin", "ymin", "xmax", "ymax"]] = rects
        return df

    def to_dict(self, *, allow_seeded: bool = False) -> dict:
        """Deprecated: use :meth:`save` (the release file) or :meth:`report`. Parameters, ledger, entries."""
        warnings.warn("SparseRelease.to_dict is deprecated: use save(path) (opened by pv.load_release) or report()",
                      DeprecationWarning, stacklevel=2)
        check_seeded_export(self.randomness, allow_seeded, "the sparse summary")
        return {"method": self.method, "params": json_value(self.params), "m": int(self.m),
                "size": self.size, "epsilon": self.epsilon, "ledger": self.ledger.records(),
                "randomness": self.randomness.mode, **self.randomness.warning(),
                "layout": json_value(self.layout), "dyadic_height": None if self.dyadic is None
                else self.dyadic.height, "notes": list(self.notes),
                "indices": self.indices.tolist(), "values": self.values.tolist(),
                "weights": self.weights.tolist()}
