"""The fast lane: ``pytest -m "not slow and not browser"`` (docs/development.md). Files whose tests repeat a
mechanism many times (privacy audits: D against D' over many runs; variance against simulation), start a
cluster engine (Spark, Dask) or read every bundled layer cell by cell are marked ``slow`` here, in one place,
so the fast lane stays a quick check while the full suite (the README's test command) runs everything. The
full suite's files run longest first (``LONGEST_FIRST``) so that its two workers finish together."""
from __future__ import annotations

from pathlib import Path

import pytest

from psdviz.core.source import KeySource

SLOW_FILES = {
    "privacy",                                  # D vs D' audits and ratio tests: many runs a side
    "sources",                                  # Spark sessions, Dask clusters, every source against every method
    "test_planner.py",                          # planned standard errors against 1,000 releases
    "test_workload_regions.py",                 # the planned count's law against simulation
    "test_compare.py",                          # lab comparisons over trials
    "test_odd_parameters.py",                   # every method at extreme parameter values
    "test_raster.py",                           # the bundled layers' rasters cell by cell
    "test_budget_file.py",                      # processes drawing from one budget at once
    "test_cli.py",                              # the command line end to end (Dask cluster included)
    "test_ui_compare.py",                       # the Compare page's presets
    "test_classroom_cache.py",                  # threads held on purpose
    "test_ui_regions.py",                       # the Regions page on every bundled layer
    "test_app_polish.py",                       # every page's details
    "test_ui_sparse.py",                        # the Sparse page's summaries
    "test_regions_cli.py",                      # region releases from the command line
    "test_app_state.py",                        # state across pages (three page runs a test)
    "test_sample_points.py",                    # the notebook example in a subprocess
    "test_types.py",                            # mypy over the package
    "test_tutorial.py",                         # the tutorial's commands, end to end
    "test_how_to.py",                           # the guides' examples (the US counties)
    "test_add_a_method.py",                     # a plug-in installed, then the CLI in subprocesses
    "test_release_page_regions.py",             # every region of a layer answered from a release
    "test_hostile_corpus.py",                   # some 900 hostile files replayed
}


# The README's command runs whole files in two workers (``-n 2 --dist loadfile``); a worker takes the next file
# when it is nearly done, so a long file taken last sets the wall time while the other worker idles. These files
# run first, the longest first (measured in the full suite: mypy, the browser, Spark, the D vs D' audits), and
# the many short files fill both workers at the end. Their tests keep their order within each file.
LONGEST_FIRST = (
    "test_types.py", "test_app_browser_regions.py", "test_spark.py", "test_app_browser_lab.py",
    "test_auto_facts_audit.py", "test_every_method_audit.py", "test_app_browser_uploads.py", "test_grid_audit.py",
    "test_user_level.py", "test_app_browser.py", "test_app_browser_state.py", "test_app_browser_first_screen.py",
    "test_app_browser_release.py", "test_app_browser_pale.py", "test_app_browser_time.py", "test_jobs.py",
    "test_ui_regions.py", "test_same_release.py", "test_raster.py", "test_time_audit.py", "test_lines_audit.py",
    "test_strategy_audit.py", "test_planner.py", "test_spark_cli.py", "test_how_to.py", "test_strategy.py",
)


def pytest_configure(config) -> None:
    if hasattr(config.option, "loadscopereorder"):     # xdist would order the files by their number of tests
        config.option.loadscopereorder = False


def pytest_collection_modifyitems(items) -> None:
    for item in items:
        parts = Path(str(item.fspath)).parts
        if SLOW_FILES & set(parts):
            item.add_marker(pytest.mark.slow)
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(Path(str(item.fspath)).name, len(rank)))   # stable: file order kept


class PassByPass(KeySource):
    """A source read one grouped pass at a time, as files are: the data of ``inner``, nothing held in memory
    (the path a method takes when :meth:`~psdviz.core.source.KeySource.held` is None)."""

    def __init__(self, inner: KeySource):
        self.inner, self.grid = inner, inner.grid

    def grouped(self, keyer):
        return self.inner.grouped(keyer)


@pytest.fixture
def pass_by_pass():
    """Wraps a source so that methods read it pass by pass (:class:`PassByPass`)."""
    return PassByPass
