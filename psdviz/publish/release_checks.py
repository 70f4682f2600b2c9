"""Checks a release file against its own tables before anything is built from it.

A release file can be edited by anyone who handles it. Loading it must never crash, never allocate
more than the file's size warrants, and never present a tampered file as a valid release. Every
check below raises a ValueError that names what is wrong; they run in order of cost: the JSON
metadata (types, ranges, the ledger's arithmetic), the Parquet footer (row count against the
file's size, column types), the node arrays (links, level order, finite values, coordinates on the
public grid, per-node epsilons against the ledger), then the query model's sizes (a complete tree's
node count is computed in exact integers and capped before it is allocated). Memory: at most one
row per byte of the file and :data:`~psdviz.core.tree.MAX_NODES` rows, and a complete tree of at
most :data:`~psdviz.core.tree.MAX_NODES` nodes.
"""
from __future__ import annotations

import math
import os
import re
from typing import cast

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from ..core.domain import MAX_WORKLOAD_RECTS
from ..core.errors import ReleaseFileError
from ..core.grid import Grid, check_resolution
from ..core.ledger import TOLERANCE, Ledger
from ..core.tree import MAX_NODES
from ..core.validation import check_epsilon, is_number
from ..kernel.file_checks import DAMAGED as _DAMAGED
from ..kernel.file_checks import bad, loaded_randomness, loaded_unit
from ..kernel.file_checks import typed as _typed

# node columns: (file column, FlatTree field, dtype)
NODE_COLUMNS = [("depth", "depth", np.int16), ("parent", "parent", np.int64),
                ("first_child", "first_child", np.int64), ("n_children", "n_children", np.int32),
                ("noisy", "noisy", np.float64), ("estimate", "est", np.float64),
                ("noise_variance", "noise_var", np.float64), ("count_epsilon", "count_eps", np.float64),
                ("split_epsilon", "split_eps", np.float64), ("pruned_epsilon", "pruned_eps", np.float64)]
RECT_COLUMNS = ("x0", "y0", "x1", "y1")
CURVE_COLUMNS = ("curve_lo", "curve_hi")      # a Hilbert R-tree's node ranges
MAX_FANOUT = 64
MAX_FULL_HEIGHT = 30
_METHOD = re.compile(r"^[a-z][a-z0-9-]{0,31}$")


# ---- metadata -------------------------------------------------------------------------------------
_META_TYPES = {"method": str, "parameters": dict, "domain": list, "resolution": int, "epsilon": float,
               "epsilon_spent": float, "delta": float, "ledger": list, "randomness": str, "privacy_unit": (str, dict),
               "consistent": bool, "input_handling": dict, "notes": list, "query_model": dict}


def _rects(value) -> bool:
    """A recorded workload: a non-empty list of [xmin, ymin, xmax, ymax] with finite numbers."""
    return (isinstance(value, list) and 0 < len(value) <= MAX_WORKLOAD_RECTS
            and all(isinstance(r, list) and len(r) == 4 and all(is_number(x) and math.isfinite(x) for x in r)
                    for r in value))


def check_metadata(meta) -> None:
    """Types and ranges of every metadata field the loader reads."""
    if not isinstance(meta, dict):
        raise bad("the release metadata is not a JSON object")
    for key, kind in _META_TYPES.items():
        if key not in meta:
            raise bad(f"the release metadata has no {key!r}")
        if not _typed(meta[key], kind):
            what = " or ".join(k.__name__ for k in (kind if isinstance(kind, tuple) else (kind,)))
            raise bad(f"the release metadata's {key!r} is not a {what} (got {type(meta[key]).__name__})")
    if not _METHOD.match(meta["method"]):
        raise bad(f"unknown method {meta['method']!r} (a psdviz method name: lower-case letters, digits, '-')")
    if not all(isinstance(v, (str, int, float, bool, type(None))) or (k == "workload" and _rects(v))
               for k, v in meta["parameters"].items()):
        raise bad("the release parameters must be plain values (numbers, strings, booleans; a workload: a list of "
                  "[xmin, ymin, xmax, ymax])")
    dom = meta["domain"]
    if len(dom) != 4 or not all(is_number(v) and math.isfinite(v) for v in dom):
        raise bad(f"the domain must be four finite numbers (got {dom!r})")
    try:
        check_resolution(meta["resolution"])
        check_epsilon(meta["epsilon"])
    except ValueError as exc:
        raise bad(str(exc)) from None
    loaded_randomness(meta["randomness"])
    if loaded_unit(meta["privacy_unit"]).kind not in ("point", "user"):
        raise bad(f"unknown privacy unit {str(meta['privacy_unit'])[:80]}")
    rules = meta["input_handling"]
    if not all(isinstance(rules.get(k), str) for k in ("outside_domain", "rows_with_nan_or_inf")):
        raise bad("input_handling must state the rules for outside and non-finite rows as text")
    if not all(isinstance(n, str) for n in meta["notes"]):
        raise bad("notes must be text")
    if not isinstance(meta.get("warning", ""), str):
        raise bad("the warning must be text")


