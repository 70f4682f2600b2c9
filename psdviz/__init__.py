"""psdviz: differentially private spatial decompositions you can see, query and compare.

>>> import psdviz as pv
>>> dom = pv.Domain(0, 0, 1, 1)
>>> rel = pv.build(points, dom, method="quadtree", epsilon=0.5, seed=1)
>>> rel.answer([[0.1, 0.1, 0.4, 0.3]])
"""
from .api import build
from .domain import Domain, prepare_points
from .ledger import Ledger, Spend
from .registry import methods as _methods
from .registry import parameters as method_parameters
from .registry import references as _references
from .release import Release
from .truth import PointIndex, true_answer

METHODS: tuple[str, ...] = _methods()
REFERENCES: tuple[str, ...] = _references()

__all__ = ["Domain", "Ledger", "METHODS", "REFERENCES", "PointIndex", "Release", "Spend", "build",
           "method_parameters", "prepare_points", "true_answer"]
