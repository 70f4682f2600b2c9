"""The spatial methods: found, not listed.

Every module of this package that declares ``SPEC`` (or ``SPECS``, a tuple) is a method module
(:class:`.spec.MethodSpec`); installed plug-ins add theirs through the ``psdviz.methods`` entry-point
group, whose entries name a module that declares ``SPEC`` the same way (docs/how-to/add-a-method.md).
A builder has the signature ``builder(ps, domain, epsilon, rnd, **params) -> Release`` and validates
its own parameters (keyword-only, with the paper's defaults).
"""
from __future__ import annotations

import functools
import importlib
import inspect
import pkgutil
from collections.abc import Callable, Iterable
from importlib.metadata import entry_points
from types import ModuleType

from ..core.errors import ParameterError
from .spec import MethodSpec

ENTRY_POINTS = "psdviz.methods"


def _declared(module: ModuleType) -> Iterable[MethodSpec]:
    specs = getattr(module, "SPECS", None) or ((module.SPEC,) if hasattr(module, "SPEC") else ())
    for spec in specs:
        if not isinstance(spec, MethodSpec):
            raise ValueError(f"{module.__name__}: SPEC must be a psdviz.methods.spec.MethodSpec (got {type(spec)})")
        yield spec


def _modules() -> Iterable[ModuleType]:
    for info in pkgutil.iter_modules(importlib.import_module(__package__).__path__):
        yield importlib.import_module(f"{__package__}.{info.name}")
    for ep in entry_points(group=ENTRY_POINTS):
        try:
            yield importlib.import_module(ep.value.split(":")[0])
        except ImportError as err:
            raise ImportError(f"the psdviz method plug-in {ep.name!r} ({ep.value}) cannot be imported: {err}") from err


@functools.cache
def specs() -> dict[str, MethodSpec]:
    """name -> spec of every method and reference, private methods first, each group by rank then name."""
    found: dict[str, MethodSpec] = {}
    for module in _modules():
        for spec in _declared(module):
            if spec.name in found and found[spec.name] is not spec:
                raise ValueError(f"two methods are called {spec.name!r} ({found[spec.name].builder.__module__} "
                                 f"and {spec.builder.__module__})")
            takes = "workload" in inspect.signature(spec.builder).parameters
            if takes != bool(spec.workloads):
                raise ValueError(f"method {spec.name!r}: its builder {'takes' if takes else 'has no'} workload= "
                                 f"but its spec declares workloads={spec.workloads}")
            found[spec.name] = spec
    ordered = sorted(found.values(), key=lambda s: (not s.private, s.rank, s.name))
    return {s.name: s for s in ordered}


def reload() -> None:
    """Find the methods again (after installing a plug-in in a running process)."""
    specs.cache_clear()


def methods() -> tuple[str, ...]:
    """The private methods (``pv.METHODS``)."""
    return tuple(n for n, s in specs().items() if s.private)


def references() -> tuple[str, ...]:
    """The non-private teaching references (``pv.REFERENCES``): buildable, labelled, never exportable."""
    return tuple(n for n, s in specs().items() if not s.private)


def spec_of(method: str) -> MethodSpec:
    """The spec of ``method``; a ParameterError listing the methods when there is none."""
    table = specs()
    if method not in table:
        raise ParameterError(f"unknown method {method!r}; choose one of {sorted(table)}")
    return table[method]


def get_builder(method: str) -> Callable:
    """The builder of ``method`` (``pv.builder`` adds its declared parameters to its docstring)."""
    return spec_of(method).builder


def summary(method: str) -> str:
    """What ``method``'s builder does, in its own words (its docstring as written, without parameters)."""
    return spec_of(method).summary


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
    return bool(spec_of(method).workloads)
