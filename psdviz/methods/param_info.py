"""Each spatial method's parameter declarations (:class:`psdviz.core.params.Param`), read from the
engine itself: name, kind and default from the builder's keyword signature, meaning, paper section
and range from :mod:`.declarations`, choices from the very tuples the builders validate against
(:data:`psdviz.core.budget.PLANS`, :data:`psdviz.splits.medians.MEDIAN_METHODS`,
:data:`psdviz.methods.htree.VARIANTS`, :data:`psdviz.methods.early_stop.PRUNINGS`).

:func:`suggested_value` is the value to prefill when a user switches an unset (None) parameter on:
the engine's effective default where it does not depend on the data (hybrid ``switch`` = height // 4),
the kd family's pruning threshold for ``prune``, and None where the engine derives the value from the
(private) data.
"""
from __future__ import annotations

import dataclasses

from ..core.budget import PLANS
from ..core.params import Param, coerce_all, parameters_section
from ..splits.medians import MEDIAN_METHODS
from .declarations import doc_for
from .early_stop import PRUNINGS
from .htree import VARIANTS
from .hybrid import default_switch
from .kdtree import DEFAULT_PRUNE
from .registry import keyword_parameters, summary

CHOICES: dict[str, tuple[str, ...]] = {"budget": PLANS, "median": MEDIAN_METHODS, "variant": VARIANTS,
                                      "pruning": PRUNINGS}


ParamInfo = Param   # the name the app and older code import


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


def parameter_info(method: str) -> dict[str, Param]:
    """name -> :class:`~psdviz.core.params.Param` for every keyword parameter of ``method``'s builder,
    in signature order (``pv.method_parameters``)."""
    out = {}
    for p in keyword_parameters(method):
        n, names = p.name, _type_names(p.annotation)
        out[n] = dataclasses.replace(doc_for(method, n), name=n, kind=_kind(n, names), default=p.default,
                                     optional="None" in names or p.default is None, choices=CHOICES.get(n, ()))
    return out


def method_help(method: str) -> str:
    """What ``method`` does (its builder's docstring) and its parameter declarations as a numpydoc
    "Parameters" section: ``print(pv.method_help("kdtree"))``; docs/api.md is made of these."""
    return f"{summary(method)}\n\n{parameters_section(parameter_info(method))}"


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
    refused with the method's parameter list, and every value must be of its declared kind and in its
    declared range (:meth:`psdviz.core.params.Param.coerce`), each error naming the parameter."""
    return coerce_all(method, parameter_info(method), params)
