"""Exceptions a caller can tell apart (``psdviz.errors``): each a ValueError whose message says what to
fix, its class what kind of problem it is. Defined in :mod:`psdviz.core.errors` (the lowest layer, so
every module may raise them) and named here for callers."""
from .core.errors import BudgetError, InputDataError, JobFileError, ParameterError, PsdvizError, ReleaseFileError

__all__ = ["BudgetError", "InputDataError", "JobFileError", "ParameterError", "PsdvizError", "ReleaseFileError"]
