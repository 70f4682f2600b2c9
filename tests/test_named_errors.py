"""A promise kept by construction: no module of psdviz raises a plain ``ValueError`` or ``TypeError``
except the sites listed here, each with its reason. A caller's mistake is one of psdviz.errors' named
types (docs/decisions/named-errors.md); a check that only a bug in psdviz can trip is listed in
:data:`INTERNAL`."""
from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[1] / "psdviz"
PLAIN = {"ValueError", "TypeError"}

# (module, function): why a plain ValueError / TypeError is right there.
INTERNAL = {
    ("coco/consistency.py", "top_down"): "the levels' estimates come from publish(), which checks the table",
    ("coco/rounding.py", "project_simplex"): "its rows come from coco's own estimates, never from a caller",
    ("coco/rounding.py", "largest_remainders"): "its rows come from project_simplex, never from a caller",
    ("core/expmech.py", "segment_gumbel_argmax"): "scores and segments are built by the split code",
    ("core/lattice.py", "dyadic"): "the weights come from the strategy optimiser",
    ("core/lattice.py", "_integers"): "called on the lattice's own integer arrays",
    ("core/ledger.py", "Ledger.check_parallel"): "a method's composition claim; a damaged file trips it and its "
                                                 "reader raises ReleaseFileError",
    ("core/noise.py", "_alpha"): "sensitivities are constants of the mechanisms",
    ("core/params.py", "declared_type"): "a parameter's declaration (psdviz's or a plug-in's), checked when read",
    ("core/params.py", "declared"): "a parameter's declaration (psdviz's or a plug-in's), checked when read",
    ("core/workload.py", "region_layer"): "psdviz.regions registers the reader when psdviz is imported",
    ("inference/ols.py", "_check"): "the tree and budgets come from the methods that use OLS",
    ("inference/pidentity.py", "PIdentity.integer_weights"): "the strategy method puts it on the lattice first",
    ("inference/tree_gls.py", "gls_plan"): "every method that asks for GLS measures its leaves",
    ("io/samples.py", "register_sample"): "samples are registered by psdviz's own modules at import",
    ("kernel/freeze.py", "FrozenDict._refuse"): "changing a built release's dict: TypeError, as Python's "
                                                "immutable types raise",
    ("methods/declarations.py", "doc_for"): "a method's declaration (psdviz's or a plug-in's), checked at registration",
    ("methods/registry.py", "_declared"): "a plug-in's SPEC, checked at registration",
    ("methods/registry.py", "specs"): "two methods of one name, or a builder unlike its SPEC: checked at registration",
    ("methods/spec.py", "MethodSpec.__post_init__"): "a method's declaration, checked at registration",
    ("publish/factory.py", "check_paths"): "a method's tree against its own ledger; a damaged file trips it and "
                                           "its reader raises ReleaseFileError",
    ("query/pyramid.py", "Pyramid.from_grids"): "the grids come from the query model",
    ("temporal/mechanisms.py", "_tree"): "one L a level and its counts come from build_over_time, never a caller",
    ("ui/outlines.py", "pack"): "the outlines are psdviz's own bundled lon/lat layers",
    ("query/split_index.py", "SplitIndex.__init__"): "the tree comes from a method or a checked file",
    ("query/split_index.py", "_make_level"): "asked only after the tree's shape was found to fit",
    ("regions/layer.py", "_properties"): "caught beside it and raised again as InputDataError naming the file",
    ("regions/layer.py", "_atlas"): "a broken installation (bundled outlines missing), not a caller's input",
    ("splits/imbalance.py", "candidates"): "the kd-privtree builder splits only nodes wider than one step",
    ("splits/quantile.py", "score_sensitivity"): "sensitivities are set by the median methods",
    ("ui/macros.py", "PlainMacro.render"): "a map element used outside a map: the page code's mistake",
}


def plain_raises(source: str) -> list[tuple[str, str, int]]:
    """(function, exception, line) of every ``raise ValueError(...)`` / ``raise TypeError(...)`` (or the bare
    name) in ``source``; the function is dotted through its classes, "" at module level."""
    out: list[tuple[str, str, int]] = []

    def walk(node: ast.AST, where: list[str]) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                walk(child, [*where, child.name])
                continue
            if isinstance(child, ast.Raise) and child.exc is not None:
                exc = child.exc.func if isinstance(child.exc, ast.Call) else child.exc
                if isinstance(exc, ast.Name) and exc.id in PLAIN:
                    out.append((".".join(where), exc.id, child.lineno))
            walk(child, where)

    walk(ast.parse(source), [])
    return out


def unlisted(root: Path = PKG) -> list[str]:
    """Every plain raise under ``root`` that neither list names, as ``module:line function (exception)``."""
    bad = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        for func, name, line in plain_raises(path.read_text()):
            if (rel, func) not in INTERNAL:
                bad.append(f"{rel}:{line} {func or '<module>'} ({name})")
    return bad


def test_no_module_raises_a_plain_value_error_outside_the_lists():
    bad = unlisted()
    assert not bad, ("plain ValueError/TypeError raised: raise the fitting type of psdviz.errors (or list an "
                     f"internal check with its reason): {bad}")


def test_every_listed_internal_site_still_raises_one():
    """The list does not outlive its sites: each entry still names a function that raises a plain one."""
    found = {(p.relative_to(PKG).as_posix(), func) for p in PKG.rglob("*.py")
             for func, _, _ in plain_raises(p.read_text())}
    assert not set(INTERNAL) - found, sorted(set(INTERNAL) - found)


def test_the_scan_finds_a_plain_raise_in_a_toy_module(tmp_path):
    """The scan can fail: a toy package with one plain ValueError in a method and one TypeError at module level
    is caught, a named type and a raise of a caught exception are not."""
    (tmp_path / "toy.py").write_text(
        "from psdviz.errors import ParameterError\n"
        "class Box:\n"
        "    def check(self, x):\n"
        "        if x < 0:\n"
        "            raise ValueError(f'x must be >= 0 (got {x})')\n"
        "        if x > 9:\n"
        "            raise ParameterError('x must be <= 9')\n"
        "        try:\n"
        "            int(x)\n"
        "        except ValueError as exc:\n"
        "            raise exc\n"
        "raise TypeError\n")
    assert unlisted(tmp_path) == ["toy.py:5 Box.check (ValueError)", "toy.py:12 <module> (TypeError)"]
