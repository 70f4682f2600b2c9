"""The API reference (docs/api.md), generated from the engine's own declarations.

Every entry point's docstring and every method's parameter declarations
(:class:`psdviz.core.params.Param`), one table per method and product line. ``psdviz params
--reference`` prints it; a test checks that docs/api.md is this text.
"""
from __future__ import annotations

import dataclasses
import functools
import inspect

from .api import build
from .coco import METHODS as COCO_METHODS
from .coco import method_parameters as coco_parameters
from .coco import publish
from .core.params import Param, parameters_section
from .methods.declarations import BUILD
from .methods.param_info import method_help, parameter_info
from .methods.registry import methods, references, spec_of, summary
from .publish.release_load import load_release
from .sparse import METHODS as SPARSE_METHODS
from .sparse import method_parameters as sparse_parameters
from .sparse import summarize


def _table(declared: dict[str, Param]) -> list[str]:
    if not declared:
        return ["No parameters.", ""]
    rows = ["| parameter | accepts | default | meaning | source |", "|---|---|---|---|---|"]
    for p in declared.values():
        accepts = p.range_text() + (" or None" if p.optional else "")
        meaning = p.meaning + (f" None: {p.when_none}." if p.when_none else "")
        rows.append(f"| `{p.name}` | {accepts} | `{p.default!r}` | {meaning} | {p.paper or 'psdviz'} |")
    return [*rows, ""]


def _entry(title: str, func) -> list[str]:
    sig = str(inspect.signature(func)).replace("'", '"')
    return [f"## {title}", "", f"`{func.__module__.split('.')[0]}.{func.__name__}{sig}`", "", "```text",
            inspect.cleandoc(func.__doc__ or ""), "```", ""]


def _methods(names, declared, doc) -> list[str]:
    out = []
    for m in names:
        out += [f"### `{m}`", ""] + ([inspect.cleandoc(doc(m)), ""] if doc(m) else []) + _table(declared(m))
    return out


def _method_text(method: str) -> str:
    """What a spatial method does (its builder's words), then its spec's facts on one line."""
    spec = spec_of(method)
    facts = [f"From: {spec.paper}." if spec.paper else "psdviz's own method.",
             "The partition reads the data (privately)." if spec.data_dependent else "A fixed, public partition.",
             f"Plans for workloads of {' or '.join(spec.workloads)}." if spec.workloads else ""]
    return f"{summary(method)}\n\n{' '.join(f for f in facts if f)}"


def _first_paragraph(obj) -> str:
    doc = inspect.cleandoc(inspect.getdoc(obj) or "")
    return doc.split("\n\n")[0].replace("\n", " ").strip()


def _signature(obj) -> str:
    try:
        return str(inspect.signature(obj)).replace("'", '"')
    except (TypeError, ValueError):
        return ""


def _members(cls) -> list[str]:
    """A class's fields (a dataclass), public methods and properties, each with the first paragraph of what it
    does."""
    rows = [f"- `{f.name}` (field)" for f in dataclasses.fields(cls) if not f.name.startswith("_")
            ] if dataclasses.is_dataclass(cls) else []
    for name, value in vars(cls).items():
        if name.startswith("_"):
            continue
        if isinstance(value, (property, functools.cached_property)):
            rows.append(f"- `{name}` (property)" + (f": {_first_paragraph(value)}" if _first_paragraph(value) else ""))
        elif inspect.isfunction(value) or isinstance(value, (classmethod, staticmethod)):
            func = value.__func__ if isinstance(value, (classmethod, staticmethod)) else value
            text = _first_paragraph(func)
            rows.append(f"- `{name}{_signature(func)}`" + (f": {text}" if text else ""))
    return rows


def _public() -> list[str]:
    """Every name of ``psdviz.__all__``: its signature and first paragraph, and a class's members."""
    import psdviz
    out = ["## Every public name", "", "Each name `psdviz` exports (`psdviz.__all__`; the errors also as "
           "`psdviz.errors`), with the first paragraph of its docstring; the entries above give the entry points' "
           "whole text.", ""]
    for name in sorted(psdviz.__all__, key=str.lower):
        obj = getattr(psdviz, name)
        out += [f"### `psdviz.{name}`", ""]
        if inspect.isclass(obj):
            base = ", ".join(b.__name__ for b in obj.__bases__ if b is not object)
            out += [f"class{f' ({base})' if base else ''}: {_first_paragraph(obj)}", ""]
            out += [*_members(obj), ""] if not issubclass(obj, BaseException) else []
        elif callable(obj):
            out += [f"`psdviz.{name}{_signature(obj)}`", "", _first_paragraph(obj), ""]
        else:
            out += [f"`{type(obj).__name__}` of {len(obj)}: {', '.join(f'`{v}`' for v in obj)}.", ""]
    return [line for line in out if " at 0x" not in line]


def every_method() -> list[str]:
    """The spatial methods and references, then the count-of-counts and sparse methods (``psdviz params``)."""
    return [*methods(), *references(), *COCO_METHODS, *SPARSE_METHODS]


def method_text(method: str) -> str:
    """What ``psdviz params METHOD`` prints: a spatial method's help (:func:`psdviz.method_help`), or a
    count-of-counts or sparse method's parameters in the same numpydoc section, from the same declarations."""
    if method not in methods() + references():
        if method in COCO_METHODS:
            return f"count of counts, method {method!r} (psdviz.coco.publish)\n\n" + parameters_section(
                coco_parameters(method))
        if method in SPARSE_METHODS:
            return f"sparse summary, method {method!r} (psdviz.sparse.summarize)\n\n" + parameters_section(
                sparse_parameters(method))
    return method_help(method)


def reference() -> str:
    """docs/api.md as text."""
    lines = ["# psdviz API reference", "",
             "Generated from the engine's declarations (`psdviz params --reference > docs/api.md`); do not edit "
             "by hand. Each spatial method is declared in its own module (its `SPEC`, docs/how-to/add-a-method.md), "
             "each parameter once and in one style for all three kinds: the signature of the function that takes "
             "it gives its name, type and default, a declaration its meaning, source and range (that `SPEC`, the "
             "shared vocabulary `psdviz/methods/declarations.py`, `psdviz/sparse/api.py`, `psdviz/coco/publish.py`); "
             "validation, `method_parameters`, the app's controls and this page read the same declarations.", ""]
    lines += _entry("Spatial releases", build)
    defaults = inspect.signature(build).parameters
    own = {n: dataclasses.replace(d, name=n, kind="float" if n == "epsilon" else "int", default=defaults[n].default,
                                  optional=n == "seed") for n, d in BUILD.items()}
    lines += ["Inputs of `build` itself:", "", *_table(own)]
    lines += _methods(methods() + references(), parameter_info, _method_text)
    lines += _entry("Opening a release file", load_release)
    lines += _entry("Count of counts", publish) + _methods(COCO_METHODS, coco_parameters, lambda m: "")
    lines += _entry("Sparse summaries", summarize) + _methods(SPARSE_METHODS, sparse_parameters, lambda m: "")
    lines += _public()
    return "\n".join(lines).rstrip() + "\n"
