"""Give memory back after visitors leave: a server-wide thread that, every half minute, drops the sessions
whose reconnection window has passed, collects garbage and asks the C allocator to return its free pages
to the system (glibc's ``malloc_trim``); at start it keeps glibc to two heaps for all threads.

Streamlit keeps a closed tab's session for ``server.disconnectedSessionTTL`` (60 s here,
``.streamlit/config.toml``) so a dropped connection can resume it; its store only removes expired sessions
on its next write, so after a class leaves, nothing removes them and their releases stay in memory until
someone connects (docs/decisions/classroom.md). Elsewhere than glibc the thread does not trim."""
from __future__ import annotations

import ctypes
import ctypes.util
import gc
import threading
import time
from typing import Any

PERIOD_S = 30.0
_started = threading.Event()


M_ARENA_MAX = -8          # glibc's mallopt parameter: how many heaps threads may spread allocations over
ARENAS = 2


def _libc():
    name = ctypes.util.find_library("c")
    try:
        return ctypes.CDLL(name) if name else None
    except OSError:
        return None


def _trimmer():
    return getattr(_libc(), "malloc_trim", None)


def _limit_arenas() -> None:
    """At most ``ARENAS`` malloc heaps: each session's script runs in its own thread, and glibc gives threads
    heaps of their own (up to eight per core), whose freed pages a trim can rarely give back."""
    mallopt = getattr(_libc(), "mallopt", None)
    if mallopt is not None:
        mallopt(M_ARENA_MAX, ARENAS)


def session_store(runtime: Any) -> Any:
    """The store of disconnected sessions of a Streamlit runtime (a mapping that drops expired entries on
    ``expire()``), or None when this Streamlit keeps them elsewhere (then nothing is reaped here)."""
    store = getattr(getattr(getattr(runtime, "_session_mgr", None), "_session_storage", None), "_cache", None)
    return store if callable(getattr(store, "expire", None)) else None


def reap_expired_sessions(runtime: Any) -> int:
    """Drop the disconnected sessions whose time to reconnect has passed; the number dropped."""
    store = session_store(runtime)
    return 0 if store is None else len(store.expire())


def _reap_on_event_loop() -> None:
    """:func:`reap_expired_sessions` on the runtime's event loop, the one thread that touches the store."""
    from streamlit.runtime import Runtime
    if not Runtime.exists():
        return
    runtime = Runtime.instance()
    try:
        loop = runtime._get_async_objs().eventloop
        loop.call_soon_threadsafe(reap_expired_sessions, runtime)
    except (AttributeError, RuntimeError):     # not started, or closing: nothing to reap
        return


def start(period: float = PERIOD_S) -> None:
    """Start the thread once per process (later calls do nothing)."""
    if _started.is_set():
        return
    _started.set()
    _limit_arenas()
    trim = _trimmer()

    def loop() -> None:
        while True:
            time.sleep(period)
            _reap_on_event_loop()
            time.sleep(1.0)                  # the reap runs on the event loop; collect after it
            gc.collect()
            if trim is not None:
                trim(0)

    threading.Thread(target=loop, name="psdviz-memory", daemon=True).start()
