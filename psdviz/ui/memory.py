"""Give memory back after visitors leave: a server-wide thread that, once a minute, collects garbage and
asks the C allocator to return its free pages to the system (glibc's ``malloc_trim``). Sessions a class
closed are dropped by Streamlit after ``server.disconnectedSessionTTL``; without the trim their freed
arrays stay in the process's heap and its resident memory never falls (measured in
``benchmarks/bench_classroom.py``). Elsewhere than glibc the thread only collects."""
from __future__ import annotations

import ctypes
import ctypes.util
import gc
import threading
import time

PERIOD_S = 60.0
_started = threading.Event()


def _trimmer():
    name = ctypes.util.find_library("c")
    try:
        return ctypes.CDLL(name).malloc_trim if name else None
    except (OSError, AttributeError):
        return None


def start(period: float = PERIOD_S) -> None:
    """Start the thread once per process (later calls do nothing)."""
    if _started.is_set():
        return
    _started.set()
    trim = _trimmer()

    def loop() -> None:
        while True:
            time.sleep(period)
            gc.collect()
            if trim is not None:
                trim(0)

    threading.Thread(target=loop, name="psdviz-memory", daemon=True).start()