# ---- the Parquet table ------------------------------------------------------------------------------
def check_footer(path) -> tuple[int, list[str]]:
    """Row count (at most one per byte of the file and :data:`MAX_NODES`) and the node columns' types,
    read from the footer alone."""
    n = pq.read_metadata(path).num_rows
    size = os.path.getsize(path)
    if n < 1 or n > min(size, MAX_NODES):
        raise bad(f"the file declares {n:,} nodes, outside 1 .. min(its size {size:,} bytes, {MAX_NODES:,})")
    schema = pq.read_schema(path)
    need = ["node", "is_leaf", *RECT_COLUMNS, *(c for c, _, _ in NODE_COLUMNS)]
    optional = [c for c in ("full_index", *CURVE_COLUMNS) if c in schema.names]
    for name in need + optional:
        if name not in schema.names:
            raise bad(f"the node table has no column {name!r}")
        typ = schema.field(name).type
        if not (pa.types.is_integer(typ) or pa.types.is_floating(typ) or pa.types.is_boolean(typ)):
            raise bad(f"column {name!r} holds {typ}, not numbers")
    return n, need + optional


def column(table: pa.Table, name: str, dtype) -> np.ndarray:
    """A column as ``dtype``, refusing missing values and integer columns holding fractions."""
    col = table.column(name)
    if col.null_count:
        raise bad(f"column {name!r} has missing values")
    raw = col.to_numpy(zero_copy_only=False)
    out = raw.astype(dtype)
    if np.issubdtype(dtype, np.integer) and not np.array_equal(out, raw):
        raise bad(f"column {name!r} must hold whole numbers in range")
    return out


# ---- the tree ---------------------------------------------------------------------------------------
def check_links(f: dict) -> None:
    """Level order with one root; every parent one level up and earlier; children contiguous and
    counted; ``is_leaf`` exactly the nodes without children."""
    n = f["depth"].size
    depth, parent, first, kids = f["depth"], f["parent"], f["first_child"], f["n_children"]
    if not np.array_equal(f["node"], np.arange(n)):
        raise bad("node ids must be 0 .. n - 1 in order")
    if depth[0] != 0 or (depth[1:] < 1).any() or (np.diff(depth) < 0).any() or (np.diff(depth) > 1).any():
        raise bad("nodes must be stored level by level from a single root at depth 0")
    v = np.arange(1, n)
    p = parent[1:]
    if parent[0] != -1 or (p < 0).any() or (p >= v).any():
        raise bad("every node but the root needs an earlier parent")
    if (depth[p] != depth[1:] - 1).any():
        raise bad("a node's parent must lie one level up")
    if (kids < 0).any() or not np.array_equal(np.bincount(p, minlength=n), kids):
        raise bad("n_children must count each node's children")
    leaf = kids == 0
    if not np.array_equal(f["is_leaf"].astype(bool), leaf) or (first[leaf] != -1).any():
        raise bad("is_leaf and first_child must mark exactly the nodes without children")
    lo = first[p]
    if ((v < lo) | (v >= lo + kids[p])).any():
        raise bad("a node's children must be stored together at its first_child")


def check_values(f: dict, rect: np.ndarray, grid: Grid) -> None:
    """Coordinates finite, ordered and on the public grid; counts finite or NaN (unmeasured);
    variances >= 0 or inf; epsilons finite and >= 0."""
    if not np.isfinite(rect).all() or (rect[:, 2] < rect[:, 0]).any() or (rect[:, 3] < rect[:, 1]).any():
        raise bad("node rectangles must be finite with x0 <= x1 and y0 <= y1")
    d, s = grid.domain, grid.size
    pos = np.concatenate([(rect[:, [0, 2]] - d.xmin) / d.width, (rect[:, [1, 3]] - d.ymin) / d.height], axis=1) * s
    if (np.abs(pos - np.rint(pos)) > 1e-6).any() or (pos < -1e-6).any() or (pos > s + 1e-6).any():
        raise bad(f"a node rectangle lies off the public grid of resolution {grid.bits} over the domain")
    for name in ("noisy", "est"):
        if np.isinf(f[name]).any():
            raise bad(f"{name} must be finite, or NaN for an unmeasured node")
    if np.isnan(f["noise_var"]).any() or (f["noise_var"] < 0).any():
        raise bad("noise variances must be >= 0 (inf for an unmeasured node)")
    for name in ("count_eps", "split_eps", "pruned_eps"):
        if not np.isfinite(f[name]).all() or (f[name] < 0).any():
            raise bad(f"per-node {name} must be finite and >= 0")


