"""Values computed from public inputs alone, kept for the process (a rebuild with new noise reuses them).

Only for functions of public inputs (a layer, the domain, heights, the resolution): a kept value equals a
recomputed one, so keeping it says nothing about any data. At most ``size`` values; when full it starts over."""
from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

T = TypeVar("T")


class PublicMemo(Generic[T]):
    """``get(key, make)``: the value kept for ``key``, else ``make()`` kept and returned."""

    def __init__(self, size: int = 16):
        self.size = size
        self.items: dict[Hashable, T] = {}

    def get(self, key: Hashable, make: Callable[[], T]) -> T:
        if key not in self.items:
            if len(self.items) >= self.size:
                self.items.clear()
            self.items[key] = make()
        return self.items[key]
