"""A method parameter, declared once: name, kind, default, range or choices, meaning, paper section.

Every product line (spatial methods, count of counts, sparse summaries) describes its parameters
with :class:`Param`, in one style: the function that takes a parameter gives its name, type and
default in its keyword signature (choices as ``Literal[...]``, shares as :data:`Share`), and a
declaration (:func:`doc`) gives the rest; :func:`declared` joins the two. Validation
(:meth:`Param.coerce`), ``method_parameters``, the app's controls and help texts, builders' ``help()``
and the generated ``docs/api.md`` all read these objects, so a parameter's meaning, default and limits
cannot drift between them.
"""
from __future__ import annotations

import dataclasses
import inspect
import math
import types
import typing
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Annotated

from .errors import ParameterError
from .validation import coerce_param

SHARE = "share"
Share = Annotated[float, SHARE]   # a builder's annotation for a share (of epsilon, of the points) in (0, 1)


@dataclass(frozen=True)
class Param:
    """One parameter of one method.

    Attributes
    ----------
    name, kind : str
        The keyword and its kind: "bool", "int", "float", "choice" or "str".
    default : object
        The value used when the caller gives none (the paper's, unless ``meaning`` says otherwise).
    meaning : str
        One line for a reader who knows the paper's vocabulary, not this code.
    paper : str
        Where the parameter comes from ("ICDE'12 section 6.2"); empty for psdviz's own parameters.
    optional : bool
        None is accepted (and means what ``meaning`` says).
    choices : tuple of str
        The accepted values of a "choice" parameter.
    low, high : float or None
        Inclusive numeric bounds; ``open_low`` / ``open_high`` make them exclusive.
    label : str
        A short label for a form (the name when empty).
    when_none : str
        What None means, in a few words ("no pruning"), for optional parameters.
    share : bool
        A share of something (annotated :data:`Share` in the builder): a form offers a slider.
    public_fact : bool
        Setting it publishes a fact about the data (e.g. the number of points declared public): a form
        never prefills it, the user types it.
    """

    name: str
    kind: str
    default: object
    meaning: str
    paper: str = ""
    optional: bool = False
    choices: tuple[str, ...] = ()
    low: float | None = None
    high: float | None = None
    open_low: bool = False
    open_high: bool = False
    label: str = ""
    when_none: str = ""
    share: bool = False
    public_fact: bool = False

    def coerce(self, value):
        """``value`` as this parameter's plain Python value, or a ValueError naming the parameter and
        what it accepts (kind, then range)."""
        value = coerce_param(self.name, value, self.kind, self.optional, self.choices)
        if value is None or self.kind not in ("int", "float"):
            return value
        if not math.isfinite(value) or not self._in_range(value):
            raise ParameterError(f"{self.name} must be {self.range_text()} (got {value!r})")
        return value

    def _in_range(self, v: float) -> bool:
        low_ok = self.low is None or (v > self.low if self.open_low else v >= self.low)
        high_ok = self.high is None or (v < self.high if self.open_high else v <= self.high)
        return low_ok and high_ok

    def range_text(self) -> str:
        """The accepted values in words: "one of (...)", "an integer in [1, 10]", "a number > 0"."""
        if self.kind == "choice":
            return f"one of {self.choices}"
        what = "an integer" if self.kind == "int" else "a finite number"
        if self.low is not None and self.high is not None:
            lo, hi = "(" if self.open_low else "[", ")" if self.open_high else "]"
            return f"{what} in {lo}{self.low:g}, {self.high:g}{hi}"
        if self.low is not None:
            return f"{what} {'>' if self.open_low else '>='} {self.low:g}"
        if self.high is not None:
            return f"{what} {'<' if self.open_high else '<='} {self.high:g}"
        return {"bool": "True or False", "str": "a string"}.get(self.kind, what)


def coerce_all(method: str, declared: dict[str, Param], params: dict) -> dict:
    """The one validation path: unknown names are refused with the method's parameter list, and every
    value goes through its declaration's :meth:`Param.coerce`."""
    unknown = sorted(set(params) - set(declared))
    if unknown:
        raise ParameterError(f"method {method!r} has no parameter(s) {unknown}; its parameters are {sorted(declared)}")
    return {n: declared[n].coerce(v) for n, v in params.items()}


def parameters_section(declared: dict[str, Param]) -> str:
    """A numpydoc "Parameters" section listing the declarations (for builders' ``help()``)."""
    lines = ["Parameters", "----------"]
    for p in declared.values():
        lines.append(f"{p.name} : {p.kind}{', optional' if p.optional else ''}, default {p.default!r}")
        lines.append(f"    {p.meaning} Accepts {p.range_text()}{' or None' if p.optional else ''}."
                     + (f" ({p.paper})" if p.paper else ""))
    return "\n".join(lines)


def doc(meaning: str, paper: str = "", low: float | None = None, high: float | None = None, **limits) -> Param:
    """A parameter's declaration without its name, kind and default (the signature supplies them: :func:`declared`)."""
    return Param("", "", None, meaning, paper, low=low, high=high, **limits)


# the common ranges of declarations
FRACTION = {"low": 0.0, "high": 1.0, "open_low": True, "open_high": True}
POSITIVE = {"low": 0.0, "open_low": True}


def declared_type(hint) -> tuple[str, tuple[str, ...], bool, bool]:
    """(kind, choices, optional, share) of a parameter's resolved annotation: bool, int, float, str,
    ``Literal[...]`` or :data:`Share`, optionally ``| None``."""
    args = typing.get_args(hint) if typing.get_origin(hint) in (typing.Union, types.UnionType) else (hint,)
    optional = type(None) in args
    (base,) = [a for a in args if a is not type(None)] or [type(None)]
    share = typing.get_origin(base) is typing.Annotated and SHARE in base.__metadata__
    if share:
        base = typing.get_args(base)[0]
    if typing.get_origin(base) is typing.Literal:
        return "choice", tuple(typing.get_args(base)), optional, False
    for t, kind in ((bool, "bool"), (int, "int"), (float, "float"), (str, "str")):
        if base is t:
            return kind, (), optional, share
    raise ValueError(f"a method parameter must be annotated bool, int, float, str, Literal[...] or Share, "
                     f"optionally | None (got {hint!r})")


def declared(func: Callable, docs: Mapping[str, Param], names: Collection[str] | None = None,
             owner: str = "") -> dict[str, Param]:
    """name -> :class:`Param` for the keyword-only parameters of ``func`` (those in ``names`` when given), in
    signature order: name, kind, default, choices, optional and share from the signature, the rest from the
    declaration ``docs[name]``. A parameter without a declaration or a readable annotation is a ValueError
    naming ``owner`` (a declaration is checked when it is first read)."""
    hints = typing.get_type_hints(func, include_extras=True)
    out = {}
    for p in inspect.signature(func).parameters.values():
        if p.kind is not inspect.Parameter.KEYWORD_ONLY or (names is not None and p.name not in names):
            continue
        try:
            kind, choices, optional, share = declared_type(hints[p.name])
            found = docs[p.name]
        except (KeyError, ValueError) as err:
            raise ValueError(f"parameter {p.name!r} of {owner or func.__qualname__!r}: "
                             f"{err if isinstance(err, ValueError) else 'no annotation or no declaration'}") from None
        out[p.name] = dataclasses.replace(found, name=p.name, kind=kind, default=p.default,
                                          optional=optional or p.default is None, choices=choices, share=share)
    return out
