"""A browser-free visitor of the app: Streamlit's own websocket protocol, spoken as its frontend speaks it.

A visitor opens ``/_stcore/stream`` on the app server (loopback only) with the XSRF token of the cookie
``/_stcore/health`` sets, as the frontend does, and sends ``BackMsg`` protobufs of the installed streamlit:
``rerun_script`` with a ``ClientState`` (the page's hash, the values of the widgets it holds, the fragment
a component's value belongs to, the hashes of the big messages it keeps), ``file_urls_request`` before an
upload (the file itself goes by HTTP PUT to the URL the server returns). It reads the ``ForwardMsg``
stream (deltas, navigation, ``script_finished``) into the page a browser would show: the elements by
their place, the widgets by their label. What the frontend does on its own is done the same way: widget
values are kept for the widgets on the page and dropped with them, a big message the server marks
cacheable is kept and named by its hash in every later rerun (the server then sends a reference), and the
map component's value after a drawn rectangle is what streamlit-folium sends (its ``all_drawings`` as
Leaflet.draw's GeoJSON, 6 decimals, and the click Leaflet reports where the drag ended).

Nothing here runs JavaScript or draws: the client measures the server's share of a visit.
"""
from __future__ import annotations

import asyncio
import json
import math
import time
import urllib.parse
import urllib.request
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.Common_pb2 import FileUploaderState
from streamlit.proto.Element_pb2 import Element
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState

LOOPBACK = ("127.0.0.1", "localhost", "::1")
MAP_COMPONENT = "streamlit_folium.st_folium"
FINISHED = ForwardMsg.ScriptFinishedStatus
DONE = (FINISHED.FINISHED_SUCCESSFULLY, FINISHED.FINISHED_FRAGMENT_RUN_SUCCESSFULLY,
        FINISHED.FINISHED_WITH_COMPILE_ERROR)
ERROR_ALERT = 1          # Alert.Format.ERROR


def check_loopback(base: str) -> str:
    """``base`` (``http://host:port``) when its host is this machine's loopback; the benchmark talks to no other."""
    host = urllib.parse.urlsplit(base).hostname or ""
    if host not in LOOPBACK:
        raise ValueError(f"the classroom client only talks to a server on this machine (127.0.0.1), not {host!r}")
    return base.rstrip("/")


def widget_state(wid: str, kind: str, value: Any) -> WidgetState:
    """One widget's value as the frontend sends it: ``kind`` is the ``WidgetState`` field the widget's type uses
    (``bool_value`` for a checkbox or toggle, ``double_value`` for a float number input, ``string_value`` for a
    radio or select box, ``json_value`` for a component, whose value is serialised here,
    ``file_uploader_state_value`` for an uploader)."""
    state = WidgetState(id=wid)
    if kind == "json_value":
        state.json_value = json.dumps(value)
    elif kind == "file_uploader_state_value":
        state.file_uploader_state_value.CopyFrom(value)
    else:
        setattr(state, kind, value)
    return state


def rerun_msg(states: Iterable[WidgetState] = (), *, page_hash: str = "", fragment_id: str = "",
              cached: Iterable[str] = (), url: str = "") -> BackMsg:
    """The ``rerun_script`` message of a page load, a widget change, a page link or a component's value (with
    the fragment the component lives in: the server reruns that fragment alone)."""
    msg = BackMsg()
    client = msg.rerun_script
    client.query_string = ""
    client.page_script_hash = page_hash
    client.fragment_id = fragment_id
    client.widget_states.widgets.extend(states)
    client.cached_message_hashes.extend(sorted(cached))
    client.context_info.timezone = "UTC"
    client.context_info.timezone_offset = 0
    client.context_info.locale = "en-US"
    client.context_info.url = url
    return msg


def upload_request(names: list[str], session_id: str) -> BackMsg:
    """The ``file_urls_request`` the uploader sends before it PUTs the files."""
    msg = BackMsg()
    msg.file_urls_request.request_id = uuid.uuid4().hex
    msg.file_urls_request.file_names.extend(names)
    msg.file_urls_request.session_id = session_id
    return msg


