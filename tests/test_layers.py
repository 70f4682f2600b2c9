"""The layer rule of docs/design.md, read from every engine module's imports.

A module may import its own package and packages of a strictly lower rank; nothing in the engine
imports streamlit or folium; every sub-package's ``__init__`` says what lives there and what it may
import; every engine module is used by the product (not by the tests alone).
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "psdviz"
ROOT = PKG.parent

# lower rank = lower layer (the data flow of docs/design.md: points -> counts -> structure -> noise ->
# inference -> release -> query); top-level modules (api, __init__) sit between the engine and the lab
RANK = {"core": 0, "splits": 1, "inference": 1, "query": 1, "kernel": 1, "publish": 2, "io": 3, "sources": 3,
        "methods": 4, "coco": 4, "sparse": 4, "regions": 4, "temporal": 4, "<top>": 5, "lab": 6, "cli": 6, "ui": 7}
UI_LIBS = {"streamlit", "folium", "streamlit_folium", "plotly"}


def engine_modules() -> list[Path]:
    return sorted(p for p in PKG.rglob("*.py") if "static" not in p.parts)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer(module: str) -> str:
    parts = module.split(".")
    if len(parts) == 1 or (len(parts) == 2 and parts[1] not in RANK):
        return "<top>"
    return parts[1]


def imports_of(path: Path) -> list[str]:
    """Absolute names of everything a module imports (relative imports resolved; lazy ones too)."""
    tree = ast.parse(path.read_text())
    is_pkg = path.name == "__init__.py"
    here = module_name(path).split(".")
    package = here if is_pkg else here[:-1]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            out.append(mod)
            # `from pkg import sub` imports the sub-module: count it as such
            out += [f"{mod}.{a.name}" for a in node.names if (ROOT / (mod + "." + a.name).replace(".", "/")).exists()
                    or (ROOT / ((mod + "." + a.name).replace(".", "/") + ".py")).exists()]
    return out


def test_every_module_sits_in_a_known_layer():
    unknown = {module_name(p) for p in engine_modules() if layer(module_name(p)) not in RANK}
    assert not unknown


@pytest.mark.parametrize("path", engine_modules(), ids=lambda p: str(p.relative_to(PKG)))
def test_no_import_runs_upward(path: Path):
    me = module_name(path)
    mine = layer(me)
    bad = []
    for imp in imports_of(path):
        if imp.split(".")[0] in UI_LIBS and mine != "ui":
            bad.append(f"{imp} (UI library in the engine)")
        if not imp.startswith("psdviz"):
            continue
        theirs = layer(imp)
        if imp == "psdviz":          # `from psdviz import X`: the public surface, rank of the top level
            theirs = "<top>"
        if theirs != mine and RANK[theirs] >= RANK[mine]:
            bad.append(f"{imp} ({theirs}, rank {RANK[theirs]}) from {mine} (rank {RANK[mine]})")
    assert not bad, f"{me} imports upward: {bad}"


MAP_LOADERS = {"maps", "ui"}     # the modules that may load a map or UI library by name (psdviz/maps.py, the pages)


def loads_by_name(path: Path) -> list[str]:
    """The UI libraries a module loads by name: ``require("folium", ...)`` or ``importlib.import_module("folium")``,
    which the import scan above cannot see."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str) and node.args[0].value.split(".")[0] in UI_LIBS
                and getattr(node.func, "attr", getattr(node.func, "id", "")) in ("require", "import_module")):
            out.append(node.args[0].value)
    return out


@pytest.mark.parametrize("path", engine_modules(), ids=lambda p: str(p.relative_to(PKG)))
def test_only_the_maps_module_and_the_pages_load_a_map_library(path: Path):
    """folium is loaded (when called) by psdviz/maps.py alone outside the pages: the engine writes no map."""
    where = module_name(path).split(".")
    if (where[1] if len(where) > 1 else "") in MAP_LOADERS:
        return
    assert not loads_by_name(path), f"{module_name(path)} loads {loads_by_name(path)}: draw maps in psdviz/maps.py"


def test_the_map_library_scan_finds_a_require_of_folium(tmp_path):
    """The scan can fail: a toy module loading folium through require is caught, one loading geopandas is not."""
    toy = tmp_path / "toy.py"
    toy.write_text("from psdviz.core.optional import require\n"
                   "def draw():\n    folium = require('folium', 'draw')\n    gpd = require('geopandas', 'draw')\n")
    assert loads_by_name(toy) == ["folium"]


def test_every_subpackage_states_its_contents_and_allowed_imports():
    for init in PKG.rglob("__init__.py"):
        if init.parent == PKG or "static" in init.parts:
            continue
        doc = ast.get_docstring(ast.parse(init.read_text())) or ""
        assert "import" in doc.lower(), f"{init.relative_to(ROOT)}: docstring must say what it may import"
def test_no_engine_module_is_used_by_tests_alone():
    """Every module is imported by another module of the product (engine, app, benchmarks)."""
    used = set()
    for path in engine_modules() + [ROOT / "app.py"] + sorted((ROOT / "benchmarks").glob("*.py")):
        used.update(imports_of(path) if path.is_relative_to(PKG) else _absolute_imports(path))
    used |= {".".join(u.split(".")[:k]) for u in list(used) for k in range(1, u.count(".") + 2)}
    scripts = (ROOT / "pyproject.toml").read_text()        # console scripts (psdviz.cli:main) are product code
    used |= {m for m in (module_name(p) for p in engine_modules()) if f'"{m}:' in scripts}
    unused = [module_name(p) for p in engine_modules()
              if p.name not in ("__init__.py", "__main__.py") and module_name(p) not in used
              and not _declares_a_method(p) and "ui" not in p.parts]
    pages = (ROOT / "app.py").read_text()
    unused = [m for m in unused if m.split(".")[-1] not in pages]
    assert not unused, f"modules no product code imports: {unused}"


