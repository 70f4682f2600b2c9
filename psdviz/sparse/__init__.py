"""psdviz.sparse: compact private summaries of huge, mostly-zero count tables (ICDT'12).
May import psdviz.core, io and kernel (the release kernel: the report head, release files,
immutability); never publish, methods, lab or ui.

>>> import numpy as np
>>> from psdviz import sparse
>>> table = sparse.make_table(np.array([3, 70, 512]), np.array([40, 7, 90]), 1_000)   # cells, counts, m
>>> rel = sparse.summarize(table, method="filter-priority", epsilon=0.5, size=20)
>>> rel.size <= 20, round(rel.ledger.total(), 9)
(True, 0.5)
"""
from .api import METHODS, method_parameters, summarize
from .builders import contingency_table, grid_cells, grid_table
from .dyadic import DyadicIndex, dyadic_transform
from .laborious import LABORIOUS_MAX
from .release import SparseRelease
from .sample import flights_sparse_table
from .table import SparseTable, make_table
from .zero_law import ZeroLaw

__all__ = [
    "LABORIOUS_MAX",
    "METHODS",
    "DyadicIndex",
    "SparseRelease",
    "SparseTable",
    "ZeroLaw",
    "contingency_table",
    "dyadic_transform",
    "flights_sparse_table",
    "grid_cells",
    "grid_table",
    "make_table",
    "method_parameters",
    "summarize",
]
