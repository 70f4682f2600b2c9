"""A Release with a method-specific fast query index.

Some structures (the adaptive grid's grid of grids, the h-tree's sorted splits: ``split_index.py``)
are not one regular grid, so the pyramid path does not apply, and the generic traversal in ``query.py`` opens too many
(query, node) pairs on their wide levels. Such a method gives its Release an ``index`` object with
``answer(rects) -> estimates`` that returns exactly the canonical answer of ``query.answer_tree``
(tested against it); everything else (variances, node tables, reports) is the plain Release.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from ..core.domain import validate_rects
from .release import Release


class QueryIndex(Protocol):
    def answer(self, rects: np.ndarray) -> np.ndarray: ...


@dataclass
class IndexedRelease(Release):
    """Release whose ``answer`` goes through a method-specific :class:`QueryIndex`."""

    index: QueryIndex | None = None

    def answer(self, rects) -> np.ndarray:
        if self.index is None:
            return super().answer(rects)
        return self.index.answer(validate_rects(rects))
