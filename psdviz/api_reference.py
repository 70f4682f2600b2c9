"""The API reference (docs/api.md), generated from the engine's own declarations.

Every entry point's docstring and every method's parameter declarations
(:class:`psdviz.core.params.Param`), one table per method and product line. ``psdviz params
--reference`` prints it; a test checks that docs/api.md is this text.
"""
from __future__ import annotations

import dataclasses
import inspect

from .api import build
from .coco import METHODS as COCO_METHODS
from .coco import method_parameters as coco_parameters
from .coco import publish
from .core.params import Param
from .methods.declarations import BUILD
from .methods.param_info import parameter_info
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


def reference() -> str:
    """docs/api.md as text."""
    lines = ["# psdviz API reference", "",
             "Generated from the engine's declarations (`psdviz params --reference > docs/api.md`); do not edit "
             "by hand. Each spatial method is declared in its own module (its `SPEC`, docs/how-to/add-a-method.md), "
             "each parameter once (that `SPEC`, the shared vocabulary `psdviz/methods/declarations.py`, "
             "`psdviz/sparse/api.py`, `psdviz/coco/publish.py`); validation, `method_parameters`, the app's controls "
             "and this page read the same declarations.", ""]
    lines += _entry("Spatial releases", build)
    defaults = inspect.signature(build).parameters
    own = {n: dataclasses.replace(d, name=n, kind="float" if n == "epsilon" else "int", default=defaults[n].default,
                                  optional=n == "seed") for n, d in BUILD.items()}
    lines += ["Inputs of `build` itself:", "", *_table(own)]
    lines += _methods(methods() + references(), parameter_info, _method_text)
    lines += _entry("Opening a release file", load_release)
    lines += _entry("Count of counts", publish) + _methods(COCO_METHODS, coco_parameters, lambda m: "")
    lines += _entry("Sparse summaries", summarize) + _methods(SPARSE_METHODS, sparse_parameters, lambda m: "")
    return "\n".join(lines).rstrip() + "\n"
