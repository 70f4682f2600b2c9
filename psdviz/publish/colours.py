"""Colours for a release's cells that do not invent structure (the classes the app's map, its PNG and
``psdviz.explore`` share; no Streamlit, no folium, no HTML).

A cell whose estimate is within two noise standard deviations of zero is pale whatever the class
breaks; the lowest class starts below the sparsest cells holding :data:`LOW_SHARE` of the estimated
points, which are pale too; classes of log density are at least two noise standard deviations wide
(docs/decisions/honest-colours.md). Everything here reads released values only.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

import numpy as np

from ..query.raster import rasterize
from .cells import cell_density, relative_noise, within_noise
from .pale_parts import pale_parts
from .spatial import SpatialRelease

# a sequential palette (light yellow -> dark purple), 9 steps; the first is the pale one
PALETTE = ["#fcfdbf", "#feca8d", "#fd9668", "#f1605d", "#cd4071", "#9e2f7f", "#721f81", "#440f76", "#180f3d"]
LOW_SHARE = 0.005   # the sparsest cells holding this share of the estimated points are drawn pale
PALE_WORDS = "not distinguishable from zero (estimate within 2 noise standard deviations of 0)"


@dataclass(frozen=True)
class Colours:
    """log10 density classes: palette index per cell, the range shown, the class edges (log10), the
    log10 width of two noise standard deviations that no step is finer than, and the finer parts drawn
    pale over their cells (:func:`psdviz.publish.pale_parts.pale_parts`; node ids)."""

    index: np.ndarray
    lo: float
    hi: float
    edges: tuple[float, ...] = ()
    noise: float = 0.0
    parts: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))


def _weighted_quantile(values: np.ndarray, weights: np.ndarray, q) -> np.ndarray:
    order = np.argsort(values)
    cum = np.cumsum(weights[order])
    return np.interp(np.asarray(q) * cum[-1], cum, values[order])


def colour_bins(density: np.ndarray, faint: np.ndarray | None = None,
                rel_sd: np.ndarray | None = None, area: np.ndarray | None = None) -> Colours:
    """Classes of log10 density between the 2nd and 98th percentiles of the cells not within noise,
    each class at least two noise standard deviations wide: ``rel_sd`` is each cell's noise sd over its
    estimate, and log10(1 + 2 sd / est) at the 90th percentile is the narrowest step allowed. With
    ``area``, percentiles weigh cells by their area (what the eye sees), so many tiny noisy cells do not
    stretch the range. Data within
    noise of each other therefore share a colour or sit in neighbouring classes; uniform data draw one
    colour. At most len(PALETTE) classes, spread over the palette.

    Cells flagged ``faint`` (estimate within two noise standard deviations of zero,
    :func:`psdviz.publish.cells.within_noise`) get the palest colour whatever the class breaks and however
    large the cell, and do not stretch the range: a cell the release cannot tell from empty is never
    painted as data. With ``area``, the lowest class starts at the density below which the sparsest cells
    hold :data:`LOW_SHARE` of the estimated points; cells below it are pale too (the legend says so), so a
    vast cell holding a few outlying points does not carry the data's colour over empty land
    (docs/decisions/honest-colours.md). Reads released values only."""
    faint = np.zeros(density.size, bool) if faint is None else np.asarray(faint, bool)
    keep = np.isfinite(density) & (density > 0) & ~faint
    if not keep.any():
        return Colours(np.zeros(density.size, int), 0.0, 0.0)
    lg = np.log10(density[keep])
    w = np.ones(lg.size) if area is None else np.maximum(np.asarray(area, float)[keep], 0.0) + 1e-300
    lo, hi = (float(v) for v in _weighted_quantile(lg, w, [0.02, 0.98]))
    if area is not None:     # the lowest class starts below the sparsest cells that hold LOW_SHARE of the points
        held = np.maximum(density[keep] * np.maximum(np.asarray(area, float)[keep], 0.0), 0.0) + 1e-300
        lo = float(_weighted_quantile(lg, held, LOW_SHARE))
    noise = 0.0
    if rel_sd is not None and np.isfinite(np.asarray(rel_sd, float)[keep]).any():
        rs = np.asarray(rel_sd, float)[keep]
        ok = np.isfinite(rs)
        noise = float(np.log10(1.0 + 2.0 * _weighted_quantile(rs[ok], w[ok], 0.9)))
    n = int(np.clip(np.floor((hi - lo) / noise) if noise > 0 else len(PALETTE), 1, len(PALETTE)))
    hi = max(hi, lo + max(noise, 1e-9))
    drawn = keep.copy()
    if area is not None:       # (logs compared with a margin: cells tied at the quantile stay drawn)
        drawn[keep] = lg >= lo - 1e-9
    with np.errstate(divide="ignore", invalid="ignore"):
        v = np.where(drawn & (density > 0), np.log10(np.where(density > 0, density, 1)), lo)
    cls = np.clip(np.floor((v - lo) / (hi - lo) * n), 0, n - 1).astype(int)
    shades = np.rint(np.linspace(1 if n > 1 else len(PALETTE) // 2, len(PALETTE) - 1, n)).astype(int)
    idx = np.where(drawn, shades[cls], 0)
    return Colours(idx, lo, hi, tuple(np.linspace(lo, hi, n + 1)), noise)


def view_colours(views: list[tuple[SpatialRelease, np.ndarray]]) -> list[Colours]:
    """One honest colour scale (:func:`colour_bins`) for the cells ``nodes`` of one or more releases:
    the classes come from all their cells together, so equal colours mean equal densities on every
    map that shares the scale. Returns each view's :class:`Colours`, with the finer parts of its cells
    that are drawn pale over them (:func:`psdviz.publish.pale_parts.pale_parts`)."""
    cells = [_cells(r, n) for r, n in views]
    both = colour_bins(*(np.concatenate([c[i] for c in cells]) for i in range(4)))
    cuts = np.cumsum([n.size for _, n in views])[:-1]
    return [dataclasses.replace(both, index=ix, parts=pale_parts(r, n))
            for ix, (r, n) in zip(np.split(both.index, cuts), views)]


def shade_grid(release: SpatialRelease, nodes: np.ndarray, colours: Colours, xs: np.ndarray,
               ys: np.ndarray) -> np.ndarray:
    """(len(ys), len(xs)) palette index of what is drawn under each pixel centre: the class of the cell
    ``nodes`` holding it, pale inside the colours' pale parts, ``len(PALETTE)`` outside every cell."""
    rect = release.tree.rect
    ids = rasterize(rect[nodes], np.arange(nodes.size, dtype=float), xs, ys, fill=-1)
    shade = np.append(np.asarray(colours.index, dtype=np.int64), len(PALETTE))
    out = shade[np.where(ids >= 0, ids, nodes.size).astype(np.int64)]
    if colours.parts.size:
        inside = rasterize(rect[colours.parts], np.ones(colours.parts.size), xs, ys, fill=0.0) > 0
        out[inside] = 0
    return out


