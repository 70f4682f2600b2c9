"""The server's memory thread: started once per process, and on glibc it has the allocator's trim."""
from __future__ import annotations

import threading
from types import SimpleNamespace

from psdviz.ui import memory


def test_the_memory_thread_starts_once_and_trims_on_glibc():
    memory.start(period=3600)
    memory.start(period=3600)
    assert sum(t.name == "psdviz-memory" for t in threading.enumerate()) == 1
    trim = memory._trimmer()
    assert trim is not None and trim(0) in (0, 1)       # glibc: 1 if memory was released, else 0
    assert memory._libc().mallopt(memory.M_ARENA_MAX, memory.ARENAS) == 1   # glibc takes the heap limit


REAL_RUNTIME = """
import time
from types import SimpleNamespace
from streamlit.runtime.caching.storage.dummy_cache_storage import MemoryCacheStorageManager
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage
from streamlit.runtime.memory_session_storage import MemorySessionStorage
from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager
from streamlit.runtime.runtime import Runtime, RuntimeConfig
from psdviz.ui import memory
store = MemorySessionStorage(ttl_seconds=1)
runtime = Runtime(RuntimeConfig(script_path="app.py", media_file_storage=MemoryMediaFileStorage("/media"),
                                uploaded_file_manager=MemoryUploadedFileManager("/upload"),
                                cache_storage_manager=MemoryCacheStorageManager(), session_storage=store))
store.save(SimpleNamespace(session=SimpleNamespace(id="closed tab")))
assert memory.reap_expired_sessions(runtime) == 0          # still within its time to reconnect
time.sleep(1.2)
assert store._cache._data and memory.reap_expired_sessions(runtime) == 1 and not store._cache._data
print("reaped")
"""


def test_expired_sessions_are_dropped_without_waiting_for_a_new_visitor():
    """Streamlit's store of disconnected sessions removes an expired one only on its next write; the memory
    thread drops it. Checked on a real Streamlit Runtime (in a fresh process: the runtime is a singleton), so
    a Streamlit release that keeps sessions elsewhere fails here rather than silently keeping them."""
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-c", REAL_RUNTIME], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and "reaped" in out.stdout, out.stderr[-2000:]


def test_the_reaper_leaves_live_sessions_and_ignores_an_unknown_store():
    from streamlit.runtime.caching.ttl_cache import TTLCache
    now = [0.0]
    cache = TTLCache(maxsize=10, ttl=60, timer=lambda: now[0])
    cache["a"], cache["b"] = 1, 2
    runtime = SimpleNamespace(_session_mgr=SimpleNamespace(_session_storage=SimpleNamespace(_cache=cache)))
    now[0] = 30.0
    cache["c"] = 3
    assert memory.reap_expired_sessions(runtime) == 0
    now[0] = 61.0
    assert memory.reap_expired_sessions(runtime) == 2 and list(cache) == ["c"]
    assert memory.reap_expired_sessions(SimpleNamespace()) == 0       # no such store: nothing done