def uploader_state(files: list[tuple[str, str, int, Any]]) -> FileUploaderState:
    """The uploader's value once its files are up: (file id, name, size, the ``FileURLs`` the server gave)."""
    state = FileUploaderState()
    for file_id, name, size, urls in files:
        info = state.uploaded_file_info.add()
        info.file_id, info.name, info.size = file_id, name, size
        info.file_urls.CopyFrom(urls)
    return state


def rounded(v: float) -> float:
    """Leaflet's ``toGeoJSON`` precision (6 decimals)."""
    return round(float(v), 6)


def drawing_value(rect: tuple[float, float, float, float]) -> dict:
    """streamlit-folium's value after a rectangle [xmin, ymin, xmax, ymax] is drawn on a map whose returned
    objects are ``all_drawings`` and ``last_object_clicked`` (the page's): the drawn polygon as Leaflet.draw's
    GeoJSON, and the click Leaflet fires where the drag ended (the south-east corner)."""
    x0, y0, x1, y1 = (rounded(v) for v in rect)
    ring = [[x0, y0], [x0, y1], [x1, y1], [x1, y0], [x0, y0]]
    feature = {"type": "Feature", "properties": {}, "geometry": {"type": "Polygon", "coordinates": [ring]}}
    return {"last_object_clicked": {"lat": y0, "lng": x1}, "all_drawings": [feature]}


def multipart(name: str, data: bytes) -> tuple[bytes, str]:
    """A multipart/form-data body holding one file under the field ``file`` (as the uploader sends it)."""
    boundary = uuid.uuid4().hex
    head = (f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
            "Content-Type: text/csv\r\n\r\n").encode()
    return head + data + f"\r\n--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


@dataclass
class Shown:
    """An element on the page and the fragment that drew it ('' for the page's own run)."""

    element: Element
    fragment: str


@dataclass
class Run:
    """One script run as the visitor saw it."""

    seconds: float = float("nan")          # from the request to the run's end
    to_map: float = float("nan")           # from the request to the map component's element
    status: int = -1
    exceptions: list[str] = field(default_factory=list)


def _body(el: Element) -> tuple[str, str, Any]:
    kind = el.WhichOneof("type") or ""
    return kind, getattr(getattr(el, kind), "label", "") if kind else "", getattr(el, kind) if kind else None