def _cells(release: SpatialRelease, nodes: np.ndarray) -> tuple[np.ndarray, ...]:
    """Density, within-noise flag, relative noise and area of the cells ``nodes``."""
    t = release.tree
    r = t.rect[nodes]
    area = (r[:, 2] - r[:, 0]) * (r[:, 3] - r[:, 1])
    return cell_density(t, nodes), within_noise(t, nodes), relative_noise(t, nodes), area


def legend_entries(colours: Colours) -> list[tuple[str, str]]:
    """(colour, density range) of every class drawn, palest first (the pale class of cells within noise aside):
    what every legend of the map shows, in HTML or in a PNG."""
    edges = colours.edges or (colours.lo, colours.hi)
    n = len(edges) - 1
    shades = np.rint(np.linspace(1 if n > 1 else len(PALETTE) // 2, len(PALETTE) - 1, n)).astype(int)
    text = _edge_texts([10 ** e for e in edges])
    return [(PALETTE[s], f"{a}-{b}") for s, a, b in zip(shades, text[:-1], text[1:])]


def _edge_texts(values: list[float]) -> list[str]:
    """Class edges rounded for people: two significant digits (thousands separated), more only where two edges
    would otherwise read alike."""
    for digits in range(2, 7):
        text = [density_text(v, digits) for v in values]
        if len(set(text)) == len(text):
            break
    return text


PARTS_WORDS = ("finer parts of a cell whose own count is within noise of zero and over 2 noise standard "
               "deviations below their share of the cell are pale over it")


def parts_words(colours: Colours) -> str:
    """The legend's clause on pale finer parts (with its leading separator), or "" when none is drawn."""
    return f"; {PARTS_WORDS}" if colours.parts.size else ""


def density_text(v: float, digits: int = 2) -> str:
    """``v`` to ``digits`` significant digits, whole numbers from 100 with thousands separated."""
    if not math.isfinite(v):
        return "?"
    r = float(f"{v:.{digits}g}")
    return f"{r:,.0f}" if r >= 100 else f"{r:.{digits}g}"
