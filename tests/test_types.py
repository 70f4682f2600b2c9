"""The package type-checks under the rules of [tool.mypy] in pyproject.toml (about a minute on two cores,
so it runs in the full suite, not the fast lane)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_mypy_is_clean_on_the_package():
    out = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental"], capture_output=True, text=True,
                         cwd=ROOT)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
