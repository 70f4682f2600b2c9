"""The count-of-counts release: what could be published (docs/design.md "publish" step).

Holds the public hierarchy, K, every node's G (public) and estimated histogram, the per-node
single-node estimates before consistency (also private outputs), the ledger and how the run was
made. True histograms never live inside it: error helpers take them as an argument.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..core.ledger import Ledger
from ..core.rng import Randomness, check_seeded_export
from .error import emd, emd_by_level
from .hierarchy import Hierarchy
from .representations import to_cumulative, to_unattributed


@dataclass
class CocoRelease:
    """Private count-of-counts histograms over a hierarchy."""

    hierarchy: Hierarchy
    max_size: int
    groups: np.ndarray            # G per node (public)
    histograms: np.ndarray        # (n_nodes, K + 1) int64, the released estimates
    independent: np.ndarray       # (n_nodes, K + 1) per-node estimates before consistency (nodes not measured: -1)
    methods: tuple[str, ...]      # single-node method per level
    consistency: str              # "top-down" | "independent" | "bottom-up"
    params: dict
    ledger: Ledger
    randomness: Randomness
    notes: list[str] = field(default_factory=list)
    structure_public: bool = False   # G and the hierarchy were declared public inputs (else: from the data)

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

    def report(self) -> dict:
        """JSON-ready: method, budgets, ledger, randomness, notes (no data)."""
        return {"methods": list(self.methods), "consistency": self.consistency,
                "epsilon": self.epsilon, "epsilon_spent": self.ledger.total(),
                "max_size": self.max_size, "levels": self.hierarchy.n_levels,
                "nodes": self.hierarchy.n_nodes,
                "parameters": {k: (v if isinstance(v, (int, float, str, bool, type(None))) else str(v))
                               for k, v in self.params.items()},
                "randomness": self.randomness.mode, **self.randomness.warning(),
                "structure": ("public inputs" if self.structure_public else
                              "G and hierarchy from the data: NOT PRIVATE"),
                "ledger": self.ledger.records(), "notes": self.notes}

    def to_json(self, *, allow_seeded: bool = False) -> str:
        """The whole release (report + hierarchy + non-zero histogram entries) as JSON; a seeded run is
        refused unless ``allow_seeded=True`` (then it says NOT private)."""
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
            raise ValueError(f"true_histograms must have shape {self.histograms.shape} (got {T.shape})")
        return T
