"""Progress of a build: ``pv.build(..., progress=callback)``.

The callback receives ``(done, total, what)`` after each pass over the data (a tree level, a
binary median level, a PrivTree depth, a grid level). It is carried in a context variable set by
``api.build`` for the length of one build, so builders report with :func:`report` without a
parameter in every signature; nothing is reported when no callback is set. Progress never carries
data: only counts of passes, fixed by public parameters (a PrivTree reports its depth limit as the
total, as how deep it goes is not known in advance).
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from .errors import ParameterError

Callback = Callable[[int, int, str], None]
_CURRENT: ContextVar[Callback | None] = ContextVar("psdviz_progress", default=None)


@contextmanager
def reporting(callback: Callback | None) -> Iterator[None]:
    """Within the block, :func:`report` calls ``callback`` (None: nothing is reported)."""
    if callback is not None and not callable(callback):
        raise ParameterError(f"progress must be a function (done, total, what) or None (got {callback!r})")
    token = _CURRENT.set(callback)
    try:
        yield
    finally:
        _CURRENT.reset(token)


def report(done: int, total: int, what: str) -> None:
    """One more pass done (of ``total``)."""
    cb = _CURRENT.get()
    if cb is not None:
        cb(int(done), int(total), what)
