"""Fast canonical queries on an ht-standard tree: x-strips, each cut into y-cells.

For a query, the strips overlapping its x-range are a contiguous run (strip edges are sorted).
Each (query, strip) pair contributes the strip's x-overlap fraction times the integral of the
strip's piecewise-constant y-density over the query's y-range (the uniformity assumption inside a
cell), read from a cumulative table by one global ``searchsorted``; a strip fully inside the query
contributes its own value, as in the canonical decomposition (ICDE'12 section 4.1).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .domain import Domain
from .tree import FlatTree


@dataclass
class StripIndex:
    strip_rect: np.ndarray   # (s, 4)
    strip_val: np.ndarray    # (s,) strip values (noisy or estimates)
    edge_key: np.ndarray     # cell y-edges per strip, as 2 * strip + normalised y (sorted)
    cum: np.ndarray          # cumulative cell values at each edge
    edge_y: np.ndarray       # cell y-edges
    ymin: float
    height: float

    @classmethod
    def from_tree(cls, tree: FlatTree, domain: Domain, consistent: bool) -> "StripIndex":
        vals = tree.est if consistent else tree.noisy
        strips = np.flatnonzero(tree.depth == 1)
        cells = np.flatnonzero(tree.depth == 2)
        k = tree.n_children[strips].astype(np.int64)
        owner = np.repeat(np.arange(strips.size), k)
        first = np.cumsum(k + 1) - (k + 1)
        n_edges = int((k + 1).sum())
        edge_y = np.empty(n_edges)
        edge_y[first] = tree.rect[strips, 1]
        rest = np.setdiff1d(np.arange(n_edges), first)
        edge_y[rest] = tree.rect[cells, 3]
        cv = np.zeros(n_edges)
        cv[rest] = vals[cells]
        cum = np.cumsum(cv)
        cum -= np.repeat(cum[first], k + 1)
        strip_of_edge = np.repeat(np.arange(strips.size), k + 1)
        key = 2.0 * strip_of_edge + (edge_y - domain.ymin) / domain.height
        return cls(tree.rect[strips], vals[strips], key, cum, edge_y, domain.ymin, domain.height)

    def _cumulative(self, strip: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Integral of the strip's y-density from its bottom up to y (y clipped to the strip)."""
        y = np.clip(y, self.strip_rect[strip, 1], self.strip_rect[strip, 3])
        key = 2.0 * strip + (y - self.ymin) / self.height
        i = np.searchsorted(self.edge_key, key, side="right") - 1
        lo_key = 2.0 * strip
        i = np.maximum(i, np.searchsorted(self.edge_key, lo_key, side="left"))
        nxt = np.minimum(i + 1, self.edge_key.size - 1)
        span = self.edge_y[nxt] - self.edge_y[i]
        same = (nxt == i) | (self.edge_key[nxt] >= 2.0 * strip + 2)
        with np.errstate(invalid="ignore", divide="ignore"):
            frac = np.where(same | (span <= 0), 0.0, (y - self.edge_y[i]) / span)
        step = np.where(same, 0.0, self.cum[nxt] - self.cum[i])
        return self.cum[i] + np.clip(frac, 0, 1) * step

    def answer(self, rects: np.ndarray) -> np.ndarray:
        sx0, sx1 = self.strip_rect[:, 0], self.strip_rect[:, 2]
        lo = np.searchsorted(sx1, rects[:, 0], side="right")       # first strip ending after x0
        hi = np.searchsorted(sx0, rects[:, 2], side="left")        # strips starting before x1
        n = np.maximum(hi - lo, 0)
        q = np.repeat(np.arange(rects.shape[0]), n)
        s = np.arange(q.size) - np.repeat(np.cumsum(n) - n, n) + np.repeat(lo, n)
        r = rects[q]
        sr = self.strip_rect[s]
        ox = np.minimum(r[:, 2], sr[:, 2]) - np.maximum(r[:, 0], sr[:, 0])
        w = sr[:, 2] - sr[:, 0]
        fx = np.divide(np.maximum(ox, 0), w, out=np.zeros(w.size), where=w > 0)
        inside = (sr[:, 0] >= r[:, 0]) & (sr[:, 2] <= r[:, 2]) & (sr[:, 1] >= r[:, 1]) & (sr[:, 3] <= r[:, 3])
        part = fx * (self._cumulative(s, r[:, 3]) - self._cumulative(s, r[:, 1]))
        ok = (ox > 0) & (r[:, 3] > r[:, 1])
        val = np.where(inside & ok, self.strip_val[s], np.where(ok, part, 0.0))
        return np.bincount(q, weights=val, minlength=rects.shape[0])
