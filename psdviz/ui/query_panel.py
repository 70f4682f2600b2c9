"""Reading the drawn rectangle and comparing the private answer with the truth (engine calls only)."""
from __future__ import annotations

import math

import numpy as np

import psdviz as pv
from psdviz.lab.metrics import relative_error


def rect_from_drawings(drawings) -> list[float] | None:
    """[xmin, ymin, xmax, ymax] of the last drawn polygon (Leaflet.draw rectangle), or None."""
    if not drawings:
        return None
    for feat in reversed(drawings):
        geom = (feat or {}).get("geometry") or {}
        if geom.get("type") == "Polygon" and geom.get("coordinates"):
            ring = np.asarray(geom["coordinates"][0], float)
            return [float(ring[:, 0].min()), float(ring[:, 1].min()), float(ring[:, 0].max()), float(ring[:, 1].max())]
    return None


def clicked_point(obj) -> tuple[float, float] | None:
    """(x, y) = (lng, lat) of streamlit-folium's ``last_object_clicked``."""
    if not obj or obj.get("lat") is None or obj.get("lng") is None:
        return None
    return float(obj["lng"]), float(obj["lat"])


def at_rect_corner(point: tuple[float, float] | None, rect: list[float] | None) -> bool:
    """Whether ``point`` is a corner of ``rect``: the click Leaflet fires on the cell under the mouse
    when a rectangle drag ends (the drawing's GeoJSON keeps 6 decimals, hence the tolerance)."""
    if point is None or rect is None:
        return False
    x, y = point
    tol = 2e-6 * max(1.0, *(abs(v) for v in rect))
    return any(abs(x - cx) <= tol and abs(y - cy) <= tol for cx in (rect[0], rect[2]) for cy in (rect[1], rect[3]))


def private_answer(release: pv.Release, rect: list[float]) -> tuple[float, float, float, float, float]:
    """The release's answer for one rectangle, its standard error (from the noise variances; NaN when the
    variance is not known), the modelled error of the cells its edges cut and its 95 % interval
    (``Release.answer_error``: the one interval every page shows)."""
    p = release.answer_error(np.asarray([rect], float))
    se = float(p["standard_error"][0])
    return (float(p["estimate"][0]), se if math.isfinite(se) else float("nan"), float(p["uniformity_error"][0]),
            float(p["low"][0]), float(p["high"][0]))


def compare(release: pv.Release, truth: pv.PointIndex, rect: list[float]) -> dict:
    """Private answer, its standard error (from the known noise variances), the modelled error of the cells
    the rectangle's edges cut (``Release.answer_uniformity_error``), the true answer, errors.

    The relative error is |private - true| / max(true, rho) with rho = 0.1% of the points
    (psdviz.lab.metrics.relative_error), so tiny true counts do not divide by zero.
    """
    private, se, cut, low, high = private_answer(release, rect)
    true = int(truth.count(np.asarray([rect], float))[0])
    n = int(truth.xy.shape[0])
    return {"xmin": rect[0], "ymin": rect[1], "xmax": rect[2], "ymax": rect[3],
            "private_answer": private, "low_95": float(low), "high_95": float(high), "standard_error": se,
            "uniformity_error": cut,
            "true_answer_NOT_PRIVATE": true, "abs_error": abs(private - true),
            "rel_error": float(relative_error([private], [true], n)[0]),
            "method": release.method, "epsilon": release.epsilon, "randomness": release.randomness_mode}


def rect_order_error(rect: list[float]) -> str | None:
    """Words for a rectangle whose bounds are in the wrong order (typed xmin above xmax), or None."""
    for lo, hi, axis in ((rect[0], rect[2], "x"), (rect[1], rect[3], "y")):
        if lo > hi:
            return (f"query {axis} min {lo:g} is above {axis} max {hi:g}; bounds are xmin ymin xmax ymax: swap "
                    "them to ask about this rectangle")
    return None


def overlaps_domain(domain: pv.Domain, rect: list[float]) -> bool:
    """True when the rectangle shares some area with the release's domain."""
    return (min(rect[2], domain.xmax) > max(rect[0], domain.xmin)
            and min(rect[3], domain.ymax) > max(rect[1], domain.ymin))
