"""The how-to guides' Python examples that need no cluster and no external file run as written."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

HOW_TO = Path(__file__).resolve().parents[1] / "docs" / "how-to"


@pytest.mark.parametrize("page", ["regions.md", "workloads.md", "user-level-privacy.md", "counts-over-time.md"])
def test_the_guides_python_runs(page, tmp_path):
    pytest.importorskip("geopandas")
    blocks = re.findall(r"```python\n(.*?)```", (HOW_TO / page).read_text(), re.S)
    assert blocks
    for code in blocks:
        done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"{page}:\n{code}\n{done.stderr[-2000:]}"


def test_every_guide_is_linked_from_the_docs_index():
    index = (HOW_TO.parent / "README.md").read_text()
    assert all(f"how-to/{p.name}" in index for p in HOW_TO.glob("*.md"))
