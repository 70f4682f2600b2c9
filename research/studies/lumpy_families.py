"""Point sets with structure finer than a few cells of the 256 x 256 grid: the kind location data have and the
Gaussian mixtures lack (roads, towns, a discretised attribute), for ``workload_choice.py --set lumpy``.

Each member, and its *lumpiness* (:func:`lumpiness`): the share of the occupied cells an even spread inside every
occupied block of 2 x 2 cells would add, 0 for smooth data (a Gaussian mixture), near 0.75 for points on one
cell of each block. Generic shapes, never fitted to a file; the DPBench files are read only to print their
figure beside the families'.
"""
from __future__ import annotations

import numpy as np

SIDE = 256.0


def roads(n: int, rng: np.random.Generator, k: int = 60, width: float = 0.3) -> np.ndarray:
    """n points on k straight roads (random centre, direction and length 20-120 cells; Zipf weights), each
    point ``width`` cells off its road (normal)."""
    c, ang, ln = rng.uniform(60, 196, (k, 2)), rng.uniform(0, np.pi, k), rng.uniform(20, 120, k)
    w = 1 / np.arange(1, k + 1)
    r = rng.choice(k, n, p=w / w.sum())
    t = rng.uniform(-0.5, 0.5, n) * ln[r]
    p = c[r] + t[:, None] * np.column_stack([np.cos(ang[r]), np.sin(ang[r])]) + rng.normal(0, width, (n, 2))
    return np.clip(p, 0, np.nextafter(SIDE, 0))


def towns(n: int, rng: np.random.Generator, k: int = 500, width: float = 0.4) -> np.ndarray:
    """n points in k towns of Zipf sizes (exponent 1.1), each ``width`` cells wide (normal), the towns
    themselves clustered in five regions."""
    centres = np.column_stack([rng.uniform(50, 206, 5), rng.uniform(50, 206, 5)])
    base = centres[rng.integers(0, 5, k)] + rng.normal(0, 25, (k, 2))
    w = 1 / np.arange(1, k + 1) ** 1.1
    r = rng.choice(k, n, p=w / w.sum())
    return np.clip(base[r] + rng.normal(0, width, (n, 2)), 0, np.nextafter(SIDE, 0))


def blobs(n: int, rng: np.random.Generator) -> np.ndarray:
    """Three Gaussian blobs (sd 10-40 cells), the smooth base the discretised members round."""
    centres = rng.uniform(60, 196, (3, 2))
    r = rng.choice(3, n, p=rng.dirichlet(np.ones(3)))
    return np.clip(centres[r] + rng.normal(0, 1, (n, 2)) * rng.uniform(10, 40, 3)[r, None], 0,
                   np.nextafter(SIDE, 0))


def discretised(n: int, rng: np.random.Generator, step_x: float = 0.0, step_y: float = 2.5) -> np.ndarray:
    """:func:`blobs` with x and/or y rounded down to multiples of ``step`` cells (0: kept), placed in the middle
    of their cell: an integer attribute mapped onto a finer grid."""
    p = blobs(n, rng)
    for axis, step in ((0, step_x), (1, step_y)):
        if step:
            p[:, axis] = np.floor(p[:, axis] / step) * step + 0.5
    return p


def lumpy_sets(n: int) -> list[tuple[str, np.ndarray]]:
    def rng(k: int) -> np.random.Generator:
        return np.random.default_rng(n + k)
    return [("roads narrow", roads(n, rng(0))), ("roads wide", roads(n, rng(1), width=1.2)),
            ("towns narrow", towns(n, rng(2))), ("towns wide", towns(n, rng(3), width=1.5)),
            ("rows every 2.5 cells", discretised(n, rng(4))),
            ("columns every 4 cells", discretised(n, rng(5), step_x=4.0, step_y=0.0)),
            ("lattice every 3 cells", discretised(n, rng(6), step_x=3.0, step_y=3.0))]


def lumpiness(h: np.ndarray, block: int = 2) -> float:
    """1 - occupied cells / the cells an even spread of each block's points over its block x block cells would
    occupy, summed over the blocks."""
    s = h.shape[0] // block
    c = h.reshape(s, block, s, block).sum(axis=(1, 3))
    occ = (h > 0).reshape(s, block, s, block).sum(axis=(1, 3))
    even = block * block * -np.expm1(-c / (block * block))
    return float((even.sum() - occ.sum()) / max(even.sum(), 1.0))
