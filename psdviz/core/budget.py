"""Per-level budget plans for trees (ICDE'12 section 4.2).

Levels are indexed here by *depth* (root = 0, leaves = height); the paper indexes by height
(leaves = 0). All plans return an array ``eps[d]`` with ``eps.sum() == epsilon`` so the
sequential composition along any root-to-leaf path of a complete tree is exactly ``epsilon``.
"""
from __future__ import annotations

from typing import Literal, get_args

import numpy as np

from .errors import ParameterError
from .validation import check_epsilon

Plan = Literal["uniform", "geometric", "leaf"]   # how a tree's epsilon is split over its levels
PLANS: tuple[str, ...] = get_args(Plan)
STOP_SDS = 1.0   # stopping rules read a noisy count as small when it is within this many noise sds


def level_epsilons(epsilon: float, height: int, plan: str = "geometric") -> np.ndarray:
    """Split ``epsilon`` over the ``height + 1`` levels of a tree.

    - ``uniform``: epsilon / (h + 1) per level.
    - ``geometric``: Lemma 3, epsilon_i = 2^((h - i)/3) * epsilon * (2^(1/3) - 1) / (2^((h+1)/3) - 1)
      for the level of height i, i.e. proportional to 2^(depth/3): leaves largest.
    - ``leaf``: everything on the leaves, internal levels release nothing (epsilon 0).
    """
    epsilon = check_epsilon(epsilon)
    if height < 0:
        raise ParameterError(f"height must be >= 0 (got {height})")
    depth = np.arange(height + 1, dtype=float)
    if plan == "uniform":
        eps = np.full(height + 1, epsilon / (height + 1))
    elif plan == "geometric":
        weights = 2.0 ** (depth / 3.0)  # = 2^((h - i)/3) up to the constant factor 2^(-h/3)
        eps = epsilon * weights / weights.sum()
    elif plan == "leaf":
        eps = np.zeros(height + 1)
        eps[-1] = epsilon
    else:
        raise ParameterError(f"budget must be one of {PLANS} (got {plan!r})")
    return eps
