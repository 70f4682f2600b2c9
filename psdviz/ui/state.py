"""What the user did survives navigation: Streamlit forgets a widget's value when a run does not draw it
(the user is on another page); re-assigning the kept keys at the start of every run keeps them for the
browser session until the user changes them or presses "Start over" (docs/decisions/app-state.md).

Buttons, download buttons, file uploaders and the map components cannot be set through
``st.session_state``: their keys are left alone (an uploaded file is kept by :mod:`.data_input` itself).
"""
from __future__ import annotations

import streamlit as st

UNSETTABLE_SUFFIXES = ("_upload", "renoise", "_csv", "_json", "_geojson", "_geoparquet", "_hist", "_btn", "_go",
                       "_drill", "_redraw", "_map", "map")
UNSETTABLE = {"upload", "qtyped", "plan_go"}


def settable(key: str) -> bool:
    """Whether ``key`` may be re-assigned (not a button, uploader, download or map component)."""
    return not (key in UNSETTABLE or key.startswith(("dl_", "FormSubmitter")) or key.endswith(UNSETTABLE_SUFFIXES))


MIRROR = "kept|"   # a copy of each settable key under a name no widget has, so Streamlit never removes it


def keep_widget_state() -> None:
    """Re-assign every settable key to itself, so widgets on pages not drawn this run keep their values,
    and keep a copy of each under :data:`MIRROR`: a key Streamlit removed anyway (a map page's widgets
    after a run of its map fragment alone, then another page) is put back from its copy. Keys the app
    drops on purpose go through :func:`forget`, which drops the copy too."""
    state = st.session_state
    names = [k for k in list(state.keys()) if isinstance(k, str)]
    for key in names:
        if key.startswith(MIRROR) and key[len(MIRROR):] not in state and settable(key[len(MIRROR):]):
            state[key[len(MIRROR):]] = state[key]
    for key in names:
        if not key.startswith(MIRROR) and settable(key) and key in state:
            state[key] = state[key]
            state[MIRROR + key] = state[key]


def forget(*names: str) -> None:
    """Drop session keys on purpose (and their copies, so :func:`keep_widget_state` does not restore them)."""
    for key in names:
        st.session_state.pop(key, None)
        st.session_state.pop(MIRROR + key, None)


def start_over_button() -> None:
    """A visible "Start over" in the sidebar: forgets every input and release of this session."""
    if st.sidebar.button("Start over", key="start_over_btn", help="Forget this session's data, inputs, releases "
                         "and queries, and open the app as a new visitor would."):
        for key in list(st.session_state.keys()):
            del st.session_state[key]
        st.query_params.clear()          # the view in the address too (psdviz.ui.address)
        st.rerun()