def check_curve_ranges(tree, curve: np.ndarray | None, order, grid: Grid) -> None:
    """A Hilbert R-tree's levels are disjoint because each node counts a range [lo, hi) of curve
    positions and a parent's children split its range into consecutive runs (the boxes may overlap).
    The file must hold those ranges (columns ``curve_lo``, ``curve_hi``) and they must prove it: the
    root owns the whole curve of ``order``, every parent's children run from its ``lo`` to its ``hi``
    without gap or overlap, and every node's box holds the cells of its range (answers read the boxes). A
    file without them, or whose ranges overlap, is refused: its claim of disjointness is not believed."""
    from ..splits.hilbert_curve import range_rects
    if curve is None:
        raise bad("a Hilbert R-tree file must hold each node's curve range (columns 'curve_lo', 'curve_hi'), "
                  "which prove its levels disjoint; this one has none (rebuild it with this psdviz)")
    if isinstance(order, bool) or not isinstance(order, int) or not 1 <= order <= grid.bits:
        raise bad(f"the Hilbert order {order!r} must be a whole number from 1 to the resolution {grid.bits}")
    lo, hi = curve[:, 0], curve[:, 1]
    if lo[0] != 0 or hi[0] != 4 ** order or (lo > hi).any() or (lo < 0).any() or (hi > 4 ** order).any():
        raise bad(f"curve ranges must lie in [0, 4^{order}) with lo <= hi and the root owning the whole curve")
    inner = np.flatnonzero(tree.n_children > 0)
    first, last = tree.first_child[inner], tree.first_child[inner] + tree.n_children[inner] - 1
    kids = np.flatnonzero(tree.parent >= 0)
    after = kids[:-1][np.diff(tree.parent[kids]) == 0]          # each child followed by a sibling
    if (lo[first] != lo[inner]).any() or (hi[last] != hi[inner]).any() or (hi[after] != lo[after + 1]).any():
        raise bad("a parent's children must split its curve range into consecutive runs (no gap, no overlap)")
    box, full = range_rects(grid, order, lo, hi), hi > lo
    if not ((box[full, :2] >= tree.rect[full, :2]) & (box[full, 2:] <= tree.rect[full, 2:])).all():
        raise bad("a node's box must hold every cell of its curve range")


def check_method(method: str, private: tuple[str, ...], references: tuple[str, ...]) -> None:
    """A release file is one of psdviz's ``private`` methods: an unknown name or a non-private reference
    (kd-pure, kd-true, which psdviz never saves) is refused. The names are passed in by the loader above
    this layer (the method registry ranks above publish/)."""
    if method in references:
        raise bad(f"method {method!r} is a non-private reference, never a release: this file is not what it says")
    if method not in private:
        raise bad(f"unknown method {method!r}: this psdviz knows {', '.join(private)}")


ESTIMATE_SDS = 30.0     # an estimate this many standard deviations from its own noisy count is not derived from it


LEAST_SQUARES = ("ols", "gls", "kron")      # query models whose estimates are least squares over all the counts


