"""Synthetic point sets: uniform, gaussian mixture, and mixture plus far outliers.

The outlier set mimics the h-tree paper's Tiger-Syn construction: a small share of points placed
at a far corner of the domain, so that data-independent structures waste cells on empty space.
"""
from __future__ import annotations

import numpy as np

from ..core.domain import Domain


def uniform(n: int, domain: Domain, rng: np.random.Generator) -> np.ndarray:
    return np.column_stack([rng.uniform(domain.xmin, domain.xmax, n), rng.uniform(domain.ymin, domain.ymax, n)])


def gaussian_mixture(n: int, domain: Domain, rng: np.random.Generator, k: int = 5,
                     spread: float = 0.05) -> np.ndarray:
    """k gaussian clusters with random centres and weights; points clipped into the domain."""
    centres = np.column_stack([rng.uniform(domain.xmin + 0.2 * domain.width, domain.xmax - 0.2 * domain.width, k),
                               rng.uniform(domain.ymin + 0.2 * domain.height, domain.ymax - 0.2 * domain.height, k)])
    weights = rng.dirichlet(np.ones(k))
    scale = rng.uniform(0.3, 1.0, k) * spread
    which = rng.choice(k, size=n, p=weights)
    pts = centres[which] + rng.normal(size=(n, 2)) * (scale[which, None] * [domain.width, domain.height])
    pts[:, 0] = np.clip(pts[:, 0], domain.xmin, domain.xmax)
    pts[:, 1] = np.clip(pts[:, 1], domain.ymin, domain.ymax)
    return pts


def with_outliers(points: np.ndarray, domain: Domain, rng: np.random.Generator, fraction: float = 0.001,
                  corner_size: float = 0.02) -> np.ndarray:
    """Append ``fraction`` x n points in a small square at the domain's top-right corner."""
    m = max(1, int(round(fraction * points.shape[0])))
    x = rng.uniform(domain.xmax - corner_size * domain.width, domain.xmax, m)
    y = rng.uniform(domain.ymax - corner_size * domain.height, domain.ymax, m)
    return np.vstack([points, np.column_stack([x, y])])


def skewed(n: int, domain: Domain, rng: np.random.Generator) -> np.ndarray:
    """The benchmark set: a tight gaussian mixture (10 clusters) plus 5% uniform background."""
    k = n - n // 20
    return np.vstack([gaussian_mixture(k, domain, rng, k=10, spread=0.03), uniform(n - k, domain, rng)])
