"""The published cells of a release seen down to a depth: the view the app draws and exports.

A tree viewed "down to depth d" shows its *frontier*: every node at depth d plus every leaf
shallower than d (pruned or uneven trees stop early). The frontier cells partition the domain
for the space-partitioning methods (their rectangles may overlap for a Hilbert R-tree). Everything
here reads released values only (rectangles, noisy counts, estimates, epsilons, noise variances),
so it is post-processing; true counts never appear.
"""
from __future__ import annotations

import math

import numpy as np

from ..core.errors import ParameterError
from ..core.rng import check_seeded_export
from ..core.tree import FlatTree
from .spatial import SpatialRelease


def frontier(tree: FlatTree, depth: int) -> np.ndarray:
    """Node ids of the view down to ``depth``: nodes at that depth and shallower leaves."""
    if isinstance(depth, bool) or int(depth) != depth or depth < 0:
        raise ParameterError(f"depth must be an integer >= 0 (got {depth!r})")
    return np.flatnonzero((tree.depth == depth) | (tree.is_leaf & (tree.depth < depth)))


def frontier_sizes(tree: FlatTree) -> np.ndarray:
    """Number of frontier cells at each depth 0..height (vectorised, no loop over nodes)."""
    h = tree.height
    at = np.bincount(tree.depth, minlength=h + 1)
    leaves_above = np.concatenate([[0], np.cumsum(np.bincount(tree.depth[tree.is_leaf], minlength=h + 1))[:-1]])
    return at + leaves_above


READABLE_SHARE = 0.1   # a view is readable while its cells within noise of zero hold at most this share


def view_depth(tree: FlatTree, max_cells: int) -> int:
    """The depth a map opens at: the deepest whose frontier has at most ``max_cells`` cells and whose cells
    within noise of zero (:func:`within_noise`) hold at most :data:`READABLE_SHARE` of the estimated total,
    so the first view is one the noise lets a reader read (deeper levels stay a slider away). At least 1
    when the tree has depth 1; a single level with more cells is then drawn as a raster by the app.
    Released values only."""
    best = deepest_fitting(tree, max_cells)
    while best > 1 and _faint_share(tree, frontier(tree, best)) > READABLE_SHARE:
        best -= 1
    return max(best, min(1, tree.height))


def deepest_fitting(tree: FlatTree, max_cells: int) -> int:
    """The deepest depth whose view (:func:`frontier`) has at most ``max_cells`` cells (0 if none has)."""
    ok = np.flatnonzero(frontier_sizes(tree) <= max_cells)
    return int(ok.max()) if ok.size else 0


def _faint_share(tree: FlatTree, nodes: np.ndarray) -> float:
    """Share of the positive estimated total held by the cells ``nodes`` that are within noise of zero."""
    est = np.maximum(np.nan_to_num(tree.est[nodes]), 0.0)
    total = est.sum()
    return float(est[within_noise(tree, nodes)].sum() / total) if total > 0 else 0.0


def cell_at(tree: FlatTree, nodes: np.ndarray, x: float, y: float) -> int | None:
    """The smallest cell among ``nodes`` containing (x, y) (closed rectangles), or None."""
    r = tree.rect[nodes]
    inside = (r[:, 0] <= x) & (x <= r[:, 2]) & (r[:, 1] <= y) & (y <= r[:, 3])
    if not inside.any():
        return None
    cand = nodes[inside]
    area = (tree.rect[cand, 2] - tree.rect[cand, 0]) * (tree.rect[cand, 3] - tree.rect[cand, 1])
    return int(cand[np.argmin(area)])


def path_epsilon(tree: FlatTree, node: int) -> float:
    """Count and split epsilon spent on the root-to-``node`` path (sequential composition)."""
    total, v = 0.0, int(node)
    if tree.pruned_eps is not None:  # a pruned leaf still paid for the levels cut below it
        total += float(tree.pruned_eps[v])
    while v >= 0:
        total += float(tree.count_eps[v] + tree.split_eps[v])
        v = int(tree.parent[v])
    return total


def cell_details(release: SpatialRelease, node: int) -> dict:
    """What a student sees when clicking a cell: level, epsilon there, noise scale, counts and the estimate's
    95 % interval (:func:`cell_intervals`).

    The noise scale is given as the standard deviation of the cell's noisy count (from the noise
    variance the engine recorded) and as 1/epsilon, the scale of the two-sided geometric noise.
    """
    t = release.tree
    eps = float(t.count_eps[node])
    var = None if t.noise_var is None else float(t.noise_var[node])
    r = t.rect[node]
    low, high = (float(v) for v in cell_intervals(release, np.array([node]))[0])
    return {
        "node": int(node), "level": int(t.depth[node]), "rect": [float(v) for v in r],
        "low_95": low, "high_95": high,
        "count_epsilon": eps, "split_epsilon": float(t.split_eps[node]),
        "path_epsilon": path_epsilon(t, node),
        "noise_sd": math.sqrt(var) if var is not None and math.isfinite(var) else None,
        "noise_scale": 1.0 / eps if eps > 0 else None,
        "noisy": None if not math.isfinite(t.noisy[node]) else float(t.noisy[node]),
        "estimate": float(t.est[node]), "is_leaf": bool(t.is_leaf[node]),
    }


def cell_density(tree: FlatTree, nodes: np.ndarray) -> np.ndarray:
    """Estimated count per unit area (e.g. per square degree) of each cell; NaN for empty areas."""
    r = tree.rect[nodes]
    area = (r[:, 2] - r[:, 0]) * (r[:, 3] - r[:, 1])
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(area > 0, tree.est[nodes] / area, np.nan)


