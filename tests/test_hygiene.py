"""The project explains itself: short module docstrings (evidence lives in docs/decisions/), and no
reference to internal work history anywhere a reader of the repository looks."""
from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HISTORY = re.compile(r"session [0-9]|issue [0-9]", re.IGNORECASE)
MAX_MODULE_DOC_LINES = 30


def _project_files():
    for pattern in ("psdviz/**/*.py", "tests/**/*.py", "benchmarks/**/*.py", "docs/**/*.md", "*.md", "*.py",
                    "pyproject.toml"):
        yield from (p for p in ROOT.glob(pattern) if "static" not in p.parts)


def test_no_module_docstring_is_a_lab_notebook():
    long = []
    for path in ROOT.glob("psdviz/**/*.py"):
        doc = ast.get_docstring(ast.parse(path.read_text()), clean=False) or ""
        if doc.count("\n") + 1 > MAX_MODULE_DOC_LINES:
            long.append(f"{path.relative_to(ROOT)}: {doc.count(chr(10)) + 1} lines")
    assert not long, long


def test_no_reference_to_work_history():
    hits = [f"{p.relative_to(ROOT)}:{i}" for p in _project_files()
            for i, line in enumerate(p.read_text().splitlines(), 1) if HISTORY.search(line)]
    assert not hits, hits
