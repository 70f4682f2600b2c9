"""The server's memory thread: started once per process, and on glibc it has the allocator's trim."""
from __future__ import annotations

import threading

from psdviz.ui import memory


def test_the_memory_thread_starts_once_and_trims_on_glibc():
    memory.start(period=3600)
    memory.start(period=3600)
    assert sum(t.name == "psdviz-memory" for t in threading.enumerate()) == 1
    trim = memory._trimmer()
    assert trim is not None and trim(0) in (0, 1)       # glibc: 1 if memory was released, else 0
