"""The count-of-counts release: what could be published (docs/design.md "publish" step).

Holds the public hierarchy, K, every node's G (public) and estimated histogram, the per-node
single-node estimates before consistency (also private outputs), the ledger and how the run was
made. True histograms never live inside it: error helpers take them as an argument.
"""
from __future__ import annotations

import json
import warnings
from dataclasses import dataclass, field
from functools import cached_property
from typing import ClassVar, Literal, overload

import numpy as np
import pandas as pd

from ..core.errors import InputDataError
from ..core.ledger import Ledger
from ..core.privacy_unit import PrivacyUnit
from ..core.rng import Randomness, check_seeded_export
from ..kernel import json_release as jr
from ..kernel.freeze import freeze
from ..kernel.header import ReleaseHeader
from ..kernel.protocol import owner_audit
from .error import emd, emd_by_level
from .hierarchy import Hierarchy
from .representations import to_cumulative, to_unattributed

FORMAT = "psdviz-coco"   # the release file (psdviz/coco/release_file.py reads it)


def _entries(matrix: np.ndarray) -> dict:
    node, size = np.nonzero(matrix)
    return {"node": node.tolist(), "size": size.tolist(), "count": matrix[node, size].tolist()}


@dataclass(frozen=True)
class CocoRelease:
    """Private count-of-counts histograms over a hierarchy (immutable once built).

    The release protocol: ``epsilon``, ``ledger``, ``privacy_unit``, ``report()`` (publishable),
    ``audit()`` (the owner's exact input counts, not private), ``save(path)``; ``pv.load_release``
    opens the saved file."""

    hierarchy: Hierarchy
    max_size: int
    groups: np.ndarray            # G per node (public)
    histograms: np.ndarray        # (n_nodes, K + 1) int64, the released estimates
    independent: np.ndarray       # (n_nodes, K + 1) per-node estimates before consistency (nodes not measured: -1)
    level_methods: tuple[str, ...]   # single-node method per level
    consistency: str              # "top-down" | "independent" | "bottom-up"
    params: dict
    ledger: Ledger
    randomness: Randomness
    notes: tuple[str, ...] = ()
    structure_public: bool = False   # G and the hierarchy were declared public inputs (else: from the data)
    input_report: dict = field(default_factory=dict)   # the owner's exact input counts: audit() only
    kind: ClassVar[str] = "count-of-counts"
    private: ClassVar[bool] = True

    def __post_init__(self) -> None:
        freeze(self, arrays=("groups", "histograms", "independent"), tuples=("notes", "level_methods"),
               dicts=("params", "input_report"))

    @property
    def privacy_unit(self) -> PrivacyUnit:
        """One record of the grouped table: it changes one group's size by one (Kuo et al., section 2)."""
        return PrivacyUnit("record")

    @property
    def method(self) -> str:
        """The single-node method: its name when every level uses one, else the levels' names joined."""
        m = self.level_methods
        return m[0] if len(set(m)) == 1 else ", ".join(m)

    @cached_property
    def header(self) -> ReleaseHeader:
        """The facts every release kind states first (:class:`~psdviz.kernel.header.ReleaseHeader`)."""
        return ReleaseHeader(self.kind, self.method, self.params, self.ledger, self.randomness, self.privacy_unit,
                             notes=self.notes)

    # ---- access -----------------------------------------------------------------------------------
    @property
    def epsilon(self) -> float:
        return self.ledger.budget

    def histogram(self, node) -> np.ndarray:
        """H of one node (by id or unique name): counts of groups of size 0..K."""
        return self.histograms[self.hierarchy.node_id(node)].copy()

    def cumulative(self, node) -> np.ndarray:
        return to_cumulative(self.histogram(node))

    def unattributed(self, node) -> np.ndarray:
        return to_unattributed(self.histogram(node)[None, :])

    def nodes(self) -> pd.DataFrame:
        """node, name, parent, level, groups (G), is_leaf."""
        df = self.hierarchy.to_frame()
        df["groups"] = self.groups
        df["is_leaf"] = df["level"] == self.hierarchy.n_levels - 1
        return df

    def records(self, *, nonzero: bool = True) -> pd.DataFrame:
        """Tidy table node, name, level, size, count (only non-zero counts unless asked)."""
        n, k = self.histograms.shape
        df = pd.DataFrame({"node": np.repeat(np.arange(n), k),
                           "name": np.repeat(np.asarray(self.hierarchy.names, dtype=object), k),
                           "level": np.repeat(self.hierarchy.level, k),
                           "size": np.tile(np.arange(k), n), "count": self.histograms.ravel()})
        return df[df["count"] != 0].reset_index(drop=True) if nonzero else df

    @overload
    def report(self, format: Literal["json"] = "json") -> dict: ...

    @overload
    def report(self, format: str) -> dict | str: ...

    def report(self, format: str = "json") -> dict | str:
        """JSON-ready: method, budgets, ledger, randomness, notes (no data); with ``format="markdown"`` the
        privacy statement (:func:`psdviz.kernel.statement.markdown`)."""
        from ..kernel.statement import check_format, markdown
        if check_format(format) == "markdown":
            return markdown(self)
        return {**self.header.report(), "methods": list(self.level_methods), "consistency": self.consistency,
                "max_size": self.max_size, "levels": self.hierarchy.n_levels, "nodes": self.hierarchy.n_nodes,
                "structure": ("public inputs" if self.structure_public else
                              "G and hierarchy from the data: NOT PRIVATE")}

    def audit(self) -> dict:
        """The data owner's audit: exact counts about the input table (records, groups, truncated and
        unlisted records). Not differentially private: never part of the report or of a file."""
        return owner_audit(self.input_report, self.randomness.seed)

    def save(self, path, *, allow_seeded: bool = False):
        """Write the release file (JSON: the report, the hierarchy, G and the histograms' non-zero
        entries); ``pv.load_release`` opens it. A seeded run is refused unless ``allow_seeded=True``."""
        check_seeded_export(self.randomness, allow_seeded, "the count-of-counts release")
        h = self.hierarchy
        return jr.write(path, FORMAT, {
            "report": {**self.report(), "parameters": dict(self.params)},
            "hierarchy": {"names": list(h.names), "parent": h.parent.tolist(), "level": h.level.tolist()},
            "groups": self.groups.tolist(), "histograms": _entries(self.histograms),
            "independent": _entries(self.independent)})

    def to_json(self, *, allow_seeded: bool = False) -> str:
        """Deprecated: use :meth:`save` (the release file) or :meth:`report`. The release as JSON text."""
        warnings.warn("CocoRelease.to_json is deprecated: use save(path) (opened by pv.load_release) or report()",
                      DeprecationWarning, stacklevel=2)
        check_seeded_export(self.randomness, allow_seeded, "the count-of-counts release")
        nodes = self.nodes()
        data = self.report()
        data["hierarchy"] = nodes.astype({"node": int, "parent": int, "level": int, "groups": int}).to_dict("records")
        rec = self.records()
        data["histograms"] = {int(i): {int(s): int(c) for s, c in zip(g["size"], g["count"])}
                              for i, g in rec.groupby("node")}
        return json.dumps(data, default=lambda o: o.item() if hasattr(o, "item") else str(o))

    # ---- checks and error (truth passed in, never stored) ----------------------------------------
    def check_consistency(self) -> dict:
        """Non-negative integers, each node summing to its G, each parent equal to its children's sum."""
        H = self.histograms
        h = self.hierarchy
        child_sum = np.zeros_like(H)
        np.add.at(child_sum, h.parent[1:], H[1:])
        internal = np.zeros(h.n_nodes, bool)
        internal[h.parent[1:]] = True
        out = {"non_negative": bool((H >= 0).all()),
               "integer": bool(np.issubdtype(H.dtype, np.integer)),
               "sums_to_G": bool((H.sum(axis=1) == self.groups).all()),
               "parent_equals_children": bool((child_sum[internal] == H[internal]).all())}
        out["ok"] = all(out.values())
        return out

    def emd(self, true_histograms: np.ndarray) -> np.ndarray:
        """Earthmover's distance of every node against the true histograms (n_nodes, K + 1)."""
        return emd(self._check_truth(true_histograms), self.histograms)

    def emd_by_level(self, true_histograms: np.ndarray) -> pd.Series:
        """Average earthmover's distance per level."""
        return emd_by_level(self._check_truth(true_histograms), self.histograms, self.hierarchy.level)

    def _check_truth(self, true_histograms) -> np.ndarray:
        T = np.asarray(true_histograms)
        if T.shape != self.histograms.shape:
            raise InputDataError(f"true_histograms must have shape {self.histograms.shape} (got {T.shape})")
        return T
