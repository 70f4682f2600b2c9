"""What each method parameter accepts, read from the engine itself (for forms, docs and checks).

:func:`parameter_info` describes every keyword parameter of a method's builder:

- ``kind``: "bool", "int", "float", "choice" or "str", from the builder's type annotation;
- ``optional``: the parameter accepts None (its annotation says ``| None``);
- ``choices``: for string parameters with a fixed set of values, the very tuples the builders
  validate against (:data:`psdviz.core.budget.PLANS`, :data:`psdviz.splits.medians.MEDIAN_METHODS`,
  :data:`psdviz.methods.htree.VARIANTS`), so a form built from this cannot drift from the engine;
- ``suggested``: the value to prefill when the user switches an unset (None) parameter on:
  the engine's own effective default where it does not depend on the data (hybrid
  ``switch`` = height // 4 for a given height, hybrid.py), the kd family's pruning threshold for ``prune``,
  and None where the engine derives the value from the (private) data (grid sizes from N): a
  caller may then use the value a previous release published in its parameters.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass

from ..core.budget import PLANS
from .htree import VARIANTS
from .hybrid import default_switch
from .kdtree import DEFAULT_PRUNE, PRUNINGS
from ..splits.medians import MEDIAN_METHODS
from ..core.validation import coerce_param
from .registry import check_params, get_builder

CHOICES: dict[str, tuple[str, ...]] = {"budget": PLANS, "median": MEDIAN_METHODS, "variant": VARIANTS,
                                      "pruning": PRUNINGS}


@dataclass(frozen=True)
class ParamInfo:
    name: str
    default: object
    kind: str
    optional: bool
    choices: tuple[str, ...] = ()


def _type_names(annotation) -> set[str]:
    text = annotation.__name__ if isinstance(annotation, type) else str(annotation)
    return {t.strip() for t in text.split("|")}


def _kind(name: str, names: set[str]) -> str:
    if "bool" in names:
        return "bool"
    if name in CHOICES:
        return "choice"
    for k in ("int", "float", "str"):
        if k in names:
            return k
    raise ValueError(f"parameter {name!r} has no supported type annotation (got {sorted(names)})")


def parameter_info(method: str) -> dict[str, ParamInfo]:
    """name -> :class:`ParamInfo` for every keyword parameter of ``method``'s builder, in order."""
    sig = inspect.signature(get_builder(method))
    out = {}
    for n, p in sig.parameters.items():
        if p.kind is not inspect.Parameter.KEYWORD_ONLY:
            continue
        names = _type_names(p.annotation)
        out[n] = ParamInfo(n, p.default, _kind(n, names), "None" in names or p.default is None, CHOICES.get(n, ()))
    return out


def parameter_choices(method: str) -> dict[str, tuple[str, ...]]:
    """The fixed value sets of ``method``'s string parameters (e.g. {"budget": PLANS, ...})."""
    return {n: i.choices for n, i in parameter_info(method).items() if i.choices}


def suggested_value(method: str, name: str, values: dict | None = None):
    """Value to prefill for ``name`` when it is unset; ``values`` = the other parameters chosen so far.

    Returns None when the engine derives the value from the data (e.g. ``grid_size``, ``m1``,
    ``size`` from a noisy N, ``n_public``).
    """
    values = values or {}
    info = parameter_info(method)
    if name not in info:
        raise ValueError(f"method {method!r} has no parameter {name!r}; its parameters are {sorted(info)}")
    if name == "switch":   # height // 4 when the height is set; from N (the data) when it is not
        height = values.get("height", info["height"].default)
        return default_switch(height) if height is not None else None
    if name == "prune":
        return DEFAULT_PRUNE
    return info[name].default


def coerce_params(method: str, params: dict) -> dict:
    """The one validation path for method parameters (before any work starts): unknown names are
    refused with the method's parameter list, and every value must be of its parameter's kind
    (:func:`psdviz.core.validation.coerce_param`: Python and numpy numbers accepted, strings, bools
    where numbers are expected, None where not optional refused, each with the parameter named)."""
    check_params(method, params)
    info = parameter_info(method)
    return {n: coerce_param(n, v, info[n].kind, info[n].optional, info[n].choices) for n, v in params.items()}
