"""What a spatial method declares about itself, in the one module that builds it.

Each method module ends with ``SPEC = MethodSpec(...)`` (or ``SPECS = (...)`` when one module builds
several methods); :mod:`.registry` finds them, in this package and in installed plug-ins (the
``psdviz.methods`` entry-point group, docs/how-to/add-a-method.md). Everything else (``pv.METHODS``,
validation, ``pv.method_help``, the app's controls, the CLI's choices, docs/api.md) reads the spec and
the builder's signature: a parameter's name, type and default come from the signature (choices as
``Literal[...]``), its meaning, paper section and range from ``params`` here or from the shared
vocabulary of :mod:`.declarations`.
"""
from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from ..core.params import FRACTION, POSITIVE, Param, doc

__all__ = ["FRACTION", "POSITIVE", "WORKLOAD_KINDS", "MethodSpec", "doc"]   # doc and the ranges: core.params'

WORKLOAD_KINDS = ("rectangles", "regions")


@dataclass(frozen=True)
class MethodSpec:
    """One spatial method, declared once.

    Attributes
    ----------
    name : str
        The method's name (``pv.build(..., method=name)``): lower case, letters, digits and "-".
    builder : callable
        ``builder(ps, domain, epsilon, rnd, *, **params) -> Release``; keyword-only parameters with
        type annotations (``Literal[...]`` for choices) and the paper's defaults. Its docstring says what
        it does, the paper section and the privacy argument.
    paper : str
        Where the method comes from ("ICDE'12 section 8"); empty for psdviz's own methods.
    data_dependent : bool
        Where cells are cut reads the data beyond its size (private splits, or stops on noisy counts); False
        for partitions fixed by public inputs and the (noisy or public) number of points.
    workloads : tuple of str
        The workload kinds the method plans its measurements for ("rectangles", "regions").
    params : mapping
        Declarations (:func:`doc`) of parameters whose meaning is the method's own or differs from the
        shared vocabulary.
    suggest : mapping
        name -> function of the values chosen so far, for parameters whose default is None: the value a
        form prefills when the user switches it on (None where the engine derives it from private data).
    private : bool
        False for the non-private teaching references (never exportable).
    rank : int
        Position in method lists (the app's menu, ``pv.METHODS``); plug-ins come last by default.
    interval_caveat : str
        Where the method's whole 95 % interval is measured to hold the truth less often than it says, and
        why (shown beside its answers); empty when none is known.
    nonnegative : bool
        Whether non-negative least squares over its released counts (``nonnegative=True``) applies: False
        where the released cells are estimated jointly from correlated measurements (the strategy), whose
        non-negative fit needs the measurements themselves.
    """

    name: str
    builder: Callable
    paper: str = ""
    data_dependent: bool = True
    workloads: tuple[str, ...] = ()
    params: Mapping[str, Param] = field(default_factory=dict)
    suggest: Mapping[str, Callable[[dict], object]] = field(default_factory=dict)
    private: bool = True
    rank: int = 1000
    interval_caveat: str = ""
    nonnegative: bool = True
    summary: str = field(init=False)   # what the method does: its builder's docstring as written

    def __post_init__(self) -> None:
        if not self.name or not all(c.isalnum() or c == "-" for c in self.name) or self.name != self.name.lower():
            raise ValueError(f"a method's name is lower-case letters, digits and '-' (got {self.name!r})")
        if not callable(self.builder):
            raise ValueError(f"method {self.name!r}: builder must be a function")
        unknown = set(self.workloads) - set(WORKLOAD_KINDS)
        if unknown:
            raise ValueError(f"method {self.name!r}: workloads must be among {WORKLOAD_KINDS} (got {sorted(unknown)})")
        object.__setattr__(self, "params", MappingProxyType(dict(self.params)))
        object.__setattr__(self, "suggest", MappingProxyType(dict(self.suggest)))
        object.__setattr__(self, "summary", inspect.cleandoc(self.builder.__doc__ or ""))