class Page:
    """What the browser holds: the elements by their delta path, the widgets' values it sends back, the big
    messages it keeps by hash, the app's pages."""

    def __init__(self) -> None:
        self.shown: dict[tuple[int, ...], Shown] = {}
        self.states: dict[str, WidgetState] = {}
        self.cache: dict[str, ForwardMsg] = {}
        self.pages: dict[str, str] = {}            # page title -> page script hash
        self.touched: set[tuple[int, ...]] = set()
        self.session_id = ""

    def take(self, msg: ForwardMsg) -> ForwardMsg:
        """Keep what a message changes on the page; a reference is read from the kept messages."""
        if msg.WhichOneof("type") == "ref_hash":
            msg = self.cache[msg.ref_hash]
        kind = msg.WhichOneof("type")
        if kind == "new_session":
            self.session_id = msg.new_session.initialize.session_id
        elif kind == "navigation":
            self.pages = {p.page_name: p.page_script_hash for p in msg.navigation.app_pages}
        elif kind == "delta":
            if msg.metadata.cacheable and msg.hash:
                self.cache[msg.hash] = msg
            path = tuple(msg.metadata.delta_path)
            delta = msg.delta
            if delta.WhichOneof("type") in ("add_block", "new_element"):    # what was at this place goes
                for p in [p for p in self.shown if p[:len(path)] == path]:
                    del self.shown[p]
            if delta.WhichOneof("type") == "new_element":
                self.shown[path] = Shown(delta.new_element, delta.fragment_id)
            self.touched.add(path)
        return msg

    def finish(self, status: int, fragment: str) -> None:
        """At a run's end the frontend drops what the run did not draw (a fragment's run: in that fragment
        only) and the values of widgets no longer on the page."""
        if status == FINISHED.FINISHED_SUCCESSFULLY:
            stale = [p for p in self.shown if p not in self.touched]
        elif status == FINISHED.FINISHED_FRAGMENT_RUN_SUCCESSFULLY:
            stale = [p for p, s in self.shown.items() if s.fragment == fragment and p not in self.touched]
        else:
            stale = []
        for p in stale:
            del self.shown[p]
        live = self.widget_ids()
        self.states = {k: v for k, v in self.states.items() if k in live}
        self.touched = set()

    def widget_ids(self) -> set[str]:
        return {getattr(b, "id", "") for _, _, b in map(_body, (s.element for s in self.shown.values()))} - {""}

    def widget(self, label: str, kind: str | None = None) -> tuple[str, Any]:
        """(id, proto) of the widget whose label starts with ``label`` (and of this element type); KeyError when
        the page has none."""
        for s in self.shown.values():
            k, lab, body = _body(s.element)
            if lab.startswith(label) and (kind is None or k == kind) and getattr(body, "id", ""):
                return body.id, body
        raise KeyError(f"no widget labelled {label!r} on the page")

    def component(self, name: str = MAP_COMPONENT) -> tuple[str, str] | None:
        """(widget id, fragment id) of the component ``name`` on the page, or None."""
        for s in self.shown.values():
            if s.element.WhichOneof("type") == "component_instance" and s.element.component_instance.component_name \
                    == name:
                return s.element.component_instance.id, s.fragment
        return None

    def texts(self, kinds: tuple[str, ...] = ("markdown", "heading", "alert")) -> list[str]:
        """The text of every element of these kinds, in page order."""
        out = []
        for path in sorted(self.shown):
            k, _, body = _body(self.shown[path].element)
            if k in kinds:
                out.append(body.body)
        return out

    def text_with(self, needle: str) -> str:
        """The first markdown, heading or alert holding ``needle`` ('' when none does)."""
        return next((t for t in self.texts() if needle in t), "")

    def metrics(self) -> list[str]:
        """'label: value' of every metric on the page, in page order."""
        out = []
        for path in sorted(self.shown):
            k, lab, body = _body(self.shown[path].element)
            if k == "metric":
                out.append(f"{lab}: {body.body}")
        return out

    def errors(self) -> list[str]:
        """The error boxes and exceptions on the page."""
        out = []
        for s in self.shown.values():
            k, _, body = _body(s.element)
            if k == "exception":
                out.append(f"exception {body.type}: {body.message[:160]}")
            elif k == "alert" and body.format == ERROR_ALERT:
                out.append(f"error box: {body.body[:160]}")
        return out