def check_estimates(tree, variance: str) -> None:
    """The estimates are derived from the released noisy counts, not written beside them.

    - Every measured node (count epsilon > 0) holds a finite noisy count.
    - Its estimate lies within :data:`ESTIMATE_SDS` standard deviations of its noisy count. A least-squares
      estimate (the ``variance`` models of :data:`LEAST_SQUARES`) has at most the node's own noise variance,
      any other one is the sum of its leaves' counts (or their non-negative fit), so estimate - noisy has a
      variance of at most 4 times the node's noise variance, or 2 (its own + its leaves'); 30 standard
      deviations of two-sided geometric noise happen with a chance below 10^-12 a node. The same holds
      for the sums of the estimates and of the noisy counts over each subtree's leaves (variance at most 4 times
      the leaves' noise), which sees an edit of many small cells. An estimate column set to 0, or to anything
      not computed from the noisy counts, fails here, naming the node."""
    measured = np.flatnonzero(tree.count_eps > 0)
    bad_noisy = measured[~np.isfinite(tree.noisy[measured])]
    if bad_noisy.size:
        v = int(bad_noisy[0])
        raise bad(f"node {v} was measured (count epsilon {tree.count_eps[v]:.3g}) but its noisy count is "
                  f"{tree.noisy[v]!r}: a released count must be a finite number")
    leaf_var = tree.subtree_sum(np.where(tree.is_leaf, tree.noise_var, 0.0))
    own = tree.noise_var[measured]
    bound = np.sqrt(4.0 * own if variance in LEAST_SQUARES else 2.0 * (own + leaf_var[measured]))
    _refuse_gap(measured, tree.est[measured], tree.noisy[measured], bound, "estimate", "noisy count")
    leaves = tree.is_leaf & (tree.count_eps > 0)           # and the sums of both over every subtree's leaves
    est_sum = tree.subtree_sum(np.where(leaves, tree.est, 0.0))
    noisy_sum = tree.subtree_sum(np.where(leaves, tree.noisy, 0.0))
    nodes = np.arange(tree.n_nodes)
    _refuse_gap(nodes, est_sum, noisy_sum, np.sqrt(4.0 * leaf_var), "leaves' estimates sum to",
                "leaves' noisy counts'")


def _refuse_gap(nodes: np.ndarray, est: np.ndarray, noisy: np.ndarray, sd: np.ndarray, what: str, against: str
                ) -> None:
    gap = np.abs(est - noisy)
    off = np.isfinite(sd) & (gap > ESTIMATE_SDS * sd + 1e-9 * np.maximum(1.0, np.abs(noisy)))
    if off.any():
        i = int(np.argmax(off))
        raise bad(f"node {int(nodes[i])}'s {what} {est[i]:.6g}, {gap[i] / max(sd[i], 1e-300):.0f} standard "
                  f"deviations from its {against} {noisy[i]:.6g}: the estimates are not derived from the released "
                  "counts (an edited or damaged file)")


def check_claims(tree, ledger: Ledger, unit: str) -> None:
    """What can be derived is derived and compared with what the file states.

    - Leaves hold finite estimates (a NaN estimate would answer 0 with no error).
    - The privacy unit follows from the ledger: a file saying "one user, at most k points" must have
      every spend at sensitivity k or more (group privacy scales them), else it is a point-level file
      relabelled.
    - Node by node, no measured count is more precise than its own count epsilon allows: its variance is
      at least the two-sided geometric variance at that epsilon (over k for a user-level file, whose
      epsilons are recorded k times). A count measured once has exactly that variance; one combined from
      several measurements (their epsilons summed) has more. Zeroed variances, which would make answers
      claim to be exact, are refused so; a node's epsilon never exceeds the ledger's (checked before),
      so this also holds every node above the whole epsilon's variance."""
    from ..core.noise import geometric_variance
    leaves = tree.is_leaf
    if not np.isfinite(tree.est[leaves]).all():
        raise bad("a published cell has no finite estimate")
    parsed = loaded_unit(unit)
    k = parsed.limit if parsed.kind == "user" else None
    sens = [float(r["sensitivity"]) for r in ledger.records() if r.get("sensitivity") is not None
            and float(r["epsilon"]) > 0]
    if k is not None and k > 1 and sens and min(sens) < k * (1 - 1e-9):
        raise bad(f"the file says its privacy unit is {str(parsed)!r}, but its ledger spends at sensitivity "
                  f"{min(sens):g}: "
                  "a user-level release spends every measurement at sensitivity k or more (group privacy)")
    var = tree.noise_var
    measured = np.isfinite(var) & (tree.count_eps > 0)
    k_all = float(parsed.limit) if parsed.kind == "user" else 1.0      # user level: count_eps counts k times
    own = np.asarray(geometric_variance(tree.count_eps[measured] / k_all), float) * (1 - 1e-9)
    low = var[measured] < own
    if low.any():
        v = int(np.flatnonzero(measured)[np.argmax(low)])
        raise bad(f"node {v} states a noise variance of {var[v]:.3g}, below {own[np.argmax(low)]:.3g}, the least "
                  f"its own count epsilon {tree.count_eps[v]:.3g} gives: the file claims answers more exact than its "
                  "noise")


