"""The map page's build progress bar when it shows (forced here with a zero delay): a build
and a rerun served from the release cache both run without error (Streamlit forbids cached functions
to write to outside elements, so builds are cached outside st.cache)."""
from streamlit.testing.v1 import AppTest
from test_app_page import SCRIPT


def test_map_build_and_rerun_with_the_progress_bar_shown():
    script = ("from psdviz.ui import cache\n"
              "cache.ProgressBar.__init__.__defaults__ = (0.0, cache.time.monotonic, ())\n" + SCRIPT)
    at = AppTest.from_string(script, default_timeout=120).run()
    n1 = at.session_state["map_calls"]
    assert not at.exception and not at.error
    at.run()
    assert not at.exception and not at.error and at.session_state["map_calls"] > n1
    assert any("PRIVATE release" in m.value for m in at.markdown)


def test_a_staged_bar_names_its_step_and_the_engines_passes():
    """Work of several stages (the Regions page's planned release) shows "Step i of n: what" with the engine's
    passes inside the step, and the bar's share moves through the stages; nothing is shown before the delay."""
    from psdviz.ui.cache import ProgressBar

    class Slot:
        def __init__(self):
            self.shown: list[tuple[float, str]] = []

        def progress(self, share, text=""):
            self.shown.append((share, text))

        def empty(self):
            self.shown.append((-1.0, ""))

    now = [0.0]
    bar = ProgressBar(delay=1.0, clock=lambda: now[0], stages=("planning and measuring", "answering every region"))
    bar.slot = Slot()
    bar.stage(0)
    bar(2, 11, "quadtree levels")
    assert bar.slot.shown == [] and not bar.shown             # quick work: no bar
    now[0] = 1.5
    bar(4, 11, "quadtree levels")
    bar.stage(1)
    assert bar.slot.shown == [(4 / 11 / 2, "Step 1 of 2: planning and measuring (quadtree levels: 4 of 11)"),
                              (0.5, "Step 2 of 2: answering every region")]
    bar.clear()
    assert bar.slot.shown[-1] == (-1.0, "")
