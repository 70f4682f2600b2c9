"""psdviz: differentially private spatial decompositions you can see, query and compare.

>>> import psdviz as pv
>>> dom = pv.Domain(0, 0, 1, 1)
>>> rel = pv.build(points, dom, method="quadtree", epsilon=0.5, seed=1)
>>> rel.answer([[0.1, 0.1, 0.4, 0.3]])
"""
from .api import EmptyReleaseWarning, build
from .planner import EpsilonPlan, plan_epsilon
from .core.domain import Domain, prepare_points
from .core.ledger import Ledger, Spend
from .methods.registry import methods as _methods
from .methods.registry import parameters as method_parameters
from .methods.registry import references as _references
from .publish.release import Release
from .publish.release_file import load_release
from .query.truth import PointIndex, true_answer

METHODS: tuple[str, ...] = _methods()
REFERENCES: tuple[str, ...] = _references()

__all__ = ["Domain", "EmptyReleaseWarning", "EpsilonPlan", "plan_epsilon", "load_release", "Ledger", "METHODS", "REFERENCES", "PointIndex", "Release", "Spend", "build",
           "method_parameters", "prepare_points", "true_answer"]