def cell_intervals(release: SpatialRelease, nodes: np.ndarray, level: float = 0.95) -> np.ndarray:
    """(len(nodes), 2) 95 % intervals of whole cells' estimates, for every cell of a view at once.

    A whole cell has no cut cells, so its interval is its estimate -+ z times a noise standard deviation:
    the sd of the cell's own noisy count, which bounds its post-processed estimate's (least squares only
    lowers variance), so the interval is never narrower than the exact one and costs nothing per cell (the
    exact variance, :meth:`Release.answer_interval`, takes one pass of the post-processing's adjoint per 16
    cells: minutes for a view of tens of thousands). Cells whose own count was not measured take the exact
    interval. Released values only."""
    from ..kernel.intervals import whole_interval
    nodes = np.asarray(nodes, dtype=np.int64)
    t = release.tree
    est = t.est[nodes]
    var = t.noise_var[nodes] if t.noise_var is not None else np.full(nodes.size, np.nan)
    known = np.isfinite(var) & np.isfinite(t.noisy[nodes])
    low, high = whole_interval(est, np.sqrt(np.where(known, var, 0.0)), 0.0, level)
    out = np.column_stack([low, high])
    if (~known).any():
        out[~known] = release.answer_interval(t.rect[nodes[~known]], level)
    return out


def within_noise(tree: FlatTree, nodes: np.ndarray, k: float = 2.0) -> np.ndarray:
    """True for cells whose estimate is below ``k`` times the noise sd of their own noisy count
    (indistinguishable from an empty cell at about that many standard deviations); False where the
    cell was not measured. That sd bounds the post-processed estimate's (least squares only lowers
    variance), so the test is conservative; it reads released values only."""
    if tree.noise_var is None:
        return np.zeros(nodes.size, bool)
    var = tree.noise_var[nodes]
    ok = np.isfinite(var) & np.isfinite(tree.noisy[nodes])
    return ok & (tree.est[nodes] < k * np.sqrt(np.where(ok, var, 0.0)))


def relative_noise(tree: FlatTree, nodes: np.ndarray) -> np.ndarray:
    """Each cell's noise standard deviation over its estimate (NaN where not measured or not positive):
    how finely its density can be told apart from its neighbours'. Released values only."""
    if tree.noise_var is None:
        return np.full(nodes.size, np.nan)
    var = tree.noise_var[nodes]
    est = tree.est[nodes]
    ok = np.isfinite(var) & (est > 0)
    return np.where(ok, np.sqrt(np.where(ok, var, 0.0)) / np.where(ok, est, 1.0), np.nan)


def noise_level(tree: FlatTree, nodes: np.ndarray, k: float = 2.0) -> tuple[float, float] | None:
    """(median noise sd of the cells' noisy counts, share of cells :func:`within_noise`) over the
    measured cells among ``nodes``; None if none is measured. A teaching summary of a view."""
    if tree.noise_var is None or nodes.size == 0:
        return None
    var = tree.noise_var[nodes]
    ok = np.isfinite(var) & np.isfinite(tree.noisy[nodes])
    if not ok.any():
        return None
    return float(np.median(np.sqrt(var[ok]))), float(within_noise(tree, nodes[ok], k).mean())


def cells_geojson(release: SpatialRelease, depth: int | None = None, digits: int = 2, *, export: bool = True,
                  allow_seeded: bool = False) -> dict:
    """GeoJSON FeatureCollection of the cells (leaves, or the view down to ``depth``).

    Properties: node, level, estimated count and its 95 % interval (``low_95``, ``high_95``: a whole cell,
    so the noise of its estimate, :func:`cell_intervals`), the noisy count, count epsilon and the
    noisy count's noise standard deviation. No true counts. With ``export`` (the default) refuses
    non-private references: they are not releases (the app still draws them on its map with
    ``export=False``); a seeded run is refused too unless ``allow_seeded=True``, and then the collection
    carries a NOT private warning.
    """
    if export and not release.private:
        raise ParameterError(f"{release.method!r} is a non-private reference and cannot be exported as a release")
    if export:
        check_seeded_export(release.randomness, allow_seeded, "the cells")
    t = release.tree
    nodes = t.leaf_index() if depth is None else frontier(t, depth)
    r = t.rect[nodes].tolist()
    noisy = np.round(t.noisy[nodes], digits)
    noisy = [None if not math.isfinite(v) else v for v in noisy.tolist()]
    est = np.round(t.est[nodes], digits).tolist()
    eps = t.count_eps[nodes].tolist()
    sd = np.sqrt(t.noise_var[nodes]) if t.noise_var is not None else np.full(nodes.size, np.nan)
    sd = [None if not math.isfinite(v) else round(v, digits) for v in sd.tolist()]
    lvl = t.depth[nodes].tolist()
    iv = [[None if not math.isfinite(v) else v for v in pair]
          for pair in np.round(cell_intervals(release, nodes), digits).tolist()]
    feats = [{"type": "Feature", "id": int(n),
              "geometry": {"type": "Polygon", "coordinates": [[[a, b], [c, b], [c, d], [a, d], [a, b]]]},
              "properties": {"node": int(n), "level": lv, "estimate": e, "low_95": lo, "high_95": hi,
                             "noisy": ny, "count_epsilon": ce, "noise_sd": s}}
             for n, (a, b, c, d), lv, ny, e, ce, s, (lo, hi) in zip(nodes.tolist(), r, lvl, noisy, est, eps, sd, iv)]
    return {"type": "FeatureCollection", "features": feats,
            "properties": {"method": release.method, "epsilon": release.epsilon,
                           "private": release.private, "randomness": release.randomness_mode,
                           "view": "leaves" if depth is None else f"down to depth {depth}",
                           **release.randomness.warning()}}