def _declares_a_method(path: Path) -> bool:
    """A method module of psdviz/methods (it declares ``SPEC`` or ``SPECS``): the registry finds and imports it."""
    if path.parent != PKG / "methods":
        return False
    return any(isinstance(n, ast.Assign) and any(getattr(t, "id", "") in ("SPEC", "SPECS") for t in n.targets)
               for n in ast.parse(path.read_text()).body)


def _absolute_imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.append(node.module)
            out += [f"{node.module}.{a.name}" for a in node.names]
    return out


FACES = {"psdviz.regions", "psdviz.coco", "psdviz.sparse", "psdviz.temporal"}     # the product packages' public faces
TOP_MODULES = {module_name(p) for p in PKG.glob("*.py") if p.name != "__init__.py"}


def _engine_imports(path: Path) -> set[str]:
    names = imports_of(path) if path.is_relative_to(PKG) else _absolute_imports(path)
    return {n for n in names if n.startswith("psdviz")}


def _ui_may(name: str) -> bool:
    return (name in {"psdviz", "psdviz.present", "psdviz.errors"} | FACES      # errors: the types a page catches
            or name.startswith(("psdviz.ui", "psdviz.lab")))


def _cli_may(name: str) -> bool:
    return name == "psdviz" or name in TOP_MODULES | FACES or name.startswith("psdviz.sources")


@pytest.mark.parametrize("path", sorted((PKG / "ui").glob("*.py")) + [ROOT / "app.py"],
                         ids=lambda p: p.name)
def test_the_ui_reaches_the_engine_through_the_api_and_the_presentation_layer(path: Path):
    """The pages import ``psdviz`` (the public API), ``psdviz.present`` (cells to draw, rasters, colour
    classes, the words about methods), the product packages' faces and the lab; never an engine module."""
    bad = sorted(n for n in _engine_imports(path) if not _ui_may(n))
    assert not bad, f"{path.name} imports engine modules directly: {bad} (name them in psdviz/present.py)"


@pytest.mark.parametrize("path", sorted((PKG / "cli").glob("*.py")), ids=lambda p: p.name)
def test_the_cli_reaches_the_engine_through_the_api_and_its_sources(path: Path):
    """The command modules import ``psdviz`` (the public API), its top-level modules, the product packages' faces,
    the sources (files, clusters) and each other; never an engine module."""
    bad = sorted(n for n in _engine_imports(path) if not (_cli_may(n) or n.startswith("psdviz.cli")))
    assert not bad, f"cli/{path.name} imports engine modules directly: {bad}"


PACKAGE_WORDS = re.compile(r"\b(core|splits|inference|query|kernel|publish|io|sources|methods|coco|sparse|regions|"
                           r"temporal|lab|ui)\b")


def _declared_imports(doc: str) -> set[str] | None:
    """The packages a sub-package's docstring says it may import (None: anything), from its sentence
    "May import X, Y and Z" (up to its first full stop or semicolon)."""
    found = re.search(r"may import (.*?)(?:[.;]\s|[.;]$)", doc.replace("\n", " "), re.IGNORECASE)
    assert found, "the docstring must say what the package may import: 'May import psdviz.core and io.'"
    said = found.group(1)
    if "anything" in said:
        return None
    return set() if said.strip().startswith("nothing") else set(PACKAGE_WORDS.findall(said))


@pytest.mark.parametrize("init", sorted(p for p in PKG.glob("*/__init__.py") if "static" not in p.parts),
                         ids=lambda p: p.parent.name)
def test_each_package_imports_only_what_its_docstring_allows(init: Path):
    package = init.parent.name
    allowed = _declared_imports(ast.get_docstring(ast.parse(init.read_text())) or "")
    if allowed is None:
        return
    used = {layer(n) for p in init.parent.rglob("*.py") for n in imports_of(p)
            if n.startswith("psdviz.") and layer(n) not in (package, "<top>")}
    assert used <= allowed, f"psdviz.{package} imports {sorted(used - allowed)}, which its docstring does not allow"


def test_no_import_cycles():
    """No module reaches itself through the modules it imports (lazy imports included): the package reads
    from the bottom up."""
    names = {module_name(p): p for p in engine_modules()}
    graph = {m: {i for i in imports_of(p) if i in names and i != m and names[i].name != "__init__.py"}
             for m, p in names.items() if names[m].name != "__init__.py"}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(m: str) -> None:                     # Tarjan's strongly connected components
        index[m] = low[m] = len(index)
        stack.append(m)
        for n in graph.get(m, ()):
            if n not in index:
                visit(n)
                low[m] = min(low[m], low[n])
            elif n in stack:
                low[m] = min(low[m], index[n])
        if low[m] == index[m]:
            part = []
            while True:
                n = stack.pop()
                part.append(n)
                if n == m:
                    break
            if len(part) > 1:
                cycles.append(sorted(part))

    for m in graph:
        if m not in index:
            visit(m)
    assert not cycles, f"import cycles: {cycles}"
