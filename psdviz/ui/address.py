"""The map page's view in the page address: a reload, a bookmark or a link opens the same view.

The address holds the view's public inputs only (``st.query_params``): the sample (or the name of an
uploaded file, never its data), the method, epsilon, the domain, the resolution, the seed when the run is
seeded, and the rectangle asked; the page itself is the address's path (``/map``, ``/regions``, ...,
``ui/navigation.py``). A session that opens such an address takes those inputs once, before any widget is
drawn; the build then draws fresh noise (a new release) unless a seed is part of the view, and an uploaded
file is asked for again by its name. The class code (``?lesson=``, :mod:`.share`) stays as it is and wins
over the address when both are given. The other pages keep the map page's view in their address (a reload
there opens it again), except the pages that use none of it (:data:`WITHOUT_VIEW`: Open a release reads a
release file alone), whose address holds none of it. Decision: docs/decisions/newcomer-steps.md.
"""
from __future__ import annotations

import math

import streamlit as st

import psdviz as pv
from psdviz.present import SAMPLES

from . import keys
from .controls import EPS_MAX, EPS_MIN, EPSILONS
from .data_input import ASKED_FILE, PRESET
from .state import MIRROR

READ = "psdviz_address_read"     # the address was read in this session (once: afterwards the widgets lead)
VIEW = "psdviz_address_view"     # the map page's view as last written: put back on the other pages too
PARAMS = ("sample", "upload", "method", "epsilon", "domain", "resolution", "seed", "rect")
DOMAIN_WORDS = {"the sample's declared domain": "declared", "the world": "world"}
WITHOUT_VIEW = frozenset({"release"})   # url paths of the pages that use none of the map page's view


def _number(text: str) -> float | None:
    try:
        v = float(text)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def _numbers(text: str, n: int) -> list[float] | None:
    parts = [_number(p) for p in str(text).split(",")]
    return None if len(parts) != n or any(p is None for p in parts) else [float(p) for p in parts]  # type: ignore


def _set(key: str, value) -> None:
    """Set an input and its kept copy (:func:`psdviz.ui.state.keep_widget_state`)."""
    st.session_state[key] = st.session_state[MIRROR + key] = value


def read_once() -> None:
    """At a session's first run: the view the address names becomes this session's inputs (a value the
    app would refuse, such as an unknown method, is left out: the page opens on its default there)."""
    if st.session_state.get(READ):
        return
    st.session_state[READ] = True
    q = {k: str(st.query_params[k]) for k in PARAMS if k in st.query_params}
    if not q:
        return
    prefix = "sample"
    if q.get("sample") in SAMPLES and SAMPLES[q["sample"]].spatial:
        _set("data_source", f"sample: {q['sample']}")
    elif q.get("upload"):
        _set("data_source", "upload a file")
        st.session_state[ASKED_FILE] = q["upload"][:200]
        prefix = "upload"
    if q.get("method") in (*pv.METHODS, *pv.REFERENCES):
        _set("method", q["method"])
    eps = _number(q.get("epsilon", ""))
    if eps is not None and EPS_MIN <= eps <= EPS_MAX:
        if eps in EPSILONS:
            _set("epsilon", eps)
        else:
            _set("eps_typed_on", True)
            _set("eps_typed", eps)
    _domain(q.get("domain"), prefix)
    res = _number(q.get("resolution", ""))
    if res is not None and res == int(res) and 1 <= res <= 30:
        _set("resolution", int(res))
    seed = _number(q.get("seed", ""))
    if seed is not None and seed == int(seed) and seed >= 0:
        _set("rand_mode", "seed")
        _set("seed", int(seed))
    rect = _numbers(q.get("rect", ""), 4)
    if rect is not None:
        st.session_state[keys.QUERY_RECT] = rect
        st.session_state[keys.QUERY_TYPED] = True      # drawn as the kept rectangle


def _domain(text: str | None, prefix: str) -> None:
    """``declared``, ``world``, ``place:<preset>`` or ``x0,y0,x1,y1`` (typed bounds)."""
    if not text:
        return
    choice = {"declared": "the sample's declared domain", "world": "the world"}.get(text)
    if choice is not None and not (prefix == "upload" and text == "declared"):
        _set(f"{prefix}_domain", choice)
        return
    if text.startswith("place:"):
        _set(f"{prefix}_domain", PRESET)
        _set(f"{prefix}_preset", text.removeprefix("place:"))
        return
    b = _numbers(text, 4)
    if b is not None:
        _set(f"{prefix}_domain", "typed bounds")
        for k, v in zip(("xmin", "ymin", "xmax", "ymax"), b):
            _set(f"{prefix}_{k}", v)


def _fmt(v: float) -> str:
    return f"{float(v):.6g}"


def view(data_name: str, bundled: bool, spec, domain_choice: str | None, domain, rect) -> dict[str, str]:
    """The address of a view (public inputs only)."""
    out = {"sample": data_name} if bundled else {"upload": data_name} if data_name else {}
    out |= {"method": spec.method, "epsilon": f"{spec.epsilon:g}", "resolution": str(spec.resolution)}
    if domain_choice in DOMAIN_WORDS:
        out["domain"] = DOMAIN_WORDS[domain_choice]
    elif domain_choice == PRESET:
        out["domain"] = f"place:{st.session_state.get(('sample' if bundled else 'upload') + '_preset', '')}"
    elif domain is not None:
        out["domain"] = ",".join(_fmt(v) for v in (domain.xmin, domain.ymin, domain.xmax, domain.ymax))
    if spec.seed is not None:
        out["seed"] = str(spec.seed)
    if rect is not None:
        out["rect"] = ",".join(_fmt(v) for v in rect)
    return out


def write(values: dict[str, str] | None) -> None:
    """Put ``values`` in the page address (and keep them for the other pages, whose links drop the address's
    parameters), leaving other parameters (the class code) as they are; nothing is sent when the address holds
    them already."""
    if values is None:
        return
    st.session_state[VIEW] = values
    _put(values)


def show(page: str) -> None:
    """The address of the page at url path ``page`` (``ui/navigation.py``), before it runs: the map page's view as
    last written on a page that may use it, none of it on a page of :data:`WITHOUT_VIEW` (the view stays kept
    for the way back to the map); other parameters (the class code) are left as they are."""
    if page in WITHOUT_VIEW:
        _put({})
    else:
        write(st.session_state.get(VIEW))


def _put(values: dict[str, str]) -> None:
    """The view's parameters of the address become ``values`` (no message sent when they are already)."""
    current = {k: str(st.query_params[k]) for k in PARAMS if k in st.query_params}
    if current == values:
        return
    for k in PARAMS:
        if k in st.query_params and k not in values:
            del st.query_params[k]
    st.query_params.update(values)


def write_rect(rect) -> None:
    """The rectangle alone (the map's fragment asks it): the rest of the view is the page's."""
    text = None if rect is None else ",".join(_fmt(v) for v in rect)
    kept = st.session_state.get(VIEW)
    if kept is not None:
        st.session_state[VIEW] = {k: v for k, v in kept.items() if k != "rect"} | ({} if text is None else
                                                                                   {"rect": text})
    if st.query_params.get("rect") == text:
        return
    if text is None:
        del st.query_params["rect"]
    else:
        st.query_params["rect"] = text


def domain_choice(bundled: bool) -> str | None:
    """The domain choice of this session's map page data."""
    key = f"{'sample' if bundled else 'upload'}_domain"
    return st.session_state.get(key, st.session_state.get(MIRROR + key))

