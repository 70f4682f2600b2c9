"""Every package the product imports is declared where its route installs it.

The engine (psdviz/ outside ui/) may import at module level only the core dependencies
(``pip install psdviz``); the app (app.py, psdviz/ui/) also what the ``app`` extra installs. Any other
package is imported inside the function that needs it through ``psdviz.core.optional.require``, whose
error names the extra. Test-only packages (scipy's solvers, hypothesis, playwright) appear in tests/ and
benchmarks/ only.
"""
from __future__ import annotations

import ast
import re
import sys
import tomllib
from pathlib import Path

import pytest

from psdviz.core.optional import EXTRAS, MissingExtraError, require

ROOT = Path(__file__).resolve().parent.parent
# distribution name -> import name, where they differ
IMPORT_NAME = {"pillow": "PIL", "streamlit-folium": "streamlit_folium", "pyyaml": "yaml"}


def _names(reqs: list[str]) -> set[str]:
    out = set()
    for r in reqs:
        name = re.split(r"[\[<>=~!; ]", r, maxsplit=1)[0].lower()
        if name != "psdviz":
            out.add(IMPORT_NAME.get(name, name.replace("-", "_")))
    return out


def _declared() -> tuple[set[str], dict[str, set[str]]]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = {k: _names(v) for k, v in project["optional-dependencies"].items()}
    extras["app"] |= extras["geo"]          # app = psdviz[geo] + its own
    return _names(project["dependencies"]), extras


def _imports(source: str) -> list[tuple[str, bool, int]]:
    """(top-level package, imported at module level, line) for every absolute import in ``source``."""
    found = []

    def visit(node: ast.AST, nested: bool) -> None:
        for ch in ast.iter_child_nodes(node):
            if isinstance(ch, ast.Import):
                found.extend((a.name.split(".")[0], not nested, ch.lineno) for a in ch.names)
            elif isinstance(ch, ast.ImportFrom) and ch.level == 0 and ch.module:
                found.append((ch.module.split(".")[0], not nested, ch.lineno))
            visit(ch, nested or isinstance(ch, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))

    visit(ast.parse(source), False)
    own = set(sys.stdlib_module_names) | {"psdviz", "__future__"}
    return [(m, top, ln) for m, top, ln in found if m not in own]


def _product_files() -> list[Path]:
    return sorted((ROOT / "psdviz").rglob("*.py")) + [ROOT / "app.py"]


def _is_app(path: Path) -> bool:
    rel = path.relative_to(ROOT).as_posix()
    return rel == "app.py" or rel.startswith("psdviz/ui/")


def undeclared_imports(files: dict[Path, str] | None = None) -> list[str]:
    """Imports of packages not declared for the file's route; ``files``: path -> source (default: the product)."""
    core, extras = _declared()
    files = files if files is not None else {p: p.read_text() for p in _product_files()}
    bad = []
    for path, source in files.items():
        allowed = core | (extras["app"] if _is_app(path) else set())
        for module, top, line in _imports(source):
            if module in allowed:
                continue
            where = f"{path.relative_to(ROOT)}:{line}: {module}"
            bad.append(where + (" at module level" if top else " imported directly (use core.optional.require)"))
    return bad


def test_every_product_import_is_a_declared_runtime_dependency():
    assert undeclared_imports() == []


def test_the_check_finds_an_undeclared_import():
    """The check is not vacuous: geopandas at the top of an engine module fails it (as scipy once crashed the
    app in a fresh environment, when it was an extra), so does a direct lazy import of an extra's package and
    streamlit in the engine; streamlit in the app passes."""
    files = {ROOT / "psdviz" / "regions" / "probe.py": "import geopandas\n\ndef f():\n    import shapely\n",
             ROOT / "psdviz" / "core" / "probe.py": "import streamlit as st\n",
             ROOT / "psdviz" / "ui" / "probe.py": "import streamlit as st\nimport plotly.express as px\n"}
    assert undeclared_imports(files) == [
        "psdviz/regions/probe.py:1: geopandas at module level",
        "psdviz/regions/probe.py:4: shapely imported directly (use core.optional.require)",
        "psdviz/core/probe.py:1: streamlit at module level"]


def test_every_optional_package_belongs_to_a_declared_extra():
    _, extras = _declared()
    for module, extra in EXTRAS.items():
        assert module in extras[extra], f"{module} is said to come with psdviz[{extra}], which does not declare it"


def test_a_missing_module_is_an_import_error_naming_an_extra():
    with pytest.raises(ImportError, match=r"pip install 'psdviz\[all\]'"):      # MissingExtraError is one
        require("definitely_not_a_module_psdviz")


def test_missing_extra_message_names_the_extra(monkeypatch):
    import importlib

    def fail(name):
        raise ModuleNotFoundError(f"No module named {name!r}", name=name)

    monkeypatch.setattr(importlib, "import_module", fail)
    with pytest.raises(MissingExtraError, match=r"shapely is needed for region layers.*psdviz\[geo\]"):
        require("shapely", "region layers")
    with pytest.raises(MissingExtraError, match=r"psdviz\[spark\]"):
        require("pyspark.sql", "--spark")


def test_release_geometry_is_what_shapely_writes():
    """Release files write their cells' WKB without shapely (core install), byte for byte as shapely would."""
    import numpy as np
    import shapely

    from psdviz.publish.release_file import box_wkb
    r = np.random.default_rng(0).random((50, 4))
    r[:, 2:] += r[:, :2]
    assert box_wkb(r).to_pylist() == list(shapely.to_wkb(shapely.box(*r.T)))
