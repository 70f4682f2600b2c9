"""``memory_limit`` as the build's memory budget: shares for DuckDB, the held cells and the tree.

A build from files reads in three kinds of memory: DuckDB's hash tables while it groups a pass, the
occupied cells held after the one pass (:mod:`psdviz.core.cells`), and the engine's own arrays (the
tree, least squares, pruning, the query index). Given ``memory_limit`` L, DuckDB is capped at
:data:`DUCKDB_SHARE` of L (it spills to disk beyond), the cells are held only when they fit in
:data:`CELLS_SHARE` of L, and the tree may have at most :data:`TREE_SHARE` of L at :data:`BYTES_PER_NODE`
bytes a node. DuckDB's tables and the tree, or the held cells and the tree, are in memory together;
DuckDB's and the cells' are not at their peaks (the cells are the pass's result), so the process stays
near L plus the interpreter's and the libraries' baseline.

A size a rule or a parameter asks for beyond the tree's share is lowered to the largest that fits, with
a note in the release (as the resolution caps sizes: :func:`psdviz.core.grid.cap_by_resolution`). The
cap is a function of ``memory_limit`` and the method's public parameters (and of released noisy values
where a rule already reads them), never of an exact count. Without ``memory_limit`` nothing changes:
the node cap is :data:`psdviz.core.tree.MAX_NODES`. Figures: docs/decisions/memory-limit.md.
"""
from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from .errors import ParameterError

DUCKDB_SHARE = 0.5
CELLS_SHARE = 0.5
TREE_SHARE = 0.5
# the peak of the complete trees' arrays (rectangles, links, counts, estimates, least squares' and
# pruning's working arrays, the query index), measured: quadtree about 220 bytes a node, kd-tree 380
BYTES_PER_NODE = 400
# keys (2 x 8 bytes) and counts (8) of a held cell, plus a keyer's working arrays in a pass (ids, masks,
# a sort for the groups): about 128 bytes a cell at the peak of a pass
BYTES_PER_CELL = 128
MAX_NODES = 6_000_000   # without memory_limit: about 12 float/int arrays a node, roughly 0.6 GB at 6M nodes

_UNITS = {"B": 1, "KB": 10 ** 3, "MB": 10 ** 6, "GB": 10 ** 9, "TB": 10 ** 12,
          "KIB": 2 ** 10, "MIB": 2 ** 20, "GIB": 2 ** 30, "TIB": 2 ** 40}
MEMORY = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)\s*$", re.IGNORECASE)
_LIMIT: ContextVar[str | None] = ContextVar("psdviz_memory_limit", default=None)


def check_memory_limit(limit) -> str:
    """A memory size as DuckDB reads it ("2GB", "512MB", "1.5GiB"), or a ValueError saying so."""
    if not isinstance(limit, str) or not MEMORY.match(limit):
        raise ParameterError(f'memory_limit must be a size such as "2GB", "512MB" or "1.5GiB" (got {limit!r})')
    return limit.strip()


def memory_bytes(limit: str | None) -> int:
    """The memory budget in bytes: ``limit`` (a size, see :func:`check_memory_limit`), or a quarter of the
    machine's memory when None."""
    if limit is None:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 4
    m = MEMORY.match(check_memory_limit(limit))
    assert m is not None   # check_memory_limit accepted it
    return int(float(m.group(1)) * _UNITS[m.group(2).upper()])


def duckdb_limit(limit: str) -> str:
    """DuckDB's own cap for a build under ``limit``: :data:`DUCKDB_SHARE` of it, in bytes."""
    return f"{max(1, int(memory_bytes(limit) * DUCKDB_SHARE))}B"


@contextmanager
def memory_budget(limit: str | None) -> Iterator[None]:
    """Within the block, trees are sized to ``limit`` (:func:`node_cap`); None leaves :data:`MAX_NODES`."""
    token = _LIMIT.set(None if limit is None else check_memory_limit(limit))
    try:
        yield
    finally:
        _LIMIT.reset(token)


def memory_limit() -> str | None:
    """The current build's ``memory_limit``, or None."""
    return _LIMIT.get()


def node_cap() -> int:
    """The most nodes a tree may have in the current build: :data:`MAX_NODES`, and with ``memory_limit``
    at most :data:`TREE_SHARE` of it at :data:`BYTES_PER_NODE` bytes a node."""
    limit = _LIMIT.get()
    if limit is None:
        return MAX_NODES
    return max(1, min(MAX_NODES, int(memory_bytes(limit) * TREE_SHARE) // BYTES_PER_NODE))


def cap_why() -> str:
    """What sets :func:`node_cap`, for a message or a release note."""
    limit = _LIMIT.get()
    return "the memory cap" if limit is None else f"memory_limit {limit}"


def cap_by_memory(value: int, nodes: Callable[[int], int], name: str, least: int = 1) -> tuple[int, str | None]:
    """``value`` (a height or a grid size; ``nodes(value)`` its tree's node count, increasing in it)
    lowered to the largest at or above ``least`` whose tree fits :func:`node_cap`, and the release's
    note when lowered. At ``least`` it is kept even if too large (the caller's node check then refuses).
    Without ``memory_limit`` it is unchanged: :data:`MAX_NODES` is a refusal, not a budget to fit."""
    if _LIMIT.get() is None:
        return value, None
    return _lowered(value, nodes, name, least, node_cap(), "a tree of at most {cap:,} nodes")


def cap_cells(value: int, cells: Callable[[int], int], name: str, bytes_each: int,
              least: int = 1) -> tuple[int, str | None]:
    """``value`` lowered until ``cells(value)`` cells (increasing in it) fit the tree's share of
    ``memory_limit`` at ``bytes_each`` bytes a cell, for arrays that are not a tree's nodes: the cells a
    method holds at its own resolution (``cells`` = 4^b: the h-tree's occupied cells, the Hilbert R-tree's
    curve positions, bounded so from public inputs alone, whatever the data), or kd-cell's noisy grid.
    Unchanged without a limit."""
    limit = _LIMIT.get()
    if limit is None:
        return value, None
    cap = max(1, int(memory_bytes(limit) * TREE_SHARE) // bytes_each)
    return _lowered(value, cells, name, least, cap, "at most {cap:,} cells")


def _lowered(value: int, size: Callable[[int], int], name: str, least: int, cap: int,
             holds: str) -> tuple[int, str | None]:
    """The largest value in [least, value] whose ``size`` (increasing) is at most ``cap``, and the note."""
    lo = largest_fitting(value, size, least, cap)
    if lo == value:
        return value, None
    return lo, (f"{name} {value} lowered to {lo}: {cap_why()} holds {holds.format(cap=cap)} "
                f"({size(value):,} asked for)")


def largest_fitting(value: int, size: Callable[[int], int], least: int, cap: int) -> int:
    """The largest integer in [least, value] whose ``size`` (increasing in it) is at most ``cap`` (bisection);
    ``value`` itself when it fits or is at most ``least``, ``least`` when nothing above it fits."""
    if value <= least or size(value) <= cap:
        return value
    lo, hi = least, value        # size(lo) may exceed the cap; size(hi) does
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if size(mid) <= cap else (lo, mid)
    return lo
