"""Weighted least squares on any flat tree with per-node noise variances (constrained inference).

Used by the adaptive grid (Qardaji et al. ICDE'13, "constrained inference") and the private h-tree
(Algorithm 3 and section 4.2.5). Both papers describe the same two steps for a node and its
children: combine the node's own noisy count and the sum of its children by inverse-variance
weighting, then spread the difference over the children. With unequal fanouts and budgets the
ICDE'12 three-pass OLS (``ols.py``, uniform fanout only) does not apply, so this module implements
the exact weighted least-squares (GLS) estimate for a tree of independent noisy counts:

* bottom-up: z_v = a_v Y_v + (1 - a_v) s_v with s_v = sum of children's z, a_v = S_v / (var_v + S_v)
  where S_v = Var(s_v); Var(z_v) = var_v S_v / (var_v + S_v). Unmeasured nodes (infinite
  variance) take z_v = s_v; leaves take z_v = Y_v.
* top-down: x_root = z_root; for a child c of v: x_c = z_c + (x_v - s_v) Var(z_c) / S_v.

For a node whose children have equal variances the difference is spread *evenly*, which is exactly
the papers' rule. The variances are data-independent, so the map Y -> x is linear and
:func:`gls_adjoint` gives its transpose (exact variances of post-processed query answers).
Leaves must be measured (finite variance).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.ragged import runs
from ..core.tree import FlatTree


@dataclass(frozen=True)
class GlsPlan:
    """Data-independent coefficients of the two passes."""

    a: np.ndarray       # weight of a node's own count in z_v (0 for unmeasured nodes)
    b: np.ndarray       # share of the parent's difference given to a node (0 for the root)
    var_z: np.ndarray   # Var(z_v)
    bounds: np.ndarray  # level bounds of the tree


def gls_plan(tree: FlatTree, noise_var: np.ndarray) -> GlsPlan:
    """Coefficients a_v, b_v from the per-node noise variances (inf = not measured)."""
    var = np.asarray(noise_var, dtype=float)
    n = tree.n_nodes
    leaf = tree.is_leaf
    if not np.isfinite(var[leaf]).all():
        raise ValueError("every leaf must have a noisy count (finite noise variance)")
    bounds = tree.level_bounds()
    var_z = np.where(leaf, var, 0.0)
    a = np.zeros(n)
    for d in range(tree.height - 1, -1, -1):
        lo, hi, chi = bounds[d], bounds[d + 1], bounds[d + 2]
        s_var = np.bincount(tree.parent[hi:chi] - lo, weights=var_z[hi:chi], minlength=hi - lo)
        internal = ~leaf[lo:hi]
        own = var[lo:hi]
        measured = internal & np.isfinite(own)
        with np.errstate(invalid="ignore", divide="ignore"):
            tot = own + s_var   # both 0 (noise-free counts at a huge epsilon): take the node's own count
            a_d = np.where(measured, np.where(tot > 0, s_var / tot, 1.0), 0.0)
            vz = np.where(measured, np.where(tot > 0, own * s_var / tot, 0.0), s_var)
        a[lo:hi] = a_d
        var_z[lo:hi] = np.where(internal, vz, var_z[lo:hi])
    child = tree.parent >= 0
    s_par = np.bincount(tree.parent[child], weights=var_z[child], minlength=n)
    b = np.zeros(n)
    with np.errstate(invalid="ignore", divide="ignore"):
        b[child] = np.where(s_par[tree.parent[child]] > 0, var_z[child] / s_par[tree.parent[child]], 0.0)
    return GlsPlan(a, b, var_z, bounds)


def _scatter(idx: np.ndarray, vals: np.ndarray, size: int) -> np.ndarray:
    """out[i] = sum of vals rows with idx == i: one ``reduceat`` over all columns when ``idx`` is sorted (a
    flat tree stores each level's children in their parents' order), else column by column with bincount."""
    if not vals.shape[1] or not idx.size:
        return np.zeros((size, vals.shape[1]))
    if (idx[:-1] <= idx[1:]).all():
        out = np.zeros((size, vals.shape[1]))
        start = np.flatnonzero(np.r_[True, idx[1:] != idx[:-1]])
        out[idx[start]] = np.add.reduceat(vals, start, axis=0)
        return out
    return np.column_stack([np.bincount(idx, weights=vals[:, j], minlength=size) for j in range(vals.shape[1])])


def _children_sum(tree: FlatTree, values: np.ndarray, lo: int, hi: int, chi: int) -> np.ndarray:
    """Per node of level [lo, hi): sum over its children (which lie in [hi, chi)) of ``values``."""
    return _scatter(tree.parent[hi:chi] - lo, values[hi:chi], hi - lo)


def gls_estimate(tree: FlatTree, noisy: np.ndarray, plan: GlsPlan) -> np.ndarray:
    """Consistent GLS estimates for every node from the released noisy counts."""
    y = np.where(np.isfinite(noisy), noisy, 0.0)[:, None]
    return _forward(tree, y, plan)[:, 0]


def gls_estimate_columns(tree: FlatTree, noisy: np.ndarray, plan: GlsPlan) -> np.ndarray:
    """:func:`gls_estimate` of many independent count vectors on one tree at once: ``noisy`` is (n_nodes, k),
    one column per vector (the same plan: the same noise variances), the estimates (n_nodes, k)."""
    y = np.asarray(noisy, dtype=float)
    return _forward(tree, np.where(np.isfinite(y), y, 0.0), plan)


def _forward(tree: FlatTree, y: np.ndarray, plan: GlsPlan) -> np.ndarray:
    bounds, leaf = plan.bounds, tree.is_leaf
    z = np.where(leaf[:, None], y, 0.0)
    s = np.zeros_like(z)
    for d in range(tree.height - 1, -1, -1):
        lo, hi, chi = bounds[d], bounds[d + 1], bounds[d + 2]
        s[lo:hi] = _children_sum(tree, z, lo, hi, chi)
        a = plan.a[lo:hi, None]
        z[lo:hi] = np.where(leaf[lo:hi, None], z[lo:hi], a * y[lo:hi] + (1 - a) * s[lo:hi])
    x = z.copy()
    for d in range(1, tree.height + 1):
        lo, hi = bounds[d], bounds[d + 1]
        p = tree.parent[lo:hi]
        x[lo:hi] = z[lo:hi] + plan.b[lo:hi, None] * (x[p] - s[p])
    return x


def gls_adjoint(tree: FlatTree, plan: GlsPlan, leaf_weights: np.ndarray) -> np.ndarray:
    """Coefficients c (n_nodes, k) with w^T x_leaves = c^T Y for each column w of ``leaf_weights``
    (given on all nodes, only leaf rows used): reverse-mode pass through :func:`_forward`."""
    bounds, leaf = plan.bounds, tree.is_leaf
    gx = np.where(leaf[:, None], np.asarray(leaf_weights, dtype=float), 0.0)
    gz = np.zeros_like(gx)
    gs = np.zeros_like(gx)
    for d in range(tree.height, 0, -1):   # reverse of the top-down pass
        lo, hi = bounds[d], bounds[d + 1]
        p = tree.parent[lo:hi]
        gz[lo:hi] += gx[lo:hi]
        bg = plan.b[lo:hi, None] * gx[lo:hi]
        plo = bounds[d - 1]
        acc = _scatter(p - plo, bg, lo - plo)
        gx[plo:lo] += acc
        gs[plo:lo] -= acc
    gz[0] += gx[0]
    gy = np.zeros_like(gx)
    for d in range(0, tree.height + 1):   # reverse of the bottom-up pass
        lo, hi = bounds[d], bounds[d + 1]
        if d:
            p = tree.parent[lo:hi]
            gz[lo:hi] += gs[p]
        a = np.where(leaf[lo:hi], 1.0, plan.a[lo:hi])[:, None]
        gy[lo:hi] += a * gz[lo:hi]
        gs[lo:hi] += np.where(leaf[lo:hi, None], 0.0, (1 - a) * gz[lo:hi])
    return gy


def gls_variance_fn(tree: FlatTree, plan: GlsPlan):
    """Release.leaf_variance callable: (n_nodes, k) leaf weights -> (k,) exact variances; its ``pairs``
    attribute takes the same weights as sparse (query, leaf, weight) triples (:func:`gls_pairs_variance`)."""
    var = np.where(np.isfinite(tree.noise_var), tree.noise_var, 0.0)

    def fn(w: np.ndarray) -> np.ndarray:
        c = gls_adjoint(tree, plan, w)
        return (c ** 2 * var[:, None]).sum(axis=0)
    fn.pairs = lambda q, leaf, w, k: gls_pairs_variance(tree, plan, q, leaf, w, k)   # type: ignore[attr-defined]
    return fn


def gls_pairs_variance(tree: FlatTree, plan: GlsPlan, q: np.ndarray, leaf: np.ndarray, w: np.ndarray,
                       k: int) -> np.ndarray:
    """Exact variances of k weighted sums of leaf estimates, sum_i w_i x[leaf_i] over the triples with
    q_i = j, touching only the touched leaves' ancestors and the ancestors' children.

    The reverse pass of :func:`gls_adjoint` is non-zero on every node, but below a child c of an ancestor
    that no touched leaf lies under it reaches the counts only through z_c, the subtree's bottom-up
    estimate, whose variance is Var(z_c) (``plan.var_z``): such a subtree adds g_c^2 Var(z_c), g_c being
    the gradient reaching z_c. So the pass runs on (query, node) pairs: up through the ancestors (the
    reverse of the top-down pass), then down through them and their children (the reverse of the
    bottom-up pass), each level's pairs sorted by (query, node). Equal to :func:`gls_variance_fn` on the
    dense weights (tested), in time proportional to the pairs instead of queries x nodes."""
    n = tree.n_nodes
    var = np.where(np.isfinite(tree.noise_var), tree.noise_var, 0.0)
    q, leaf, w = np.asarray(q, np.int64), np.asarray(leaf, np.int64), np.asarray(w, float)
    height = int(tree.depth[leaf].max(initial=0))
    keys: list[np.ndarray] = [np.zeros(0, np.int64)] * (height + 1)
    gx: list[np.ndarray] = [np.zeros(0)] * (height + 1)
    gs: list[np.ndarray] = [np.zeros(0)] * (height + 1)
    up_key, up_val = np.zeros(0, np.int64), np.zeros(0)
    for d in range(height, -1, -1):                    # up: the reverse of the top-down pass
        at = tree.depth[leaf] == d
        key = np.concatenate([q[at] * n + leaf[at], up_key])
        keys[d], inv = np.unique(key, return_inverse=True)
        gx[d] = np.bincount(inv, weights=np.concatenate([w[at], up_val]), minlength=keys[d].size)
        gs[d] = -np.bincount(inv[at.sum():], weights=up_val, minlength=keys[d].size)
        node = keys[d] % n
        if d:
            up_key, up_val = (keys[d] // n) * n + tree.parent[node], plan.b[node] * gx[d]
    out, gs_done = np.zeros(k), np.zeros(0)
    gz = gx[0]                                         # the root: its z's gradient is its x's
    for d in range(height + 1):                        # down: the reverse of the bottom-up pass
        node, qq = keys[d] % n, keys[d] // n
        if d:
            gz = gx[d] + _from_parents(tree, keys[d - 1], gs_done, keys[d], out, plan, n)
        internal = tree.n_children[node] > 0
        a = np.where(internal, plan.a[node], 1.0)
        out += np.bincount(qq, weights=(a * gz) ** 2 * var[node], minlength=k)
        gs_done = gs[d] + np.where(internal, (1.0 - a) * gz, 0.0)
    return out


def _from_parents(tree: FlatTree, parent_keys: np.ndarray, parent_gs: np.ndarray, keys: np.ndarray,
                  out: np.ndarray, plan: GlsPlan, n: int) -> np.ndarray:
    """The gradient each child of the previous level's pairs receives from its parent's children sum: the
    children among ``keys`` get it returned; the others' whole subtrees add it squared times Var(z) to
    ``out``."""
    node, qq = parent_keys % n, parent_keys // n
    kids = tree.n_children[node].astype(np.int64)
    owner = np.repeat(np.arange(node.size), kids)
    child = runs(tree.first_child[node], kids)
    child_key = qq[owner] * n + child
    g = parent_gs[owner]
    pos = np.minimum(np.searchsorted(keys, child_key), max(keys.size - 1, 0))
    found = keys[pos] == child_key if keys.size else np.zeros(child_key.size, dtype=bool)
    out += np.bincount(qq[owner[~found]], weights=g[~found] ** 2 * plan.var_z[child[~found]], minlength=out.size)
    got = np.zeros(keys.size)
    got[pos[found]] = g[found]
    return got


def gls_node_variance(tree: FlatTree, noise_var: np.ndarray, plan: GlsPlan) -> np.ndarray:
    """Exact variance of every node's least-squares estimate, in two passes (O(n), no adjoint per node).

    The estimate of node c combines two independent pieces of evidence about its count: the
    measurements inside its subtree, summarised by z_c with Var(z_c) (the bottom-up pass of
    :func:`gls_plan`), and those outside it, which reach c through its parent p as
    (p's count from outside its own subtree, and p's own noisy count) minus the siblings' z. Their
    variances: o_p = 1 / (1 / q_p + 1 / var_p) for the first (q_root = inf), plus S_p - Var(z_c) for the
    siblings (S_p: the sum of the children's Var(z)); so q_c = o_p + S_p - Var(z_c), and the estimate's
    variance is 1 / (1 / Var(z_c) + 1 / q_c), as for any inverse-variance combination. This is the same
    linear estimate :func:`gls_estimate` computes (the weighted least squares of a tree of independent
    counts), so the figures equal :func:`gls_variance_fn` on each node's leaves; data-independent."""
    var = np.asarray(noise_var, dtype=float)
    n, vz, bounds = tree.n_nodes, plan.var_z, plan.bounds
    child = tree.parent >= 0
    s_par = np.bincount(tree.parent[child], weights=vz[child], minlength=n)
    q = np.full(n, np.inf)
    out = vz.astype(float).copy()
    with np.errstate(divide="ignore", invalid="ignore"):
        for d in range(tree.height):
            hi, chi = bounds[d + 1], bounds[d + 2]
            p = tree.parent[hi:chi]
            info = 1.0 / q[p] + np.where(np.isfinite(var[p]), 1.0 / var[p], 0.0)   # p's outside + own
            q[hi:chi] = np.where(info > 0, 1.0 / info, np.inf) + np.maximum(s_par[p] - vz[hi:chi], 0.0)
            both = 1.0 / vz[hi:chi] + 1.0 / q[hi:chi]
            out[hi:chi] = np.where(both > 0, 1.0 / both, np.inf)
    return out
