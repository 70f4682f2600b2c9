"""Method names -> builder functions, imported lazily so that each method stays in its own module.

A builder has the signature ``builder(ps, domain, epsilon, rnd, **params) -> Release`` and
validates its own parameters (keyword-only, with the paper's defaults).
"""
from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable

# name -> "module:function" (relative to psdviz.methods)
_BUILDERS: dict[str, str] = {
    "auto": "auto:build_auto",
    "quadtree": "quadtree:build_quadtree",
    "ug": "ug:build_ug",
    "kdtree": "kdtree:build_kdtree",
    "hybrid": "hybrid:build_hybrid",
    "hilbert": "hilbert:build_hilbert",
    "kd-cell": "kdcell:build_kd_cell",
    "kd-noisymean": "kdtree:build_kd_noisymean",
    "ag": "ag:build_ag",
    "htree": "htree:build_htree",
    "privtree": "privtree:build_privtree",
    "kd-privtree": "kd_privtree:build_kd_privtree",
}

# Non-private references for teaching the cost of privacy: buildable, labelled, never exportable.
_REFERENCES: dict[str, str] = {
    "kd-pure": "kdtree:build_kd_pure",
    "kd-true": "kdtree:build_kd_true",
}


def methods() -> tuple[str, ...]:
    return tuple(_BUILDERS)


def references() -> tuple[str, ...]:
    return tuple(_REFERENCES)


def get_builder(method: str) -> Callable:
    """The builder of ``method``; its docstring (``help()``) ends with the method's declared parameters
    as a numpydoc section, made from the same declarations as validation and the app's controls."""
    table = {**_BUILDERS, **_REFERENCES}
    if method not in table:
        raise ValueError(f"unknown method {method!r}; choose one of {sorted(table)}")
    module, func = table[method].split(":")
    builder = getattr(importlib.import_module(f"psdviz.methods.{module}"), func)
    if not hasattr(builder, "summary"):
        builder.summary = inspect.cleandoc(builder.__doc__ or "")   # what the method does, without parameters
        from .param_info import method_help  # param_info reads this registry: imported when first needed
        builder.__doc__ = method_help(method)
    return builder


def summary(method: str) -> str:
    """What ``method``'s builder does, in its own words (its docstring before the parameters section)."""
    return get_builder(method).summary


# Keyword inputs a builder may take that ``pv.build`` passes itself (not method parameters: no form, no
# ``--param``): the publisher's query workload.
BUILD_INPUTS = ("workload",)


def keyword_parameters(method: str) -> list[inspect.Parameter]:
    """The builder's keyword-only parameters that are method parameters (``BUILD_INPUTS`` aside), in
    signature order."""
    sig = inspect.signature(get_builder(method))
    return [p for n, p in sig.parameters.items()
            if p.kind is inspect.Parameter.KEYWORD_ONLY and n not in BUILD_INPUTS]


def parameters(method: str) -> dict[str, object]:
    """The method's parameters and their defaults (for forms and documentation)."""
    return {p.name: p.default for p in keyword_parameters(method)}


def accepts_workload(method: str) -> bool:
    """Whether ``method`` plans its measurements for a workload (``pv.build(..., workload=...)``)."""
    return "workload" in inspect.signature(get_builder(method)).parameters
