"""Colour classes for region counts that show the structure there is and none the noise makes (the rule the
app's choropleth and ``psdviz.explore`` share; no folium, no Streamlit, no HTML).

The regions not within two standard errors of zero are cut at quantiles of their estimates; a break stays
only where the classes on either side differ by more than their noise and no inner class is narrower than
two typical standard errors; at most len(PALETTE) classes (docs/decisions/region-colours.md). Reads released
values only: the classes are post-processing of a private release.
"""
from __future__ import annotations

import math

import numpy as np

PALETTE = ["#fff5eb", "#fdd0a2", "#fdae6b", "#fd8d3c", "#f16913", "#d94801", "#8c2d04"]
PALE = "#f2f2f2"          # within two standard errors of zero: not told apart from an empty region
FINE = 4                  # candidate breaks per class: quantiles at 1 / (FINE x classes) before the noise merges them


def noise_width(se: np.ndarray, measured: np.ndarray | None = None) -> float:
    """Two typical standard errors: the median over the regions measured on their own when there are
    any (an area share's standard error is a fraction of its pooled region's, so counting the shares
    would narrow the classes below the measured regions' noise), else over all; 1 for no region."""
    pick = se[measured] if measured is not None and measured.any() else se
    return 2.0 * float(np.median(pick)) if pick.size else 1.0


def classes(estimate: np.ndarray, se: np.ndarray, floor: float = 1.0, measured: np.ndarray | None = None,
            width_se: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(class index per region, -1 for "within noise of zero"; the class edges, n + 1 of them).

    Breaks come from the estimates' spread: the regions not within two standard errors of zero are cut at
    quantiles of their estimates (FINE x len(PALETTE) candidate classes, ties never split); breaks are then
    removed, the weakest first, until every break separates classes whose medians differ by at least two
    standard errors of their difference (each class's own regions' errors: ``width_se`` when given, the noise
    with a modelled error beside it, else ``se``) and every inner class is at least :func:`noise_width` wide
    (of the regions measured on their own when ``measured`` marks any, and at least ``floor``: one for
    counts); last, while more than len(PALETTE) classes remain, the two neighbours holding fewest regions are
    merged. So two regions within noise of each other share a colour or sit in neighbouring classes, regions
    that differ by noise alone draw one colour, and each colour holds a share of the regions, not only the
    tail (docs/decisions/region-colours.md)."""
    width = np.asarray(se if width_se is None else width_se, float)
    measured_noise = noise_width(width, measured)   # the regions measured on their own: all, or those marked
    drawn = estimate > 2.0 * se
    if not drawn.any():
        return np.full(estimate.size, -1), np.array([0.0, max(floor, 1e-9)])
    v = estimate[drawn]
    edges = _quantile_edges(v, FINE * len(PALETTE), floor)
    while edges.size > 2:                        # honesty: every break a difference the noise cannot make
        weakest, score = _weakest_break(v, width[drawn], edges, max(measured_noise, floor))
        if score >= 1.0:
            break
        edges = np.delete(edges, weakest + 1)
    while edges.size > len(PALETTE) + 1:         # legibility: merge the neighbours holding fewest regions
        held = np.bincount(np.searchsorted(edges[1:-1], v, side="right"), minlength=edges.size - 1)
        edges = np.delete(edges, int(np.argmin(held[:-1] + held[1:])) + 1)
    cls = np.searchsorted(edges[1:-1], estimate, side="right")
    return np.where(drawn, cls, -1), edges


def _quantile_edges(v: np.ndarray, n: int, floor: float) -> np.ndarray:
    """The lowest value, up to n - 1 breaks and the highest: each break halfway between the two distinct
    values nearest to a rank k / n of the sorted values (ties never split, and many equal values do not
    swallow the break between them and the rest)."""
    s = np.sort(v)
    change = np.flatnonzero(np.diff(s) > 0)             # a break can sit between s[i] and s[i + 1]
    if not change.size:
        return np.array([s[0], s[0] + max(floor, 1e-9)])
    want = np.arange(1, n) * s.size / n - 1.0
    pick = np.unique(change[np.abs(change[None, :] - want[:, None]).argmin(axis=1)])
    return np.r_[s[0], (s[pick] + s[pick + 1]) / 2.0, s[-1]]


def _weakest_break(v: np.ndarray, width: np.ndarray, edges: np.ndarray, narrowest: float) -> tuple[int, float]:
    """(index of the inner break least supported by the noise, its score: at least 1 when it holds). Classes
    apart: their medians differ by two standard errors of the difference (each class's regions' own errors);
    inner classes wide: at least ``narrowest`` (two typical errors of the regions measured on their own)."""
    cls = np.searchsorted(edges[1:-1], v, side="right")
    n = edges.size - 1
    med = np.array([np.median(v[cls == i]) if (cls == i).any() else np.nan for i in range(n)])
    noise = np.array([noise_width(width[cls == i]) if (cls == i).any() else 0.0 for i in range(n)])
    apart = np.nan_to_num(np.diff(med), nan=0.0) / np.maximum(np.hypot(noise[:-1], noise[1:]), 1e-300)
    wide = np.diff(edges) / max(narrowest, 1e-300)
    wide[[0, -1]] = np.inf                       # the end classes are open: their width says nothing
    score = np.minimum(apart, np.minimum(wide[:-1], wide[1:]))
    j = int(np.argmin(score))
    return j, float(score[j])


def shades(n: int) -> list[str]:
    """The palette's colours for ``n`` classes, spread from its second step to its darkest (one class: the
    middle)."""
    if n <= 1:
        return [PALETTE[len(PALETTE) // 2]]
    return [PALETTE[i] for i in np.rint(np.linspace(1, len(PALETTE) - 1, n)).astype(int)]


def counted(v: float) -> str:
    """A count or a density rounded for people: whole numbers with separators from 100 (and for whole
    values), three significant digits below (12,345; 42; 0.0371)."""
    return f"{v:,.0f}" if abs(v) >= 100 or v == int(v) else f"{v:.3g}"


def edge_texts(edges) -> list[str]:
    """Class edges rounded together for people: every edge to the decimals that give the narrowest class
    three significant digits (none from 100), so the classes read apart and the lowest edge of a count does
    not show digits no class needs (0.000128 beside 18.6 reads 0)."""
    e = [float(v) for v in edges]
    widths = [b - a for a, b in zip(e[:-1], e[1:]) if b > a]
    if not widths:
        return [counted(v) for v in e]
    digits = 2 - math.floor(math.log10(min(widths)))
    out = []
    for v in e:
        d = max(0, digits) if abs(v) < 100 else 0
        text = f"{round(v, d):,.{d}f}"
        out.append(text.rstrip("0").rstrip(".") if "." in text else text)
    return ["0" if t in ("-0", "") else t for t in out]
