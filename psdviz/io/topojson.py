"""TopoJSON -> GeoJSON features (reference outlines for the maps; no privacy involved: public data).

Follows the TopoJSON format specification (github.com/topojson/topojson-specification, 2.1-2.3):
a topology holds shared ``arcs`` (lists of positions) and ``objects`` whose geometries refer to arcs
by index; index ``i < 0`` means arc ``~i`` (= -i - 1) traversed in reverse. With a ``transform``
the arcs are *quantized*: every position after an arc's first is a delta to the previous one, and
the absolute integer position maps to ``translate + position * scale``. Consecutive arcs of a ring
share their end points, so the first position of every arc after the first is dropped.

Supported geometry types: Polygon, MultiPolygon (the outline files) and null geometries; others raise
ValueError (the maps need areas only). Arc decoding (delta sums, scaling) is vectorised over all arcs
at once; rings are assembled by one concatenation per ring.
"""
from __future__ import annotations

import numpy as np

from ..core.errors import InputDataError

GEOMETRY_TYPES = ("Polygon", "MultiPolygon")


def decode_arcs(topology: dict) -> list[np.ndarray]:
    """Every arc as an (n, 2) float array of absolute [x, y] positions (extra dimensions dropped)."""
    arcs = topology.get("arcs")
    if not isinstance(arcs, list):
        raise InputDataError("topology: 'arcs' must be a list of arcs")
    lengths = np.array([len(a) for a in arcs], dtype=np.int64)
    if lengths.size == 0:
        return []
    if (lengths < 2).any():
        raise InputDataError("topology: every arc needs at least 2 positions")
    flat = np.array([p[:2] for a in arcs for p in a], dtype=float)
    transform = topology.get("transform")
    if transform is not None:
        ends = np.cumsum(lengths)
        starts = ends - lengths
        csum = np.cumsum(flat, axis=0)
        before = np.vstack([np.zeros((1, 2)), csum])[starts]      # sum of all earlier arcs' entries
        flat = csum - np.repeat(before, lengths, axis=0)           # per-arc running sum of deltas
        flat = flat * np.asarray(transform["scale"], float) + np.asarray(transform["translate"], float)
    return np.split(flat, np.cumsum(lengths)[:-1])


def _ring(refs: list[int], arcs: list[np.ndarray]) -> np.ndarray:
    n = len(arcs)
    parts = []
    for k, i in enumerate(refs):
        if not -n <= i < n:
            raise InputDataError(f"arc index {i}: must lie in [-{n}, {n - 1}]")
        a = arcs[i] if i >= 0 else arcs[~i][::-1]
        parts.append(a if k == 0 else a[1:])
    return np.concatenate(parts)


def _geometry(geom: dict, arcs: list[np.ndarray]) -> dict | None:
    kind = geom.get("type")
    if kind is None:
        return None
    if kind == "Polygon":
        return {"type": "Polygon", "coordinates": [_ring(r, arcs).tolist() for r in geom["arcs"]]}
    if kind == "MultiPolygon":
        return {"type": "MultiPolygon",
                "coordinates": [[_ring(r, arcs).tolist() for r in poly] for poly in geom["arcs"]]}
    raise InputDataError(f"geometry type {kind!r}: only {', '.join(GEOMETRY_TYPES)} and null are supported")


def features(topology: dict, name: str) -> list[dict]:
    """The GeoJSON Features of object ``name`` (a GeometryCollection or a single geometry);
    ``properties`` are kept, ``id`` too when present."""
    if topology.get("type") != "Topology":
        raise InputDataError("topology: 'type' must be 'Topology'")
    objects = topology.get("objects", {})
    if name not in objects:
        raise InputDataError(f"name: {name!r} is not one of the objects {sorted(objects)}")
    arcs = decode_arcs(topology)
    obj = objects[name]
    geoms = obj["geometries"] if obj.get("type") == "GeometryCollection" else [obj]
    out = []
    for g in geoms:
        f = {"type": "Feature", "properties": dict(g.get("properties") or {}), "geometry": _geometry(g, arcs)}
        if "id" in g:
            f["id"] = g["id"]
        out.append(f)
    return out


def rings(geometry: dict | None) -> list[np.ndarray]:
    """All rings (outer and holes) of a Polygon/MultiPolygon as (n, 2) arrays."""
    if geometry is None:
        return []
    polys = [geometry["coordinates"]] if geometry["type"] == "Polygon" else geometry["coordinates"]
    return [np.asarray(r, float).reshape(-1, 2) for p in polys for r in p]


def round_geometry(geometry: dict | None, decimals: int) -> dict | None:
    """Coordinates rounded to ``decimals`` with repeated consecutive positions removed (smaller
    pages); rings left with fewer than 4 positions (degenerate at this precision) are dropped, and so
    are polygons whose outer ring was dropped. None when nothing is left."""
    if geometry is None:
        return None
    polys = [geometry["coordinates"]] if geometry["type"] == "Polygon" else geometry["coordinates"]
    out = []
    for poly in polys:
        kept = []
        for k, ring in enumerate(poly):
            r = np.round(np.asarray(ring, float).reshape(-1, 2), decimals)
            keep = np.ones(len(r), bool)
            keep[1:] = (np.diff(r, axis=0) != 0).any(axis=1)
            r = r[keep]
            if len(r) >= 4:
                kept.append(r.tolist())
            elif k == 0:
                break
        if kept and len(kept[0]) >= 4:
            out.append(kept)
    if not out:
        return None
    return {"type": "Polygon", "coordinates": out[0]} if len(out) == 1 else {"type": "MultiPolygon", "coordinates": out}


def bbox(geometry: dict | None) -> tuple[float, float, float, float] | None:
    """(xmin, ymin, xmax, ymax) of a geometry, None for a null geometry."""
    rs = rings(geometry)
    if not rs:
        return None
    allp = np.concatenate(rs)
    return (*allp.min(axis=0).tolist(), *allp.max(axis=0).tolist())


def contains(geometry: dict | None, x: float, y: float) -> bool:
    """Is (x, y) inside the polygon(s)? Even-odd rule over all rings (holes excluded), vectorised
    over the edges: count the edges a ray from (x, y) towards +x crosses."""
    hits = 0
    for r in rings(geometry):
        x0, y0, x1, y1 = r[:-1, 0], r[:-1, 1], r[1:, 0], r[1:, 1]
        spans = (y0 > y) != (y1 > y)
        with np.errstate(divide="ignore", invalid="ignore"):
            xc = x0 + (y - y0) * (x1 - x0) / (y1 - y0)
        hits += int((spans & (x < xc)).sum())
    return hits % 2 == 1
