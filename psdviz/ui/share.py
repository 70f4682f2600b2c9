"""A teacher hands the class one release: a short code (and a link) that opens the same seeded release
and view on every student's screen (docs/decisions/classroom.md).

The code names a snapshot of the map page's inputs (the bundled sample and its domain, the method and
its parameters, epsilon, resolution, the seed, the depth shown and the rectangle asked), kept in this
server process. A seeded build of the same inputs is the same release, so every screen shows the same
cells and the same answer, labelled NOT PRIVATE as every seeded run is. Fresh releases are not shared (a
student's build would draw new noise, another release) and neither are uploads (the class cannot see
the teacher's file): the panel says so.
"""
from __future__ import annotations

import secrets
import threading
from collections import OrderedDict

import streamlit as st

from . import keys
from .state import MIRROR

ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"    # no 0/O, 1/I/L: read aloud and typed by a class
CODE_LENGTH = 6
MAX_LESSONS = 500                                # codes kept per server process, oldest forgotten first
CODE_KEY, APPLIED_KEY, MADE_KEY = "lesson_code", "lesson_applied", "lesson_made"
_FIXED = ("data_source", "method", "epsilon", "eps_typed_on", "eps_typed", "resolution", "rand_mode", "seed",
          keys.QUERY_RECT)
_lessons: OrderedDict[str, dict] = OrderedDict()
_lock = threading.Lock()


def snapshot(method: str) -> dict:
    """The map page's inputs and view in this session: the fixed keys, the sample's domain choice, the
    method's parameters and the depth shown."""
    state = st.session_state
    return {k: state[k] for k in list(state.keys()) if isinstance(k, str) and (
        k in _FIXED or k.startswith(("sample_", MIRROR + "sample_", f"p_{method}_", "depth|")))}


def make_code(inputs: dict) -> str:
    """Keep ``inputs`` under a new code (process-wide, at most :data:`MAX_LESSONS`)."""
    with _lock:
        code = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))
        while code in _lessons:
            code = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))
        _lessons[code] = dict(inputs)
        while len(_lessons) > MAX_LESSONS:
            _lessons.popitem(last=False)
    return code


def lesson(code: str) -> dict | None:
    with _lock:
        return _lessons.get(code.strip().upper())


def join() -> None:
    """The student's side, drawn first in the sidebar: a code typed (or ``?lesson=CODE`` in the link)
    sets this session's inputs to the teacher's once; the student can change them afterwards."""
    if "lesson" in st.query_params and CODE_KEY not in st.session_state:
        st.session_state[CODE_KEY] = str(st.query_params["lesson"])
    code = st.text_input("Class code (from your teacher)", key=CODE_KEY, max_chars=CODE_LENGTH + 4,
                         help="Opens the release and view your teacher shared: the same cells and answers.")
    code = (code or "").strip().upper()
    if not code or st.session_state.get(APPLIED_KEY) == code:
        return
    inputs = lesson(code)
    if inputs is None:
        st.error(f"No lesson with the code {code} on this server: check the code with your teacher.")
        return
    for k, v in inputs.items():
        st.session_state[k] = v
    st.session_state[APPLIED_KEY] = code
    st.caption(f"Lesson {code}: your teacher's data, method, epsilon and seed.")


def share_panel(method: str, seeded: bool, sample: bool) -> None:
    """The teacher's side, under the map: a code and a link for this view, when it can be shared."""
    with st.expander("Share this view with the class"):
        if not sample:
            st.info("The class cannot see your uploaded file: pick a bundled sample to share a view.")
            return
        if not seeded:
            st.info("Sharing needs a seeded run (Randomness: seed): with fresh noise every student would get "
                    "another release.")
            return
        if st.button("Make a class code", key="lesson_btn"):
            st.session_state[MADE_KEY] = make_code(snapshot(method))
        code = st.session_state.get(MADE_KEY)
        if code:
            st.markdown(f"Class code: **{code}** (type it in the sidebar), or the link:")
            base = (st.context.url or "").split("?")[0]        # unknown when the server cannot tell its address
            st.code(f"{base}?lesson={code}", language=None)
            st.caption("Every screen opens the same seeded release (labelled NOT PRIVATE, as every seeded run) "
                       "and the same view; students can change the inputs afterwards.")
