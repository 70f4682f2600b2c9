"""The region release: private counts for every region of a public layer, consistent over its tree.

It answers the release protocol (``epsilon``, ``ledger``, ``privacy_unit``, ``report()``, ``audit()``,
``save(path)``; ``pv.load_release`` opens the file) and ``counts()``: one row per region with its id,
name, level, parent, released count (a non-negative integer, parents equal to the sum of their
children) and the standard error of the least-squares step it was rounded from.
"""
from __future__ import annotations

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
from ..kernel.file_checks import bad, loaded_unit
from ..kernel.freeze import freeze
from ..kernel.header import ReleaseHeader
from ..kernel.intervals import whole_interval
from ..kernel.protocol import owner_audit

FORMAT = "psdviz-regions"
MEASURED, STOPPED, SHARED = 0, 1, 2       # how a region's count was obtained
SOURCES = ("measured", "measured twice, children pooled", "area share of a pooled region")


@dataclass(frozen=True)
class RegionRelease:
    """Noisy and consistent counts of the regions of a public layer (immutable once built)."""

    table: pd.DataFrame          # id, name, level, parent: the public layer, in tree order
    noisy: np.ndarray            # the measured noisy counts, one per region (NaN: not measured, an area share)
    estimate: np.ndarray         # non-negative integers, parent = sum of children
    least_squares: np.ndarray    # the consistent real-valued estimate before non-negativity and rounding
    standard_error: np.ndarray   # of the least-squares estimate (exact for that linear step)
    params: dict
    ledger: Ledger
    randomness: Randomness
    notes: tuple[str, ...] = ()
    privacy_unit: PrivacyUnit = field(default_factory=PrivacyUnit)
    input_report: dict = field(default_factory=dict)   # the owner's exact input counts: audit() only
    status: np.ndarray | None = None   # MEASURED, STOPPED or SHARED per region (None: every region measured)
    kind: ClassVar[str] = "regions"
    method: ClassVar[str] = "regions"
    private: ClassVar[bool] = True

    def __post_init__(self) -> None:
        if self.status is None:
            object.__setattr__(self, "status", np.full(self.estimate.size, MEASURED, dtype=np.int8))
        freeze(self, arrays=("noisy", "estimate", "least_squares", "standard_error", "status"), tuples=("notes",),
               dicts=("params", "input_report"))
        object.__setattr__(self, "table", self.table.reset_index(drop=True).copy())

    @property
    def epsilon(self) -> float:
        return self.ledger.budget

    def counts(self) -> pd.DataFrame:
        """id, name, level, parent, estimate (released integer), low_95 and high_95 (its 95 % interval:
        :meth:`interval`), standard_error, noisy
        (as measured; for a region measured twice the inverse-variance mean of its two counts; NaN where not measured),
        source (measured; measured twice with its children pooled; area share of a pooled region)."""
        low, high = self.interval()
        return self.table.assign(estimate=self.estimate, low_95=low, high_95=high, standard_error=self.standard_error,
                                 noisy=self.noisy, source=np.asarray(SOURCES, dtype=object)[self.status])

    def interval(self) -> tuple[np.ndarray, np.ndarray]:
        """The 95 % interval of every region's count (low, high). A measured region's is its noise's
        (:func:`~psdviz.kernel.intervals.whole_interval`: no cell is cut). A region given an area share of its pooled
        parent's count is known only to hold between 0 and all of that count: its interval is that bound, [0, the
        parent's high end], since how the parent's points spread over its regions is not measured."""
        low, high = whole_interval(self.estimate, self.standard_error)
        shared = np.flatnonzero(self.status == SHARED)
        if shared.size:
            row = pd.Series(np.arange(len(self.table)), index=self.table["id"].to_numpy())
            parent = row.reindex(self.table["parent"].to_numpy()[shared]).to_numpy()
            known = np.isfinite(parent)
            p = parent[known].astype(np.int64)
            low, high = low.copy(), high.copy()
            low[shared[known]] = 0.0
            high[shared[known]] = np.maximum(high[p], high[shared[known]])
        return low, high

    def to_geodataframe(self, regions):
        """The counts with the regions' shapes (``regions``: the public layer the release was built on, which
        the release file does not hold), as a GeoDataFrame in the layer's CRS."""
        if list(regions.table()["id"]) != list(self.table["id"]):
            raise ParameterError("regions must be the layer this release was built on (the same ids in the same order)")
        return regions.frame[["id", "geometry"]].merge(self.counts(), on="id")

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
        """Publishable facts: method, parameters, epsilon, ledger, randomness, privacy unit, notes; with
        ``format="markdown"`` the privacy statement (:func:`psdviz.kernel.statement.markdown`)."""
        from ..kernel.statement import check_format, markdown
        if check_format(format) == "markdown":
            return markdown(self)
        return {**self.header.report(),
                "regions": int(self.table.shape[0]), "levels": int(self.table["level"].max()) + 1}

    def audit(self) -> dict:
        """The data owner's exact input counts (rows read, outside the domain, in no region): not private."""
        return owner_audit(self.input_report, self.randomness.seed, method=self.method)

    def save(self, path, *, allow_seeded: bool = False):
        """Write the release file (JSON); ``pv.load_release`` opens it. A seeded run is refused unless
        ``allow_seeded=True``."""
        check_seeded_export(self.randomness, allow_seeded, "the region release")
        t = self.table
        return jr.write(path, FORMAT, {
            "report": self.report(), "privacy_unit": self.privacy_unit.to_data(),
            "regions": {"id": t["id"].tolist(), "name": t["name"].tolist(), "level": t["level"].tolist(),
                        "parent": [None if p is None or p != p else str(p) for p in t["parent"]]},
            "noisy": self.noisy.tolist(), "estimate": self.estimate.tolist(),
            "least_squares": self.least_squares.tolist(), "standard_error": self.standard_error.tolist(),
            "status": np.asarray(self.status).tolist()})


