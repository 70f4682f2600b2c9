"""psdviz: differentially private spatial decompositions you can see, query and compare.

>>> import numpy as np
>>> import psdviz as pv
>>> points = np.random.default_rng(0).random((1000, 2))       # (n, 2): x, y (e.g. lon, lat)
>>> rel = pv.build(points, pv.Domain(0, 0, 1, 1), method="quadtree", epsilon=0.5, height=3)
>>> rel.answer([[0.1, 0.1, 0.4, 0.3]]).shape                  # private estimate of the rectangle
(1,)
>>> round(rel.ledger.total(), 9) <= rel.epsilon
True
"""
from .api import EmptyReleaseWarning, NoiseDominatesWarning, build, build_regions
from .budget import Budget
from .core.domain import Domain, prepare_points
from .core.ledger import Ledger, Spend
from .core.validation import LargeEpsilonWarning
from .errors import BudgetError, InputDataError, JobFileError, ParameterError, ReleaseFileError
from .maps import explore
from .methods.param_info import documented_builder as builder
from .methods.param_info import method_help
from .methods.param_info import parameter_info as method_parameters
from .methods.registry import methods as _methods
from .methods.registry import references as _references
from .methods.registry import spec_of as method_spec
from .methods.spec import MethodSpec
from .over_time import build_over_time
from .planner import EpsilonPlan, plan_epsilon
from .publish.release import Release
from .query.truth import PointIndex, true_answer
from .releases import load_release


def __getattr__(name: str):
    """``METHODS`` and ``REFERENCES``: the registry's methods (built-in and installed plug-ins), read when asked."""
    if name == "METHODS":
        return _methods()
    if name == "REFERENCES":
        return _references()
    raise AttributeError(f"module 'psdviz' has no attribute {name!r}")

__all__ = [
    "METHODS",
    "REFERENCES",
    "Budget",
    "BudgetError",
    "Domain",
    "EmptyReleaseWarning",
    "EpsilonPlan",
    "InputDataError",
    "JobFileError",
    "LargeEpsilonWarning",
    "Ledger",
    "MethodSpec",
    "NoiseDominatesWarning",
    "ParameterError",
    "PointIndex",
    "Release",
    "ReleaseFileError",
    "Spend",
    "build",
    "build_over_time",
    "build_regions",
    "builder",
    "explore",
    "load_release",
    "method_help",
    "method_parameters",
    "method_spec",
    "plan_epsilon",
    "prepare_points",
    "true_answer",
]
