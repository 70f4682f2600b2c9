"""What the cell views and the release file read from a spatial release: a protocol, so those modules need
not import :class:`psdviz.publish.release.Release` (which imports them for ``to_geodataframe``
and ``save``)."""
from __future__ import annotations

from typing import Protocol

import numpy as np

from ..core.domain import Domain
from ..core.grid import Grid
from ..core.ledger import Ledger
from ..core.privacy_unit import PrivacyUnit
from ..core.rng import Randomness
from ..core.tree import FlatTree
from .query_model import QueryModel


class SpatialRelease(Protocol):
    """A built spatial release, read-only (:class:`psdviz.publish.release.Release` answers it)."""

    @property
    def method(self) -> str: ...

    @property
    def params(self) -> dict: ...

    @property
    def domain(self) -> Domain: ...

    @property
    def tree(self) -> FlatTree: ...

    @property
    def ledger(self) -> Ledger: ...

    @property
    def randomness(self) -> Randomness: ...

    @property
    def consistent(self) -> bool: ...

    @property
    def private(self) -> bool: ...

    @property
    def notes(self) -> tuple[str, ...]: ...

    @property
    def grid(self) -> Grid: ...

    @property
    def query_model(self) -> QueryModel: ...

    @property
    def kept(self) -> np.ndarray | None: ...

    @property
    def privacy_unit(self) -> PrivacyUnit: ...

    @property
    def curve(self) -> np.ndarray | None: ...

    @property
    def epsilon(self) -> float: ...

    @property
    def randomness_mode(self) -> str: ...

    def input_handling(self) -> dict: ...

    def answer_interval(self, rects, level: float = 0.95) -> np.ndarray: ...