def check_against_ledger(worst_path: float, ledger: Ledger) -> None:
    """The costliest root-to-leaf path of the nodes is what the ledger spent: more is a file claiming a
    stronger guarantee than its noise gives, less is epsilons edited down on the nodes."""
    budget, total = ledger.budget, ledger.total()
    if worst_path > budget * (1 + TOLERANCE):
        raise ReleaseFileError(f"a root-to-leaf path of the file's tree records epsilon {worst_path:g}, more than its "
                         f"stated epsilon {budget:g}: {_DAMAGED}")
    if not math.isclose(worst_path, total, rel_tol=1e-6, abs_tol=1e-9):
        raise bad(f"the nodes record epsilon {worst_path:g} on their costliest path but the ledger spent {total:g}")


# ---- the query model --------------------------------------------------------------------------------
def _ints(values, name: str) -> np.ndarray:
    if not isinstance(values, list) or not all(_typed(v, int) for v in values):
        raise bad(f"query model {name} must be a list of whole numbers")
    return np.asarray(values, dtype=np.int64)


def complete_size(fanout: int, height: int) -> int:
    """Nodes of a complete tree (exact integers: never overflows, never allocates)."""
    return sum(fanout ** d for d in range(height + 1))


def check_query_model(model: dict, height: int, n: int, grid: Grid, kept: np.ndarray | None) -> None:
    """Sizes and ranges of the query model against the tree it describes, before anything is built."""
    answer, variance = model.get("answer"), model.get("variance")
    if answer == "pyramid":
        levels = _ints(model.get("levels"), "levels")
        if levels.size == 0 or (levels < 0).any() or (levels > height).any() or (np.diff(levels) <= 0).any():
            raise bad(f"pyramid levels must be increasing depths of the tree (0 .. {height})")
        if not isinstance(model.get("regular"), bool):
            raise bad("pyramid 'regular' must be true or false")
    if answer == "grid_of_grids":
        edges = _ints(model.get("edges1"), "edges1")
        if edges.size < 2 or edges[0] != 0 or edges[-1] != grid.size or (np.diff(edges) <= 0).any() \
                or (edges.size - 1) ** 2 > n - 1:
            raise bad("grid_of_grids edges1 must rise from 0 to the grid size with at most n - 1 cells")
    if variance in ("complete_leaf", "ols"):
        _check_complete(model, height, n, kept)
    if variance == "kron":
        _check_kron(model, n)
    cuts = model.get("data_cuts", 0)
    if not (_typed(cuts, int) and 0 <= cuts <= height):
        raise bad(f"data_cuts must be a depth of the tree (0 .. {height}), got {cuts!r}")


def _check_kron(model: dict, n: int) -> None:
    """A product strategy: one positive epsilon, and per axis non-negative parameters, at most one row per cell
    (so never more numbers than the file has cells)."""
    eps = model.get("eps")
    if not (isinstance(eps, list) and len(eps) == 1 and is_number(eps[0]) and 0 < eps[0] < math.inf):
        raise bad("the kron query model needs one positive epsilon")
    for key in ("theta_x", "theta_y"):
        vals = model.get(key)
        if not isinstance(vals, list) or len(vals) > n - 1 or not all(
                is_number(v) and 0 <= v < math.inf for v in vals):
            raise bad(f"query model {key!r} must hold at most {n - 1:,} finite numbers >= 0")


def _check_complete(model: dict, height: int, n: int, kept: np.ndarray | None) -> None:
    given = model.get("fanout"), model.get("full_height")
    fanout, full = (cast(int, v) if _typed(v, int) else -1 for v in given)
    if not (2 <= fanout <= MAX_FANOUT and height <= full <= MAX_FULL_HEIGHT):
        raise bad(f"the complete tree needs a fanout in [2, {MAX_FANOUT}] and a full_height in [{height}, "
                  f"{MAX_FULL_HEIGHT}] (got {given[0]!r}, {given[1]!r})")
    size = complete_size(fanout, full)
    if size > MAX_NODES:
        raise bad(f"a complete tree of fanout {fanout} and height {full} has {size:,} nodes, above {MAX_NODES:,}")
    if kept is None and size != n:
        raise bad(f"the file has {n:,} nodes but its complete tree {size:,}, and no full_index")
    if kept is not None and (kept.size != n or kept[0] != 0 or (np.diff(kept) <= 0).any() or kept[-1] >= size):
        raise bad("full_index must map the nodes, in order, into the complete tree")
    for key in ("var",) + (("eps",) if model["variance"] == "ols" else ()):
        vals = model.get(key)
        if not isinstance(vals, list) or len(vals) != full + 1 or not all(
                v is None or (is_number(v) and not math.isnan(v) and v >= 0) for v in vals):
            raise bad(f"query model {key!r} must hold {full + 1} numbers >= 0 (one per depth)")
