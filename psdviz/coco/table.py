"""The grouped table: records (group id, leaf location) reduced to one row per group.

Slides of Kuo et al. (VLDB 2018), "Scenario" and "Convenient Views": table Persons(name, group_id,
location); A = SELECT group_id, COUNT(*) AS size GROUP BY group_id. Each group lives in one leaf.

Public and private parts (the slides' neighbouring relation: add or remove one Persons record, the
Groups table and the hierarchy being public):

* the hierarchy and the groups (hence the number of groups G of every node) are public, as in the
  paper. The caller declares them: ``group_records(..., group_list=...)`` takes the public list of
  (group, leaf) pairs, groups without records included (size 0), and drops records of unlisted
  groups (counted for the data owner only). Without a list, the groups seen in the records are used:
  then G and the hierarchy's occupied nodes come from the data and are NOT private, and every
  release made from the table says so (``GroupedTable.public_groups`` is False);
* the maximum group size K is a declared public bound; sizes above K are truncated to K and the
  number of truncated groups is reported to the data owner (it is not part of any release);
* group sizes are private. A group may have size 0 in a neighbouring table (its only record
  removed), so histograms have the K + 1 bins 0..K.

A group whose records span several leaves is an error, or, with ``span="split"``, becomes one group
per leaf (the choice and the number of extra groups are recorded on the table).
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..core.errors import InputDataError, ParameterError
from .hierarchy import Hierarchy

SPAN_CHOICES = ("error", "split")
MAX_SIZE_LIMIT = 10_000_000


@dataclass(frozen=True)
class GroupedTable:
    """One row per group: its leaf (node id in the hierarchy) and its size (truncated at K)."""

    hierarchy: Hierarchy
    leaf: np.ndarray          # int64 (n_groups,) node ids of leaves
    size: np.ndarray          # int64 (n_groups,) in [0, max_size]
    max_size: int             # K, declared public bound
    n_records: int
    n_truncated: int          # groups whose size exceeded K (data-owner diagnostic)
    span: str = "error"
    n_split: int = 0          # extra groups created by splitting groups that spanned leaves
    public_groups: bool = False   # the group list was declared public (else: taken from the records)
    n_unlisted: int = 0       # records of groups not in the declared list, dropped (data-owner diagnostic)

    @property
    def n_groups(self) -> int:
        return int(self.leaf.size)

    def groups_per_node(self) -> np.ndarray:
        """G of every node (public, as in the paper)."""
        h = self.hierarchy
        out = np.zeros(h.n_nodes, np.int64)
        for level in range(h.n_levels):
            out += np.bincount(h.ancestors_at(self.leaf, level), minlength=h.n_nodes)
        return out

    def report(self) -> dict:
        return {"records": self.n_records, "groups": self.n_groups, "max_size": self.max_size,
                "truncated_groups": self.n_truncated, "span": self.span, "split_groups": self.n_split,
                "groups_declared_public": self.public_groups, "unlisted_records_dropped": self.n_unlisted}


def check_max_size(max_size) -> int:
    if isinstance(max_size, bool) or not float(max_size).is_integer() or not 1 <= max_size <= MAX_SIZE_LIMIT:
        raise ParameterError(f"max_size (K) must be an integer in [1, {MAX_SIZE_LIMIT}] (got {max_size!r})")
    return int(max_size)


def _leaf_ids(hierarchy: Hierarchy, leaf_names) -> np.ndarray:
    leaves = hierarchy.leaves
    lookup = pd.Index([hierarchy.names[i] for i in leaves])
    pos = lookup.get_indexer(pd.Index(pd.Series(leaf_names).astype(str)))
    if np.any(pos < 0):
        bad = pd.Series(leaf_names).astype(str)[pos < 0].iloc[0]
        raise InputDataError(f"location {bad!r} is not a leaf of the hierarchy ({int((pos < 0).sum())} records)")
    return leaves[pos]


def group_records(groups, locations, hierarchy: Hierarchy, max_size: int, *, span: str = "error",
                  group_list=None) -> GroupedTable:
    """Reduce records to groups.

    ``groups``: one group key per record (array-like, or a DataFrame whose columns together form the
    key); ``locations``: the leaf name of each record. Inputs are not modified. ``group_list``: the
    declared public groups as (group keys, leaf names), one pair per group, groups with no record
    included; see :func:`group_list_table`.
    """
    K = check_max_size(max_size)
    if group_list is not None:
        return group_list_table(groups, group_list, hierarchy, K)
    if span not in SPAN_CHOICES:
        raise ParameterError(f"span must be one of {SPAN_CHOICES} (got {span!r})")
    if isinstance(groups, pd.DataFrame):
        gcode = groups.groupby(list(groups.columns), sort=False, dropna=False).ngroup().to_numpy()
    else:
        gcode = pd.factorize(pd.Series(groups), use_na_sentinel=False)[0]
    leaf = _leaf_ids(hierarchy, locations)
    if gcode.shape[0] != leaf.shape[0]:
        raise InputDataError(f"groups and locations must have one entry per record "
                             f"(got {gcode.shape[0]} and {leaf.shape[0]})")
    pair = gcode.astype(np.int64) * hierarchy.n_nodes + leaf
    keys, counts = np.unique(pair, return_counts=True)
    key_group = keys // hierarchy.n_nodes
    n_split = int(keys.size - np.unique(key_group).size)
    if n_split and span == "error":
        spanning = np.unique(key_group[1:][key_group[1:] == key_group[:-1]]).size
        raise InputDataError(f"{spanning} groups have records in several leaves; pass span='split' "
                             f"to split each into one group per leaf")
    size = np.minimum(counts, K).astype(np.int64)
    return GroupedTable(hierarchy, (keys % hierarchy.n_nodes).astype(np.int64), size, K,
                        n_records=int(gcode.shape[0]), n_truncated=int((counts > K).sum()),
                        span=span, n_split=n_split)


def from_sizes(hierarchy: Hierarchy, leaf, size, max_size: int) -> GroupedTable:
    """A table given directly as one (leaf node id, size) per group (synthetic data, tests)."""
    K = check_max_size(max_size)
    leaf = np.asarray(leaf, np.int64)
    size = np.asarray(size, np.int64)
    if leaf.shape != size.shape or leaf.ndim != 1:
        raise InputDataError("leaf and size must be one-dimensional arrays of one length")
    if leaf.size and not np.isin(leaf, hierarchy.leaves).all():
        raise InputDataError("every leaf must be a leaf node id of the hierarchy")
    if np.any(size < 0):
        raise InputDataError("sizes must be >= 0")
    return GroupedTable(hierarchy, leaf.copy(), np.minimum(size, K), K, n_records=int(size.sum()),
                        n_truncated=int((size > K).sum()))


def group_list_table(groups, group_list, hierarchy: Hierarchy, max_size: int) -> GroupedTable:
    """Grouped table over a declared public group list ``(keys, leaf names)``: every listed group is a
    row (size 0 without records); a record counts toward the listed group with its key, whatever its
    location column says (the list fixes the group's leaf); records of unlisted groups are dropped and
    only counted for the data owner (a warning when they are most records). G and the hierarchy are
    then public inputs, as the paper assumes.

    Keys match by value and type: numbers match numbers (``1`` and ``1.0`` are one key), text matches
    text; a list and records of different kinds of key are refused. Multi-column keys: ``groups`` a
    DataFrame and the list's keys a DataFrame with the same columns."""
    keys, leaf_names = group_list
    listed = _key_index(keys, "group_list keys")
    records = _key_index(groups, "the records' group keys")
    _same_kind(listed, records)
    if listed.has_duplicates:
        raise InputDataError("group_list: each group must appear once (one leaf per group)")
    leaf = _leaf_ids(hierarchy, leaf_names)
    if leaf.size != listed.size:
        raise InputDataError(f"group_list needs one leaf per group (got {listed.size} keys and {leaf.size} leaves)")
    pos = listed.get_indexer(records)
    n_unlisted = int((pos < 0).sum())
    if pos.size and n_unlisted > pos.size / 2:
        warnings.warn(f"{n_unlisted:,} of {pos.size:,} records belong to no listed group and are dropped; check "
                      "that group_list holds the same keys as the records", UserWarning, stacklevel=3)
    counts = np.bincount(pos[pos >= 0], minlength=listed.size)
    return GroupedTable(hierarchy, leaf.astype(np.int64), np.minimum(counts, max_size).astype(np.int64), max_size,
                        n_records=int(pos.size), n_truncated=int((counts > max_size).sum()),
                        public_groups=True, n_unlisted=n_unlisted)


_KINDS = {"integer": "numbers", "floating": "numbers", "mixed-integer-float": "numbers", "decimal": "numbers",
          "string": "text", "empty": "empty", "boolean": "booleans"}


def _key_index(values, what: str) -> pd.Index:
    """Keys as an index: one column as a flat index, several as a MultiIndex."""
    if isinstance(values, pd.DataFrame):
        if values.shape[1] == 1:
            return pd.Index(values.iloc[:, 0])
        return pd.MultiIndex.from_frame(values)
    s = pd.Series(values)
    kind = pd.api.types.infer_dtype(s, skipna=True)
    if kind not in _KINDS:
        raise InputDataError(f"{what} mix kinds of value ({kind}): give one kind of key (numbers or text)")
    return pd.Index(s)


def _kind(index: pd.Index):
    if isinstance(index, pd.MultiIndex):
        kinds = [_kind(index.get_level_values(i)) for i in range(index.nlevels)]
        return f"{index.nlevels} columns (" + ", ".join(f"{n}: {k}" for n, k in zip(index.names, kinds)) + ")"
    return _KINDS.get(pd.api.types.infer_dtype(index, skipna=True), "other")


def _same_kind(listed: pd.Index, records: pd.Index) -> None:
    a, b = _kind(listed), _kind(records)
    if "empty" in (a, b) or a == b:
        return
    raise InputDataError(f"group_list keys are {a} but the records' group keys are {b}: give both the same kind of key "
                         "(for several key columns, a DataFrame of the same columns for each)")
