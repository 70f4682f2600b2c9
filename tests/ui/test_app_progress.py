"""The map page's build progress bar when it shows (forced here with a zero delay): a build
and a rerun served from the release cache both run without error (Streamlit forbids cached functions
to write to outside elements, so builds are cached outside st.cache)."""
from streamlit.testing.v1 import AppTest
from test_app_page import SCRIPT


def test_map_build_and_rerun_with_the_progress_bar_shown():
    script = ("from psdviz.ui import cache\n"
              "cache.ProgressBar.__init__.__defaults__ = (0.0, cache.time.monotonic)\n" + SCRIPT)
    at = AppTest.from_string(script, default_timeout=120).run()
    n1 = at.session_state["map_calls"]
    assert not at.exception and not at.error
    at.run()
    assert not at.exception and not at.error and at.session_state["map_calls"] > n1
    assert any("PRIVATE release" in m.value for m in at.markdown)
