"""Releases are immutable: every kind freezes its containers when it is made."""
from __future__ import annotations

import numpy as np

from ..core.tree import read_only


class FrozenDict(dict):
    """A dict that cannot be changed (still a dict for JSON and for readers)."""

    def _refuse(self, *args, **kwargs):
        raise TypeError("a built release cannot be changed; make a new one with dataclasses.replace")

    __setitem__ = __delitem__ = update = pop = popitem = clear = setdefault = __ior__ = _refuse

    def __reduce__(self):           # pickling (caches) rebuilds it from a plain dict
        return (FrozenDict, (dict(self),))


def freeze(release, *, arrays=(), tuples=(), dicts=()) -> None:
    """Make a frozen release's containers unchangeable in place: arrays read-only, sequences tuples,
    dicts :class:`FrozenDict`, the ledger a frozen copy (for the releases' ``__post_init__``)."""
    for name in arrays:
        object.__setattr__(release, name, read_only(np.asarray(getattr(release, name))))
    for name in tuples:
        object.__setattr__(release, name, tuple(getattr(release, name)))
    for name in dicts:
        object.__setattr__(release, name, FrozenDict(getattr(release, name)))
    object.__setattr__(release, "ledger", release.ledger.frozen())
