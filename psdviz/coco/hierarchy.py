"""The public location hierarchy (slides of Kuo et al., VLDB 2018, "Scenario": a hierarchy Gamma on
location, e.g. country > state > airport).

Flat arrays, one row per node, ordered level by level with each parent's children contiguous (the
layout of :class:`psdviz.core.tree.FlatTree`). Every leaf sits at the same depth, so a hierarchy of
``L`` levels has one budget slot per level, and every record lies in exactly one node per level
(parallel composition within a level, sequential along a root-to-leaf path).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..core.errors import InputDataError, ParameterError


@dataclass(frozen=True)
class Hierarchy:
    """Named nodes; ``parent[i]`` is -1 for the root; leaves are the nodes of the deepest level."""

    names: tuple[str, ...]
    parent: np.ndarray      # int64 (n,)
    level: np.ndarray       # int64 (n,)
    _index: dict = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        n = len(self.names)
        if n == 0 or self.parent.shape != (n,) or self.level.shape != (n,):
            raise InputDataError("names, parent and level must be non-empty and of one length")
        if self.parent[0] != -1 or np.any(self.parent[1:] < 0) or np.any(self.level[1:] < 1):
            raise InputDataError("node 0 must be the only root (parent -1, level 0)")
        if np.any(np.diff(self.level) < 0) or np.any(self.level[1:] != self.level[self.parent[1:]] + 1):
            raise InputDataError("nodes must be ordered level by level with level = parent level + 1")
        if np.any(np.diff(self.parent[1:]) < 0):
            raise InputDataError("each parent's children must be contiguous, in parent order")
        has_child = np.zeros(n, bool)
        has_child[self.parent[1:]] = True
        if np.any(self.level[~has_child] != self.level[-1]):
            raise InputDataError("every leaf must lie at the deepest level (uniform depth)")
        index: dict[str, int] = {}
        for i, name in enumerate(self.names):
            index[name] = -2 if name in index else i   # -2 marks an ambiguous name
        self._index.update(index)

    # ---- construction -------------------------------------------------------------------------
    @classmethod
    def from_paths(cls, paths, root: str = "root") -> Hierarchy:
        """Build from one path per leaf, e.g. ``[("New York", "JFK"), ("Florida", "MIA")]``.

        Every path has the same length; the root (named ``root``) is added above them. Node names
        are the last element of each path prefix; a leaf name must not repeat.
        """
        rows = [tuple(map(str, p)) for p in paths]
        if not rows or not rows[0]:
            raise InputDataError("paths must hold at least one non-empty leaf path")
        if any(len(r) != len(rows[0]) for r in rows):
            raise InputDataError("paths must all have the same length (uniform depth)")
        frame = pd.DataFrame(rows)
        if frame.iloc[:, -1].duplicated().any():
            dup = frame.iloc[:, -1][frame.iloc[:, -1].duplicated()].iloc[0]
            raise InputDataError(f"leaf names must be unique (repeated: {dup!r})")
        frame = frame.sort_values(list(frame.columns)).reset_index(drop=True)
        names, parent, level = [str(root)], [-1], [0]
        prev_ids = np.zeros(len(frame), np.int64)     # node id of each row's ancestor at the last level
        for depth, col in enumerate(frame.columns, start=1):
            keys = pd.MultiIndex.from_frame(frame.iloc[:, : depth]) if depth > 1 else frame[col]
            codes, uniques = pd.factorize(keys)   # sorted rows -> codes in parent order
            first = np.unique(codes, return_index=True)[1]
            base = len(names)
            names += [str(frame[col].iloc[i]) for i in first]
            parent += prev_ids[first].tolist()
            level += [depth] * len(first)
            prev_ids = base + codes.astype(np.int64)
        return cls(tuple(names), np.asarray(parent, np.int64), np.asarray(level, np.int64))

    @classmethod
    def from_columns(cls, frame: pd.DataFrame, columns, root: str = "root") -> Hierarchy:
        """Build from the distinct rows of ``frame[columns]`` (coarsest column first, leaf last)."""
        columns = list(columns)
        missing = [c for c in columns if c not in frame.columns]
        if missing:
            raise InputDataError(f"columns {missing} are not in the table")
        paths = frame[columns].drop_duplicates().astype(str).itertuples(index=False, name=None)
        return cls.from_paths(list(paths), root=root)

    # ---- structure ------------------------------------------------------------------------------
    @property
    def n_nodes(self) -> int:
        return len(self.names)

    @property
    def n_levels(self) -> int:
        return int(self.level[-1]) + 1

    def level_nodes(self, level: int) -> np.ndarray:
        """Node ids of one level (contiguous)."""
        return np.flatnonzero(self.level == level)

    @property
    def leaves(self) -> np.ndarray:
        return self.level_nodes(self.n_levels - 1)

    def node_id(self, node) -> int:
        """Node id from an id or a unique name."""
        if isinstance(node, (int, np.integer)) and not isinstance(node, bool):
            if not 0 <= int(node) < self.n_nodes:
                raise ParameterError(f"node must be in [0, {self.n_nodes - 1}] (got {node})")
            return int(node)
        i = self._index.get(str(node), -1)
        if i == -1:
            raise ParameterError(f"node {node!r} is not in the hierarchy")
        if i == -2:
            raise ParameterError(f"node name {node!r} is ambiguous; pass its id")
        return i

    def ancestors_at(self, nodes: np.ndarray, level: int) -> np.ndarray:
        """Ancestor at ``level`` of each of the given nodes (all at one deeper or equal level)."""
        out = np.asarray(nodes, np.int64).copy()
        for _ in range(int(self.level[out].max(initial=level)) - level):
            out = np.where(self.level[out] > level, self.parent[out], out)
        return out

    def children(self, node) -> np.ndarray:
        return np.flatnonzero(self.parent == self.node_id(node))

    def to_frame(self) -> pd.DataFrame:
        """node, name, parent, level (one row per node)."""
        return pd.DataFrame({"node": np.arange(self.n_nodes), "name": list(self.names),
                             "parent": self.parent, "level": self.level})
