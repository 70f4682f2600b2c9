"""What a session made once and shows again: its uploaded table read, its points picked, its release's map
layers, its rectangle's answer. Streamlit runs a page's whole script on every interaction (a widget, a
drawn rectangle, a return from another page); what the run would make again from the same inputs is kept
in the session's own state instead, never shared with another session (docs/decisions/classroom.md)."""
from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import TypeVar

import streamlit as st

T = TypeVar("T")


def remembered(store: str, key: Hashable, make: Callable[[], T], owner: object = None, keep: int = 4) -> T:
    """This session's value for ``key`` in ``st.session_state[store]``: made by ``make`` the first time and kept
    (the ``keep`` most recently used keys). ``owner``: the object the value was made from (a release, the
    uploaded bytes), held beside it; when another object comes with the same key the value is made again.
    Nothing is kept when ``make`` raises."""
    kept: dict = st.session_state.setdefault(store, {})
    if key in kept and kept[key][0] is owner:
        kept[key] = kept.pop(key)                  # the most recently used last
        return kept[key][1]
    value = make()
    kept.pop(key, None)
    kept[key] = (owner, value)
    while len(kept) > keep:
        kept.pop(next(iter(kept)))
    return value
