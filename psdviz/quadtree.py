"""Private quadtree (ICDE'12 sections 3.3, 4, 5, 7).

Fanout 4, height h, data-independent splits at midpoints of the public domain, so only the counts
are private: geometric noise per level with a per-level budget plan (sequential composition along
a path, parallel within a level). Nodes are stored level by level in Morton order, so leaf counts
come from one ``bincount`` and every coarser level from ``reshape(-1, 4).sum(1)``.
"""
from __future__ import annotations

import numpy as np

from . import morton
from .budget import level_epsilons
from .domain import Domain, PointSet
from .ledger import Ledger
from .measure import measure_counts
from .ols import ols_coefficients, ols_estimate
from .prune import prune_tree
from .pyramid import Pyramid
from .release import Release
from .rng import Randomness
from .tree import FlatTree, check_node_count
from .validation import check_int

MAX_HEIGHT = 11


def quad_nodes(height: int) -> int:
    return (4 ** (height + 1) - 1) // 3


def leaf_cells(xy: np.ndarray, domain: Domain, nx: int, ny: int) -> tuple[np.ndarray, np.ndarray]:
    """Column and row of each point on an nx x ny grid over the domain (max edge in the last cell)."""
    ix = np.clip(((xy[:, 0] - domain.xmin) / domain.width * nx).astype(np.int64), 0, nx - 1)
    iy = np.clip(((xy[:, 1] - domain.ymin) / domain.height * ny).astype(np.int64), 0, ny - 1)
    return ix, iy


def level_counts(xy: np.ndarray, domain: Domain, height: int) -> list[np.ndarray]:
    """Counts of every level in Morton order, root first."""
    side = 1 << height
    ix, iy = leaf_cells(xy, domain, side, side)
    counts = [np.bincount(morton.encode(ix, iy), minlength=side * side)]
    for _ in range(height):
        counts.append(counts[-1].reshape(-1, 4).sum(axis=1))
    return counts[::-1]


