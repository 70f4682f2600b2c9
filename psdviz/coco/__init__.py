"""Count-of-counts histograms over a location hierarchy (Kuo et al., VLDB 2018; slides in
../shared/papers/). May import psdviz.core, io and kernel (the release kernel: the report head, release files,
immutability); never publish, methods, lab or ui.

>>> from psdviz import coco
>>> h = coco.Hierarchy.from_paths([("NY", "JFK"), ("NY", "LGA"), ("FL", "MIA")], root="USA")
>>> t = coco.group_records([1, 1, 2, 3, 3, 3], ["JFK", "JFK", "LGA", "MIA", "MIA", "MIA"], h, max_size=5)
>>> rel = coco.publish(t, h, method="hc", epsilon=[0.3, 0.3, 0.4])
>>> rel.check_consistency()["ok"]
True
"""
from .consistency import aggregate_up, top_down
from .error import emd, emd_by_level
from .hierarchy import Hierarchy
from .pav import IsotonicFit, isotonic
from .publish import (
    CONSISTENCY,
    METHODS,
    STRUCTURE_FROM_DATA,
    STRUCTURE_PUBLIC,
    Consistency,
    method_parameters,
    publish,
)
from .release import CocoRelease
from .representations import from_cumulative, from_unattributed, to_cumulative, to_unattributed, true_histograms
from .table import GroupedTable, from_sizes, group_records

__all__ = [
    "CONSISTENCY",
    "METHODS",
    "STRUCTURE_FROM_DATA",
    "STRUCTURE_PUBLIC",
    "CocoRelease",
    "Consistency",
    "GroupedTable",
    "Hierarchy",
    "IsotonicFit",
    "aggregate_up",
    "emd",
    "emd_by_level",
    "from_cumulative",
    "from_sizes",
    "from_unattributed",
    "group_records",
    "isotonic",
    "method_parameters",
    "publish",
    "to_cumulative",
    "to_unattributed",
    "top_down",
    "true_histograms",
]
