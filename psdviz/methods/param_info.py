"""Each spatial method's parameter declarations (:class:`psdviz.core.params.Param`), read from the
engine itself: name, type and default from the builder's keyword signature (choices from its
``Literal[...]`` annotations, shares from :data:`psdviz.core.params.Share`), meaning, paper section and
range from the method's spec (:mod:`.spec`) or the shared vocabulary (:mod:`.declarations`).

:func:`suggested_value` is the value to prefill when a user switches an unset (None) parameter on:
what the method's spec suggests from the values chosen so far (hybrid ``switch`` = height // 4), and
None where the engine derives the value from the (private) data.
"""
from __future__ import annotations

from ..core.errors import ParameterError
from ..core.params import Param, coerce_all, declared, parameters_section
from .declarations import doc_for
from .registry import get_builder, keyword_parameters, spec_of, summary

ParamInfo = Param   # the name the app and older code import


def parameter_info(method: str) -> dict[str, Param]:
    """name -> :class:`~psdviz.core.params.Param` for every keyword parameter of ``method``'s builder,
    in signature order (``pv.method_parameters``): :func:`psdviz.core.params.declared` over the builder and
    its declarations, as count-of-counts and sparse summaries declare theirs."""
    spec = spec_of(method)
    names = [p.name for p in keyword_parameters(method)]
    return declared(get_builder(method), {n: doc_for(spec, n) for n in names}, names, method)


def method_help(method: str) -> str:
    """What ``method`` does (its builder's docstring) and its parameter declarations as a numpydoc
    "Parameters" section: ``print(pv.method_help("kdtree"))``; docs/api.md is made of these."""
    return f"{summary(method)}\n\n{parameters_section(parameter_info(method))}"


def documented_builder(method: str):
    """The builder of ``method`` (``pv.builder``), its docstring ending with the method's declared parameters
    as a numpydoc section (``help()``), made from the same declarations as validation and the app's controls."""
    builder = get_builder(method)
    if getattr(builder, "__psdviz_help__", None) != method:
        builder.__doc__ = method_help(method)
        builder.__psdviz_help__ = method  # type: ignore[attr-defined]  # marks the docstring as written
    return builder


def suggested_value(method: str, name: str, values: dict | None = None):
    """Value to prefill for ``name`` when it is unset; ``values`` = the other parameters chosen so far.

    Returns None when the engine derives the value from the data (e.g. ``grid_size``, ``m1``,
    ``size`` from a noisy N, ``n_public``).
    """
    values = values or {}
    info = parameter_info(method)
    if name not in info:
        raise ParameterError(f"method {method!r} has no parameter {name!r}; its parameters are {sorted(info)}")
    suggest = spec_of(method).suggest.get(name)
    return suggest(values) if suggest is not None else info[name].default


def coerce_params(method: str, params: dict) -> dict:
    """The one validation path for method parameters (before any work starts): unknown names are
    refused with the method's parameter list, and every value must be of its declared kind and in its
    declared range (:meth:`psdviz.core.params.Param.coerce`), each error naming the parameter."""
    return coerce_all(method, parameter_info(method), params)
