"""The classroom benchmark's browser-free client (benchmarks/classroom_protocol.py) builds the messages the
frontend sends and reads the page as the frontend does: its rerun messages round-trip through the installed
streamlit's protobufs, a drawn rectangle is what the map page reads as that rectangle (and its drag-end click
is not taken for a click on a cell), the page drops what a run did not draw, and it talks to this machine only.
Message building only: no server, nothing timed."""
import importlib.util
import json
import sys
from pathlib import Path

import pytest
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from psdviz.ui.query_panel import at_rect_corner, clicked_point, rect_from_drawings

PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "classroom_protocol.py"
spec = importlib.util.spec_from_file_location("classroom_protocol", PATH)
cp = importlib.util.module_from_spec(spec)
sys.modules["classroom_protocol"] = cp
spec.loader.exec_module(cp)


def test_a_rerun_message_round_trips_with_its_page_fragment_widgets_and_kept_messages():
    states = [cp.widget_state("a", "bool_value", True), cp.widget_state("b", "double_value", 0.7),
              cp.widget_state("c", "string_value", "upload a file"), cp.widget_state("d", "json_value", {"k": [1]})]
    msg = cp.rerun_msg(states, page_hash="p1", fragment_id="f1", cached={"h2", "h1"}, url="http://127.0.0.1:1/")
    back = BackMsg()
    back.ParseFromString(msg.SerializeToString())
    got = back.rerun_script
    assert back.WhichOneof("type") == "rerun_script" and got.page_script_hash == "p1" and got.fragment_id == "f1"
    assert list(got.cached_message_hashes) == ["h1", "h2"] and got.context_info.url == "http://127.0.0.1:1/"
    w = {s.id: s for s in got.widget_states.widgets}
    assert w["a"].bool_value is True and w["b"].double_value == 0.7 and w["c"].string_value == "upload a file"
    assert json.loads(w["d"].json_value) == {"k": [1]}


def test_an_upload_request_and_the_uploaders_value():
    req = cp.upload_request(["mine.csv"], "session-1")
    assert list(req.file_urls_request.file_names) == ["mine.csv"] and req.file_urls_request.session_id == "session-1"
    urls = ForwardMsg().file_urls_response.file_urls.add()
    urls.file_id, urls.upload_url = "f1", "/_stcore/upload_file/s/f1"
    state = cp.widget_state("u", "file_uploader_state_value", cp.uploader_state([("f1", "mine.csv", 12, urls)]))
    info = state.file_uploader_state_value.uploaded_file_info[0]
    assert (info.file_id, info.name, info.size, info.file_urls.upload_url) == ("f1", "mine.csv", 12, urls.upload_url)
    body, ctype = cp.multipart("mine.csv", b"lon,lat\n1,2\n")
    boundary = ctype.split("boundary=")[1]
    assert body.startswith(f"--{boundary}\r\n".encode()) and body.endswith(f"--{boundary}--\r\n".encode())
    assert b'name="file"; filename="mine.csv"' in body and b"lon,lat\n1,2\n" in body


@pytest.mark.parametrize("rect", [(-8.0, 38.0, 18.0, 55.0), (-97.123456789, 33.5, -88.0, 41.25)])
def test_a_drawn_rectangle_is_the_rectangle_the_map_page_reads(rect):
    value = cp.drawing_value(rect)
    assert rect_from_drawings(value["all_drawings"]) == [round(v, 6) for v in rect]
    # the click Leaflet fires where the drag ended is a corner: the page does not open a cell for it
    assert at_rect_corner(clicked_point(value["last_object_clicked"]), rect_from_drawings(value["all_drawings"]))


def _delta(path, element_kind=None, label="", wid="", fragment="", block=False, cacheable=False):
    msg = ForwardMsg()
    msg.metadata.delta_path.extend(path)
    if block:
        msg.delta.add_block.SetInParent()
    else:
        el = getattr(msg.delta.new_element, element_kind)
        if hasattr(el, "label"):
            el.label = label
        if wid:
            el.id = wid
        if element_kind == "markdown":
            el.body = label
    msg.delta.fragment_id = fragment
    msg.metadata.cacheable = cacheable
    msg.hash = f"h{path}" if cacheable else ""
    return msg


def test_the_page_keeps_what_a_run_drew_and_the_values_of_the_widgets_on_it():
    page = cp.Page()
    for m in (_delta([0, 0], "markdown", "**PRIVATE release**: old"), _delta([1, 0], "checkbox", "type epsilon", "w1"),
              _delta([1, 1], "number_input", "epsilon", "w2"), _delta([0, 1], "markdown", "gone next run")):
        page.take(m)
    page.finish(ForwardMsg.ScriptFinishedStatus.FINISHED_SUCCESSFULLY, "")
    page.states = {"w1": cp.widget_state("w1", "bool_value", True), "w2": cp.widget_state("w2", "double_value", 1.0)}
    assert page.widget("type eps", "checkbox")[0] == "w1" and page.text_with("PRIVATE") == "**PRIVATE release**: old"
    for m in (_delta([0, 0], "markdown", "**PRIVATE release**: new"), _delta([1, 0], "checkbox", "type epsilon", "w1")):
        page.take(m)
    page.finish(ForwardMsg.ScriptFinishedStatus.FINISHED_SUCCESSFULLY, "")
    assert page.texts() == ["**PRIVATE release**: new"] and set(page.states) == {"w1"}   # w2 went with its widget
    with pytest.raises(KeyError):
        page.widget("epsilon", "number_input")


def test_a_fragment_run_replaces_its_own_elements_and_a_kept_message_is_read_back():
    page = cp.Page()
    big = _delta([0, 2], "markdown", "map", fragment="frag", cacheable=True)
    for m in (_delta([0, 0], "markdown", "outside"), big, _delta([0, 3], "markdown", "old answer", fragment="frag")):
        page.take(m)
    page.finish(ForwardMsg.ScriptFinishedStatus.FINISHED_SUCCESSFULLY, "")
    assert big.hash in page.cache
    ref = ForwardMsg()
    ref.ref_hash = big.hash
    ref.metadata.delta_path.extend([0, 2])
    page.take(ref)                                  # the server names a message the client keeps
    page.finish(ForwardMsg.ScriptFinishedStatus.FINISHED_FRAGMENT_RUN_SUCCESSFULLY, "frag")
    assert page.texts() == ["outside", "map"]       # the fragment's answer not drawn again: gone; the rest stays


def test_the_client_talks_to_this_machine_only():
    assert cp.check_loopback("http://127.0.0.1:8501/") == "http://127.0.0.1:8501"
    with pytest.raises(ValueError, match="this machine"):
        cp.check_loopback("http://example.org:8501")