def load_regions(path) -> RegionRelease:
    """Read a region release file; a damaged or edited file is a ValueError naming what is wrong."""
    doc = jr.read(path, FORMAT)
    head = ReleaseHeader.from_report(doc["report"], "regions", loaded_unit(doc.get("privacy_unit")))
    reg = doc.get("regions")
    if not isinstance(reg, dict):
        raise bad("the file has no regions")
    ids = jr.text_list(reg.get("id"), "regions.id")
    n = len(ids)
    level = jr.int_array(reg.get("level"), "regions.level", 0, 64)
    parent = reg.get("parent")
    if not isinstance(parent, list) or not all(p is None or p in set(ids) for p in parent):
        raise bad("every region's parent must be a region id or null")
    est = jr.int_array(doc.get("estimate"), "estimate", 0, None)
    arrays = [jr.float_array(doc.get(k), k) if k != "noisy" else _noisy(doc.get(k))
              for k in ("noisy", "least_squares", "standard_error")]
    if not all(a.size == n for a in (level, est, *arrays)) or len(parent) != n:
        raise bad("every array must hold one value per region")
    se = arrays[2]
    if not np.isfinite(se).all() or (se <= 0).any():
        raise bad("every region's standard error must be a finite number > 0 (noise was drawn for every count)")
    if not np.isfinite(arrays[1]).all():
        raise bad("every region's least-squares estimate must be a finite number")
    pos = pd.Index(ids).get_indexer([p if p is not None else "" for p in parent])
    sums = np.bincount(pos[pos >= 0], weights=est[pos >= 0], minlength=n)
    has_kids = np.bincount(pos[pos >= 0], minlength=n) > 0
    if not np.array_equal(sums[has_kids], est[has_kids]):
        raise bad("every parent's count must equal the sum of its children's")
    table = pd.DataFrame({"id": ids, "name": jr.text_list(reg.get("name"), "regions.name"), "level": level,
                          "parent": parent})
    status = jr.int_array(doc.get("status", [MEASURED] * n), "status", MEASURED, SHARED + 1)
    if status.size != n or not np.array_equal(np.isnan(arrays[0]), status == SHARED):
        raise bad("status must name one source per region, and exactly the pooled regions have no noisy count")
    return RegionRelease(table, arrays[0], est, arrays[1], arrays[2], head.parameters, head.ledger, head.randomness,
                         head.notes, head.privacy_unit, status=status.astype(np.int8))


def _noisy(values) -> np.ndarray:
    """The file's noisy counts: numbers, or null where a region was not measured (NaN)."""
    if not isinstance(values, list) or not all(v is None or (isinstance(v, (int, float)) and not isinstance(v, bool))
                                               for v in values):
        raise bad("noisy must be a list of numbers (null where a region was not measured)")
    return np.array([np.nan if v is None else v for v in values], dtype=float)
