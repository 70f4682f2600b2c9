"""Many visitors on one app: no build waits behind another key's, the same seeded build is made once,
the shared cache is bounded in bytes, and a session's fresh release is the same draw when it comes back
to the same inputs (never silently redrawn)."""
from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from psdviz.ui.cache import SharedCache


def test_a_hit_returns_while_another_keys_build_is_running():
    cache = SharedCache()
    cache.get_or_build("ready", lambda: "R")
    started, release = threading.Event(), threading.Event()

    def slow():
        started.set()
        release.wait(10)
        return "S"

    t = threading.Thread(target=cache.get_or_build, args=("slow", slow))
    t.start()
    assert started.wait(5)
    t0 = time.monotonic()
    assert cache.get_or_build("ready", lambda: "never") == "R"            # a hit, during the slow build
    assert cache.get_or_build("other", lambda: "O") == "O"                # another key's build, too
    assert time.monotonic() - t0 < 1.0
    release.set()
    t.join(5)
    assert cache.get_or_build("slow", lambda: "never") == "S"


def test_two_callers_of_one_key_share_one_build():
    cache, calls = SharedCache(), []
    gate = threading.Event()

    def make():
        calls.append(1)
        gate.wait(5)
        return object()

    out = []
    threads = [threading.Thread(target=lambda: out.append(cache.get_or_build("k", make))) for _ in range(4)]
    for t in threads:
        t.start()
    time.sleep(0.2)
    gate.set()
    for t in threads:
        t.join(5)
    assert len(calls) == 1 and len({id(o) for o in out}) == 1


def test_a_failed_build_is_not_cached_and_its_waiters_see_the_error():
    cache = SharedCache()
    with pytest.raises(ValueError):
        cache.get_or_build("bad", lambda: (_ for _ in ()).throw(ValueError("no")))
    assert cache.get_or_build("bad", lambda: "fine") == "fine"


def test_the_cache_is_bounded_in_bytes():
    cache = SharedCache(size=1000, max_bytes=10_000, measure=lambda v: v.nbytes)
    for i in range(20):
        cache.get_or_build(str(i), lambda: np.zeros(250))                 # 2,000 bytes each
    assert cache.bytes <= 10_000 and len(cache.items) == 5 and "19" in cache.items


def test_a_session_comes_back_to_the_release_it_saw():
    """Fresh randomness, epsilon 0.5 -> 1 -> 0.5 -> 1 (more than the old cache's 8 entries of traffic in
    between from other keys would have evicted it): the same draws come back."""
    from streamlit.testing.v1 import AppTest
    script = """
import streamlit as st
from psdviz.ui import map_page, mapview
mapview.show_map = lambda fmap, key, height=560, overlay=None: {}
map_page.render()
"""
    at = AppTest.from_string(script, default_timeout=120)
    at.run()
    at.selectbox(key="method").set_value("ug").run()
    seen = {}
    for eps in (0.5, 1.0, 0.5, 1.0):
        at.select_slider(key="epsilon").set_value(eps).run()
        assert not at.exception
        rel = next(iter(v for k, v in at.session_state["psdviz_session_releases"].items()
                        if f'"ug", {eps}' in k))
        if eps in seen:
            assert rel is seen[eps]                                       # the same draw, not a new one
        seen[eps] = rel
    assert seen[0.5] is not seen[1.0]


def test_the_shipped_config_runs_the_app_for_a_class():
    """``python -m streamlit run app.py`` reads .streamlit/config.toml: no file watcher (it rescans every loaded
    module for each new session) and no full garbage collection after every run (it holds the interpreter for
    every session); closed tabs are kept 60 s. Development mode turns the watcher on by flags (docs/app.md)."""
    import tomllib
    from pathlib import Path

    from streamlit import config
    path = Path(__file__).resolve().parents[2] / ".streamlit" / "config.toml"
    shipped = tomllib.loads(path.read_text())
    assert shipped["server"]["fileWatcherType"] == "none" and shipped["runner"]["postScriptGC"] is False
    assert shipped["server"]["disconnectedSessionTTL"] == 60
    for section, options in shipped.items():       # every option is one this streamlit knows
        for name in options:
            assert f"{section}.{name}" in config._config_options_template, f"{section}.{name}"