def quad_structure(domain: Domain, height: int) -> dict:
    """Rectangles, depths and links of the complete quadtree (Morton order within each level)."""
    rects, depth, parent, first = [], [], [], []
    offset = 0
    for d in range(height + 1):
        n = 4 ** d
        ix, iy = morton.decode(np.arange(n))
        w, h = domain.width / (1 << d), domain.height / (1 << d)
        x0, y0 = domain.xmin + ix * w, domain.ymin + iy * h
        rects.append(np.column_stack([x0, y0, x0 + w, y0 + h]))
        depth.append(np.full(n, d, np.int16))
        parent.append(np.arange(n) // 4 + offset - 4 ** (d - 1) if d else np.array([-1]))
        first.append(offset + n + 4 * np.arange(n) if d < height else np.full(n, -1))
        offset += n
    return {"rect": np.concatenate(rects), "depth": np.concatenate(depth),
            "parent": np.concatenate(parent).astype(np.int64),
            "first_child": np.concatenate(first).astype(np.int64),
            "n_children": np.where(np.concatenate(depth) < height, 4, 0).astype(np.int32)}


def morton_grid_ids(height: int) -> np.ndarray:
    """(side, side) array: position within the leaf level of each (row, column) cell."""
    side = 1 << height
    iy, ix = np.mgrid[0:side, 0:side]
    return morton.encode(ix.ravel(), iy.ravel()).reshape(side, side)


def build_quadtree(ps: PointSet, domain: Domain, epsilon: float, rnd: Randomness, *, height: int = 10,
                   budget: str = "geometric", postprocess: bool = True, prune: float | None = None) -> Release:
    """Private quadtree of the given height (paper default h = 10, geometric budget, OLS)."""
    height = check_int(height, "height", 1, MAX_HEIGHT)
    check_node_count(quad_nodes(height), f"a quadtree of height {height}")
    eps = level_epsilons(epsilon, height, budget)
    ledger = Ledger(epsilon)
    noisy, var = [], []
    for d, c in enumerate(level_counts(ps.xy, domain, height)):
        y, v = measure_counts(rnd, ledger, c, eps[d], level=d)
        noisy.append(y)
        var.append(v)
    s = quad_structure(domain, height)
    tree = FlatTree(noisy=np.concatenate(noisy), noise_var=np.concatenate(var),
                    count_eps=eps[s["depth"]], split_eps=np.zeros(s["depth"].size), **s)
    params = {"height": height, "budget": budget, "postprocess": bool(postprocess), "prune": prune}
    return finish_quad_like(tree, eps, 4, ps, domain, ledger, rnd, "quadtree", params,
                            grid=morton_grid_ids(height), postprocess=postprocess, prune=prune)


def finish_quad_like(tree: FlatTree, eps: np.ndarray, fanout: int, ps: PointSet, domain: Domain,
                     ledger: Ledger, rnd: Randomness, method: str, params: dict, *,
                     grid: np.ndarray | None, postprocess: bool, prune: float | None,
                     private: bool = True) -> Release:
    """Shared tail of complete-tree builders: OLS, pruning, fast query index, Release."""
    full = tree
    consistent = bool(postprocess or (eps[:-1] == 0).all())
    if postprocess:
        tree.est = ols_estimate(tree, eps, fanout)
    elif consistent:  # leaf-only budget: internal estimates are sums of noisy leaves
        tree.est = tree.subtree_sum(tree.noisy)
    kept = None
    if prune is not None:
        tree, kept = prune_tree(tree, prune, use_estimate=consistent)
    pyramid = None
    if grid is not None and kept is None:
        lo = tree.level_bounds()
        levels = [tree.height] if consistent else [d for d in range(tree.height + 1) if eps[d] > 0]
        vals = tree.est if consistent else tree.noisy
        pyramid = Pyramid.from_grids(domain, [vals[lo[d]:lo[d + 1]][_grid_at(grid, tree.height - d)]
                                              for d in levels])
    if postprocess:
        var_fn = ols_variance_fn(full, eps, fanout, kept)
    elif consistent:
        var_fn = leaf_variance_fn(full, kept)
    else:
        var_fn = None
    return Release(method, params, domain, tree, ledger, rnd, ps.report(), consistent,
                   private=private, pyramid=pyramid, leaf_variance=var_fn)


def _full_leaf_weights(full: FlatTree, kept: np.ndarray | None, w: np.ndarray) -> np.ndarray:
    """Weights on the full tree's leaves for weights given on a (possibly pruned) tree's leaves."""
    bounds = full.level_bounds()
    if kept is None:
        return w[bounds[full.height]:]
    big = np.zeros((full.n_nodes, w.shape[1]))
    big[kept] = w
    for d in range(1, full.height + 1):
        lo, hi = bounds[d], bounds[d + 1]
        big[lo:hi] += big[full.parent[lo:hi]]
    return big[bounds[full.height]:]


def ols_variance_fn(full: FlatTree, eps: np.ndarray, fanout: int, kept: np.ndarray | None):
    """Variance of sums of OLS leaf estimates: sum_v Var(Y_v) c_v^2 with c from the OLS adjoint."""
    finite = np.isfinite(full.noise_var)

    def fn(w: np.ndarray) -> np.ndarray:
        coef = ols_coefficients(full, eps, fanout, _full_leaf_weights(full, kept, w))
        return (coef[finite] ** 2 * full.noise_var[finite, None]).sum(axis=0)
    return fn


def leaf_variance_fn(full: FlatTree, kept: np.ndarray | None):
    """Variance of sums of independent noisy leaf counts."""
    leaf_var = full.noise_var[full.level_bounds()[full.height]:]

    def fn(w: np.ndarray) -> np.ndarray:
        return (_full_leaf_weights(full, kept, w) ** 2 * leaf_var[:, None]).sum(axis=0)
    return fn


def _grid_at(leaf_grid: np.ndarray, up: int) -> np.ndarray:
    """Position-within-level ids of the grid ``up`` levels above the leaves (Morton order)."""
    g = leaf_grid[:: 1 << up, :: 1 << up] if up else leaf_grid
    return g >> (2 * up)
