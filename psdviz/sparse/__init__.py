"""psdviz.sparse: compact private summaries of huge, mostly-zero count tables (ICDT'12).
May import psdviz.core and psdviz.io; never methods, lab or ui.

>>> from psdviz import sparse
>>> table = sparse.contingency_table(df.tailnum, df.service)
>>> rel = sparse.summarize(table, epsilon=0.5, method="filter-priority", seed=1)
>>> rel.size, rel.ledger.total(), rel.range_sums([0], [1000])
"""
from .api import METHODS, method_parameters, summarize
from .builders import contingency_table, grid_cells, grid_table
from .dyadic import DyadicIndex, dyadic_transform
from .laborious import LABORIOUS_MAX
from .release import SparseRelease
from .sample import flights_sparse_table
from .table import SparseTable, make_table
from .zero_law import ZeroLaw

__all__ = ["DyadicIndex", "LABORIOUS_MAX", "METHODS", "SparseRelease", "SparseTable", "ZeroLaw",
           "contingency_table", "dyadic_transform", "flights_sparse_table", "grid_cells", "grid_table",
           "make_table",
           "method_parameters", "summarize"]
