"""The examples in the engine's docstrings run (doctest), and the tree is clean under the lint and type
rules configured in pyproject.toml (ruff; mypy in test_types.py)."""
from __future__ import annotations

import doctest
import importlib
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ENGINE = sorted(p for p in (ROOT / "psdviz").rglob("*.py") if "ui" not in p.relative_to(ROOT / "psdviz").parts)


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


WITH_EXAMPLES = [_module(p) for p in ENGINE if ">>>" in p.read_text()]


def test_there_are_examples_to_run():
    assert {"psdviz", "psdviz.coco", "psdviz.sparse"} <= set(WITH_EXAMPLES)


@pytest.mark.parametrize("name", WITH_EXAMPLES)
def test_docstring_examples_run(name):
    module = importlib.import_module(name)
    failed, attempted = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert attempted > 0 and failed == 0, f"{name}: {failed} of {attempted} examples failed"


def test_ruff_is_clean():
    ruff = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    out = subprocess.run([ruff, "check", "--no-cache", str(ROOT)], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
