"""Exceptions a caller can tell apart. Each is a ValueError (so code that catches ValueError keeps
working) and its message says what to fix; the class says what kind of problem it is.

- :class:`ParameterError`: a parameter of a call is out of its range or of the wrong kind (epsilon,
  a method's parameter, a fraction, a level).
- :class:`InputDataError`: the data given cannot be used as they are (non-finite or complex coordinates,
  columns that are not numbers, bounds in the wrong order).
- :class:`ReleaseFileError`: a release file cannot be read, is not a release, is damaged or edited, or claims
  what its contents do not hold.
- :class:`BudgetError`: a release the data set's privacy budget cannot take (:mod:`psdviz.budget`), or a
  budget file that cannot be used as asked.
- :class:`JobFileError`: a job file (``psdviz run``) that cannot run as written; its message names the line.

A missing optional package is an ImportError instead: :class:`psdviz.core.optional.MissingExtraError`.
"""
from __future__ import annotations


class PsdvizError(ValueError):
    """The base of psdviz's own errors."""


class ParameterError(PsdvizError):
    """A parameter out of its range or of the wrong kind."""


class InputDataError(PsdvizError):
    """Data that cannot be used as given."""


class ReleaseFileError(PsdvizError):
    """A release file that cannot be read or is not one, a damaged or edited one, or one whose claims do not
    hold (raised by ``psdviz.load_release`` and the loaders of every release kind)."""


class BudgetError(PsdvizError):
    """A release the data set's privacy budget cannot take."""


class JobFileError(PsdvizError):
    """A job file that cannot run as written (``psdviz run``); the message names the line."""