class Visitor:
    """One browser tab's conversation with the server (asyncio; many visitors share one event loop)."""

    def __init__(self, base: str, timeout: float = 120.0):
        self.base = check_loopback(base)
        self.timeout = timeout
        self.page = Page()
        self.ws: Any = None
        self.cookie = self.token = ""
        self.received = self.received_bytes = 0    # ForwardMsgs read, and their bytes

    async def open(self) -> None:
        """The health check that sets the XSRF cookie, then the websocket with the token as its second
        subprotocol (the frontend's handshake)."""
        def health() -> str:
            with urllib.request.urlopen(f"{self.base}/_stcore/health", timeout=self.timeout) as r:
                return r.headers.get("set-cookie", "").split(";")[0]
        self.cookie = await asyncio.to_thread(health)
        self.token = self.cookie.split("=", 1)[1] if "=" in self.cookie else ""
        ws_url = "ws" + self.base[len("http"):] + "/_stcore/stream"
        self.ws = await websockets.connect(ws_url, subprotocols=["streamlit", self.token] if self.token else
                                           ["streamlit"], additional_headers={"Cookie": self.cookie,
                                                                              "Origin": self.base},
                                           max_size=None, open_timeout=self.timeout, ping_interval=None)

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()

    async def _recv(self, deadline: float) -> ForwardMsg:
        left = deadline - time.perf_counter()
        if left <= 0:
            raise TimeoutError("no answer from the server in time")
        data = await asyncio.wait_for(self.ws.recv(), left)
        self.received += 1
        self.received_bytes += len(data)
        msg = ForwardMsg()
        msg.ParseFromString(data)
        return msg

    async def rerun(self, changed: Iterable[WidgetState] = (), *, page_hash: str = "",
                    fragment_id: str = "") -> Run:
        """Send a rerun with the page's widget values (``changed`` replacing theirs) and read until its end."""
        for st in changed:
            self.page.states[st.id] = st
        msg = rerun_msg(self.page.states.values(), page_hash=page_hash, fragment_id=fragment_id,
                        cached=self.page.cache, url=self.base + "/")
        run = Run()
        t0 = time.perf_counter()
        deadline = t0 + self.timeout
        await self.ws.send(msg.SerializeToString())
        while True:
            fwd = self.page.take(await self._recv(deadline))
            kind = fwd.WhichOneof("type")
            if kind == "delta" and fwd.delta.WhichOneof("type") == "new_element":
                el = fwd.delta.new_element
                if (el.WhichOneof("type") == "component_instance" and math.isnan(run.to_map)
                        and el.component_instance.component_name == MAP_COMPONENT):
                    run.to_map = time.perf_counter() - t0
                if el.WhichOneof("type") == "exception":
                    run.exceptions.append(f"{el.exception.type}: {el.exception.message[:160]}")
            elif kind == "script_finished":
                self.page.finish(fwd.script_finished, fragment_id)
                if fwd.script_finished in DONE:
                    run.status = fwd.script_finished
                    run.seconds = time.perf_counter() - t0
                    return run

    async def set(self, label: str, kind: str, value: Any, widget_type: str | None = None) -> Run:
        """Change the widget with this label and rerun, as the frontend does when a value is changed."""
        wid, _ = self.page.widget(label, widget_type)
        return await self.rerun([widget_state(wid, kind, value)])

    async def draw(self, rect: tuple[float, float, float, float]) -> Run:
        """Draw a rectangle on the map: the component's value, in the map's fragment."""
        found = self.page.component()
        if found is None:
            raise KeyError("no map on the page to draw on")
        wid, fragment = found
        return await self.rerun([widget_state(wid, "json_value", drawing_value(rect))], fragment_id=fragment)

    async def click(self, label: str) -> Run:
        """Press the button with this label: its trigger sent once, as the frontend does (not kept for later
        reruns)."""
        wid, _ = self.page.widget(label, "button")
        try:
            return await self.rerun([widget_state(wid, "trigger_value", True)])
        finally:
            self.page.states.pop(wid, None)

    async def go(self, title: str) -> Run:
        """Follow the page link with this title."""
        return await self.rerun(page_hash=self.page.pages[title])

    async def upload(self, label: str, name: str, data: bytes) -> Run:
        """Upload one file into the uploader whose label starts with ``label``: its URLs asked over the websocket,
        the file PUT over HTTP with the XSRF header, then the uploader's value sent in a rerun."""
        wid, _ = self.page.widget(label, "file_uploader")
        await self.ws.send(upload_request([name], self.page.session_id).SerializeToString())
        deadline = time.perf_counter() + self.timeout
        while True:
            fwd = self.page.take(await self._recv(deadline))
            if fwd.WhichOneof("type") == "file_urls_response":
                break
        if fwd.file_urls_response.error_msg:
            raise RuntimeError(f"upload refused: {fwd.file_urls_response.error_msg}")
        urls = fwd.file_urls_response.file_urls[0]
        body, ctype = multipart(name, data)

        def put() -> None:
            req = urllib.request.Request(self.base + urls.upload_url if urls.upload_url.startswith("/")
                                         else urls.upload_url, data=body, method="PUT",
                                         headers={"Content-Type": ctype, "X-Xsrftoken": self.token,
                                                  "Cookie": self.cookie})
            with urllib.request.urlopen(req, timeout=self.timeout) as r:
                r.read()
        await asyncio.to_thread(put)
        state = uploader_state([(urls.file_id, name, len(data), urls)])
        return await self.rerun([widget_state(wid, "file_uploader_state_value", state)])
