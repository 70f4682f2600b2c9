"""A public region layer: the places people ask about (countries, states, counties, neighbourhoods).

A :class:`Regions` holds one polygon per region with an id, a name, a parent id (None for a top-level
region) and the level that the parent links give (0 for top-level regions). Regions are public input:
their boundaries and ids are known before any data are seen, so reading them costs no privacy.

Regions of one level must not overlap: a point then lies in at most one region per level, which is
what lets one level's noisy counts compose in parallel (each costs the level's epsilon once). The
check allows shared borders: two regions of a level overlap when their intersection's area exceeds
``tolerance`` (default 0.001) of the smaller one's area. Gaps are allowed (points in no region are
counted for the data owner and stated).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..core.errors import InputDataError, ParameterError
from ..core.optional import require
from ..core.parallel import Checked
from ..core.workload import RegionLayer
from .columns import guess_columns

OVERLAP_TOLERANCE = 1e-3   # 0.1 % of the smaller region: quantised shared borders (US counties at 1:10m reach 0.02 %)
LON_LAT = "EPSG:4326"
RASTERS_KEPT = 4           # layer rasters kept per layer (one per grid it was counted on)


@dataclass(frozen=True)
class Regions:
    """Regions as a GeoDataFrame with columns ``id``, ``name``, ``parent``, ``level``, ``geometry``
    (rows ordered by level, then parent, then id), in ``frame.crs``."""

    frame: Any   # a geopandas.GeoDataFrame (geopandas is the geo extra's: not imported for the type)

    # ---- construction ---------------------------------------------------------------------------
    @classmethod
    def from_frame(cls, gdf, *, id: str | None = None, parent: str | None = None, name: str | None = None,
                   crs: str | None = LON_LAT, tolerance: float = OVERLAP_TOLERANCE) -> Regions:
        """Regions from a GeoDataFrame: ``id`` (and optionally ``parent`` and ``name``) name its columns.
        Without ``id`` the id and name columns are guessed as a person would
        (:func:`psdviz.regions.columns.guess_columns`: a unique column, named like an id, text before numbers,
        never a measure such as a population or an area); a ``name`` given is kept. The geometry is
        reprojected to ``crs`` (the release's coordinates; None keeps it as it is)."""
        gpd = require("geopandas", "region layers")
        if not isinstance(gdf, gpd.GeoDataFrame):
            raise ParameterError("regions must be a GeoDataFrame (or read them with Regions.from_file)")
        if id is None or name is None:
            if id is not None and id not in gdf.columns:
                raise InputDataError(f"column {id!r} (given as id) is not in the regions; their columns are "
                                     f"{list(gdf.columns)}")
            guess = guess_columns(gdf, id)
            id, name = guess.id, name if name is not None else guess.name
        for col, what in ((id, "id"), (parent, "parent"), (name, "name")):
            if col is not None and col not in gdf.columns:
                raise InputDataError(f"column {col!r} (given as {what}) is not in the regions; their columns are "
                                     f"{list(gdf.columns)}")
        missing = gdf[id].isna().to_numpy() | (gdf[id].astype(str).str.strip() == "").to_numpy()
        if missing.any():
            raise InputDataError(f"{int(missing.sum()):,} of the {len(gdf):,} regions have no {id!r} (the first is "
                                 f"feature {int(np.flatnonzero(missing)[0])}): every region needs an id")
        frame = gpd.GeoDataFrame({
            "id": gdf[id].astype(str).to_numpy(),
            "name": (gdf[name] if name else gdf[id]).astype(str).to_numpy(),
            "parent": None if parent is None else gdf[parent].to_numpy(),
        }, geometry=gdf.geometry.to_numpy(), crs=gdf.crs)
        frame = _repaired(frame)
        if crs is not None:
            if frame.crs is None:
                raise InputDataError("the regions have no coordinate reference system; set one (gdf.set_crs) or pass "
                                     "crs=None to use them in their own coordinates")
            try:
                frame = frame.to_crs(crs)
            except Exception as exc:      # pyproj's errors for a CRS it cannot transform
                raise InputDataError(f"the regions' coordinate reference system {frame.crs} cannot be turned into "
                                     f"{crs} ({str(exc).splitlines()[0][:200]})") from None
        shapely = require("shapely", "region layers")
        try:
            out = cls(_ordered(frame, tolerance))
        except shapely.errors.GEOSException as exc:     # never a geometry library's exception for the user
            raise InputDataError(f"the regions' shapes cannot be processed ({str(exc).splitlines()[0][:200]}); "
                                 "repair them in a GIS (e.g. make valid) and load the layer again") from None
        out.__dict__["disjointness"] = _proof(out.n_levels, tolerance)   # the check just ran
        return out

    @classmethod
    def from_file(cls, path, *, id: str | None = None, parent: str | None = None, name: str | None = None,
                  layer=None, crs: str | None = LON_LAT, tolerance: float = OVERLAP_TOLERANCE) -> Regions:
        """Regions from GeoJSON, GeoPackage, a zipped Shapefile or TopoJSON (``layer``: the TopoJSON
        object or the GeoPackage layer); without ``id`` its columns are guessed as :meth:`from_frame` does."""
        return cls.from_frame(read_layer(path, layer), id=id, parent=parent, name=name, crs=crs, tolerance=tolerance)

    @classmethod
    def coerce(cls, layer, *, id: str | None = None, parent: str | None = None, name: str | None = None,
               layer_name=None) -> Regions:
        """``layer`` as Regions: Regions as they are, a GeoDataFrame (:meth:`from_frame`) or a path
        (:meth:`from_file`), with ``id``, ``parent``, ``name`` and ``layer_name`` (the file's layer) for
        those; what else is given is refused in one line."""
        if isinstance(layer, Regions) or (callable(getattr(layer, "table", None)) and hasattr(layer, "geometry")):
            given = [k for k, v in (("id", id), ("parent", parent), ("name", name), ("layer", layer_name)) if v]
            if given:
                raise ParameterError(f"{', '.join(given)} name the columns of a GeoDataFrame or a file; these Regions "
                                     "have theirs already")
            return layer
        if isinstance(layer, (str, Path)):
            return cls.from_file(layer, id=id, parent=parent, name=name, layer=layer_name)
        gpd = require("geopandas", "region layers")
        if isinstance(layer, gpd.GeoDataFrame):
            return cls.from_frame(layer, id=id, parent=parent, name=name)
        raise ParameterError(f"regions must be psdviz.regions.Regions, a GeoDataFrame or the path of a layer file "
                             f"(got {type(layer).__name__})")


    @classmethod
    def from_levels(cls, layers, *, within: float | None = None, tolerance: float = OVERLAP_TOLERANCE) -> Regions:
        """One layer from single-level layers, top level first (states from one file, counties from
        another): each region's parent is the region of the level above covering most of its area
        (:mod:`.nesting`); a region with less than ``within`` (default 0.99) of its area inside one
        region of the level above is refused. Ids must be unique across the levels and the layers must
        share one coordinate reference system."""
        from .nesting import WITHIN, parents_by_area
        layers = list(layers)
        if len(layers) < 2 or not all(isinstance(x, Regions) for x in layers):
            raise ParameterError("from_levels needs two or more Regions, one level each, top level first")
        for k, x in enumerate(layers):
            if x.n_levels != 1:
                raise InputDataError(f"layer {k} has {x.n_levels} levels; from_levels takes one level per layer")
            if x.frame.crs != layers[0].frame.crs:
                raise InputDataError(f"layer {k} is in {x.frame.crs}, layer 0 in {layers[0].frame.crs}; give them one "
                                     "coordinate reference system")
        frames = [layers[0].frame.assign(parent=None)]
        for k in range(1, len(layers)):
            up, down = layers[k - 1].frame, layers[k].frame
            best = parents_by_area(down.geometry.to_numpy(), up.geometry.to_numpy(), down["id"].to_numpy(),
                                   up["id"].to_numpy(), k, WITHIN if within is None else within)
            frames.append(down.assign(parent=up["id"].to_numpy()[best]))
        both = pd.concat([f[["id", "name", "parent", "geometry"]] for f in frames], ignore_index=True)
        gpd = require("geopandas", "region layers")
        gdf = gpd.GeoDataFrame(both, geometry="geometry", crs=layers[0].frame.crs)
        return cls.from_frame(gdf, id="id", parent="parent", name="name", crs=None, tolerance=tolerance)

    @cached_property
    def disjointness(self) -> Checked:
        """The proof the ledger asks for (parallel composition within a level): the layer's no-overlap
        check, run when the layer was made, or now for a layer made some other way."""
        _check_no_overlap(self.frame, OVERLAP_TOLERANCE)
        return _proof(self.n_levels, OVERLAP_TOLERANCE)

    # ---- access -----------------------------------------------------------------------------------
    @property
    def ids(self) -> np.ndarray:
        return self.frame["id"].to_numpy()

    @property
    def levels(self) -> np.ndarray:
        return self.frame["level"].to_numpy()

    @property
    def geometry(self) -> np.ndarray:
        """The polygons as a shapely array, in row order."""
        return self.frame.geometry.to_numpy()

    @property
    def n_levels(self) -> int:
        return int(self.levels.max()) + 1

    def as_workload(self) -> RegionLayer:
        """The layer as a query workload (``pv.build(..., workload=layer)``): every region of every level one
        query."""
        return RegionLayer(self.geometry, self.ids, self.n_levels)

    def parent_index(self) -> np.ndarray:
        """Row of each region's parent (-1 for top-level regions); a read-only array, computed once."""
        return self._parents

    @cached_property
    def _parents(self) -> np.ndarray:
        pos = pd.Index(self.frame["id"]).get_indexer(self.frame["parent"].astype(object))
        out = np.where(self.frame["parent"].isna().to_numpy(), -1, pos)
        out.setflags(write=False)
        return out

    @cached_property
    def area_km2(self) -> np.ndarray | None:
        """Every region's area in square kilometres (an equal-area projection, EPSG:6933, for a layer in
        longitude/latitude; the layer's own units for one in metres), None when the layer's units are
        unknown (no CRS, or a projected CRS not in metres). Public, like the layer."""
        crs = self.frame.crs
        if crs is None:
            return None
        if crs.is_geographic:
            out = self.frame.geometry.to_crs("EPSG:6933").area.to_numpy() / 1e6
        elif crs.axis_info and crs.axis_info[0].unit_name in ("metre", "meter"):
            out = self.frame.geometry.area.to_numpy() / 1e6
        else:
            return None
        out.setflags(write=False)
        return out

    def leaf_areas(self) -> np.ndarray:
        """Area of every region without child regions in the layer's coordinates (0 for the others):
        public, like the layer; what area shares below a pooled region are taken from."""
        shapely = require("shapely", "region layers")

        from .assign import leaf_rows
        out = np.zeros(len(self.frame))
        rows = leaf_rows(self.parent_index())
        out[rows] = shapely.area(self.geometry[rows])
        return out

    def raster(self, grid):
        """The leaf regions drawn on ``grid`` (:class:`~psdviz.regions.raster.LeafRaster`), made once per
        grid (the last few are kept): public, like the layer."""
        from .assign import leaf_rows
        from .raster import LeafRaster
        got = self._rasters.pop(grid, None) or LeafRaster(self.geometry, leaf_rows(self.parent_index()), grid)
        self._rasters[grid] = got                      # most recently used last
        while len(self._rasters) > RASTERS_KEPT:
            self._rasters.pop(next(iter(self._rasters)))
        return got

    @cached_property
    def _rasters(self) -> dict:
        return {}

    def bounds(self) -> tuple[float, float, float, float]:
        """(xmin, ymin, xmax, ymax) of every region: public, since the layer is."""
        xmin, ymin, xmax, ymax = (float(v) for v in self.frame.total_bounds)
        return xmin, ymin, xmax, ymax

    def table(self) -> pd.DataFrame:
        """id, name, level, parent (no geometry)."""
        return pd.DataFrame(self.frame[["id", "name", "level", "parent"]])


def read_layer(path, layer=None):
    """The features of a layer file (GeoJSON, GeoPackage, zipped Shapefile, TopoJSON; ``layer``: the
    TopoJSON object or the GeoPackage layer) as a GeoDataFrame, every attribute column kept."""
    path = Path(path)
    if not path.is_file():
        raise InputDataError(f"regions file not found: {path}")
    if path.suffix.lower() == ".topojson" or _is_topojson(path):
        return _read_topojson(path, layer)
    gpd = require("geopandas", "region layers")
    if layer is None and path.suffix.lower() == ".gpkg":
        names = list(gpd.list_layers(path)["name"])
        if len(names) > 1:
            raise InputDataError(f"{path.name} holds {len(names)} layers {names}: pass layer= one of them "
                                 "(the CLI: --layer NAME)")
    try:
        return gpd.read_file(f"zip://{path}" if path.suffix.lower() == ".zip" else path, layer=layer)
    except Exception as exc:   # pyogrio raises its own errors for unreadable files
        raise InputDataError(f"cannot read regions from {path.name}: {exc}") from None


class RegionRepairWarning(UserWarning):
    """Regions of a layer were repaired on load (made valid, or features with one id merged); the
    message names them."""


def _repaired(frame):
    """The layer with what can be repaired repaired, and the rest refused in one line naming the region:
    coordinates that are not finite numbers and regions with no area are refused; self-intersecting or
    otherwise invalid polygons are made valid (their polygonal parts kept) and features sharing one id and
    one parent are merged into one region, each with a :class:`RegionRepairWarning` naming the regions."""
    import warnings
    shapely = require("shapely", "region layers")
    geoms = frame.geometry.to_numpy()
    ids = frame["id"].to_numpy()
    empty = shapely.is_missing(geoms) | shapely.is_empty(geoms)
    if empty.any() and not empty.all():
        names = ", ".join(repr(i) for i in ids[empty][:10]) + (" ..." if empty.sum() > 10 else "")
        warnings.warn(f"{int(empty.sum())} region(s) have no shape in the file and were skipped: {names}",
                      RegionRepairWarning, stacklevel=4)
        frame = frame[~empty].reset_index(drop=True)
        geoms, ids = frame.geometry.to_numpy(), frame["id"].to_numpy()
    present = ~shapely.is_missing(geoms)
    xy, which = shapely.get_coordinates(geoms[present], return_index=True)
    bad = np.unique(which[~np.isfinite(xy).all(axis=1)])
    if bad.size:
        raise InputDataError(f"region {ids[present][bad[0]]!r} has a coordinate that is not a finite number "
                             f"({bad.size} region(s) so): fix or remove them")
    invalid = present & ~shapely.is_valid(geoms)
    if invalid.any():
        geoms = geoms.copy()
        geoms[invalid] = [_areas(g) for g in shapely.make_valid(geoms[invalid])]   # no area left: refused below
        names = ", ".join(repr(i) for i in ids[invalid][:10]) + (" ..." if invalid.sum() > 10 else "")
        warnings.warn(f"{int(invalid.sum())} region(s) were not valid polygons and were made valid: {names}",
                      RegionRepairWarning, stacklevel=4)
        frame = frame.set_geometry(geoms)
    area = shapely.area(frame.geometry.to_numpy())
    flat = present & (area <= 0) & frame.geometry.geom_type.isin(["Polygon", "MultiPolygon"]).to_numpy()
    if flat.any():
        raise InputDataError(f"region {ids[flat][0]!r} has no area ({int(flat.sum())} region(s) so): regions must be "
                             "polygons with an area")
    dup = frame["id"].duplicated(keep=False)
    if dup.any():
        parents = frame.loc[dup].groupby("id")["parent"].nunique(dropna=False)
        if (parents > 1).any():
            raise InputDataError(f"region id {parents[parents > 1].index[0]!r} is used by regions with different "
                                 "parents: region ids must be unique")
        merged = frame.dissolve(by="id", as_index=False, aggfunc="first", sort=False)
        joint = merged_names(frame[dup])                      # a merged region is named for all it holds
        merged["name"] = [joint.get(i, n) for i, n in zip(merged["id"], merged["name"])]
        warnings.warn(f"features sharing a region id were merged into one region each: {merged_words(frame[dup])}; "
                      "choose a column whose values are unique as the id to keep them apart",
                      RegionRepairWarning, stacklevel=4)
        frame = merged[["id", "name", "parent", "geometry"]]
    return frame


def merged_names(rows) -> dict:
    """The name of each merged region: its features' distinct names joined ("Norway + France + 3 more"), so the
    region is not named for the one feature whose name came first."""
    out = {}
    for rid, group in rows.groupby("id", sort=False):
        names = [str(n) for n in pd.unique(group["name"])]
        out[rid] = " + ".join(names[:2]) + (f" + {len(names) - 2} more" if len(names) > 2 else "")
    return out


def merged_words(rows) -> str:
    """The ids that several features share, each with how many and their names ("'-99' (5 features: France,
    Norway, ...)"), at most ten ids."""
    parts = []
    for rid, group in list(rows.groupby("id", sort=False))[:10]:
        names = [str(n) for n in pd.unique(group["name"]) if str(n) != str(rid)]
        shown = f": {', '.join(names[:5])}{', ...' if len(names) > 5 else ''}" if names else ""
        parts.append(f"{rid!r} ({len(group)} features{shown})")
    more = rows["id"].nunique() - len(parts)
    return "; ".join(parts) + (f"; and {more} more id(s)" if more > 0 else "")


def _ordered(frame, tolerance: float):
    """Checked and ordered: unique ids, parents that exist, no cycle, levels from the parent links,
    no overlap inside a level; rows sorted by (level, parent row, id)."""
    if frame.empty:
        raise InputDataError("the region layer is empty")
    ids = frame["id"]
    if ids.duplicated().any():
        raise InputDataError(f"region ids must be unique (repeated: {ids[ids.duplicated()].iloc[0]!r})")
    bad_geom = ~frame.geometry.geom_type.isin(["Polygon", "MultiPolygon"]) | frame.geometry.is_empty
    if bad_geom.any():
        raise InputDataError(f"region {ids[bad_geom].iloc[0]!r} is not a polygon; regions must be (multi)polygons")
    parent = frame["parent"]
    has = (parent.notna() & (parent.astype(str) != "")).to_numpy()
    frame = frame.assign(parent=np.where(has, parent.astype(str), None))
    pos = pd.Index(ids).get_indexer(frame["parent"].astype(object))
    if (has & (pos < 0)).any():
        raise InputDataError(f"parent {frame['parent'][has & (pos < 0)].iloc[0]!r} is not a region id of the layer")
    parent_pos = np.where(has, pos, -1)
    level = _levels(parent_pos, ids)
    order = _tree_order(parent_pos, level, ids.to_numpy())
    frame = frame.iloc[order].assign(level=level[order]).reset_index(drop=True)
    found = _overlaps(frame)
    cut = _cut_overlaps(frame, tolerance, found)
    _check_no_overlap(cut, tolerance, found if cut is frame else None)
    return cut


def _tree_order(parent_pos: np.ndarray, level: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Rows level by level, each region's children together and in their parent's order (then by id):
    the order of a flat tree (:class:`psdviz.core.tree.FlatTree`). One sort per level."""
    rank = np.full(level.size, -1, dtype=np.int64)     # position of each row in the new order
    order: list[np.ndarray] = []
    placed = 0
    for d in range(int(level.max()) + 1):
        rows = np.flatnonzero(level == d)
        key = rank[parent_pos[rows]] if d else np.zeros(rows.size, dtype=np.int64)
        rows = rows[np.lexsort((ids[rows], key))]
        rank[rows] = placed + np.arange(rows.size)
        placed += rows.size
        order.append(rows)
    return np.concatenate(order)


def _levels(parent_pos: np.ndarray, ids) -> np.ndarray:
    """Depth of every region along its parent links (vectorised: one step per level)."""
    level = np.zeros(parent_pos.size, dtype=np.int64)
    cur = parent_pos.copy()
    for _ in range(parent_pos.size + 1):
        alive = cur >= 0
        if not alive.any():
            return level
        level[alive] += 1
        cur = np.where(alive, parent_pos[np.maximum(cur, 0)], -1)
    stuck = ids.iloc[int(np.flatnonzero(cur >= 0)[0])]
    raise InputDataError(f"the parent links of the regions form a cycle (through {stuck!r})")


def _proof(n_levels: int, tolerance: float) -> Checked:
    return Checked(frozenset(range(n_levels)), f"no two regions of a level overlap by more than {tolerance:.1%} of "
                   "the smaller; each grid cell is counted in one leaf region and parents sum their children")


REPAIRABLE_OVERLAP = 0.25  # overlaps up to this share of the larger region are cut from it


def _overlaps(frame):
    """(a, b, intersection area, smaller area) of every pair of regions of one level that intersect."""
    shapely = require("shapely", "region layers")
    geoms = frame.geometry.to_numpy()
    levels = frame["level"].to_numpy()
    a, b = shapely.STRtree(geoms).query(geoms, predicate="intersects")
    keep = (a < b) & (levels[a] == levels[b])
    a, b = a[keep], b[keep]
    inside = shapely.relate_pattern(geoms[a], geoms[b], "T********")   # interiors meet: not a shared border
    a, b = a[inside], b[inside]
    inter = shapely.area(shapely.intersection(geoms[a], geoms[b])) if a.size else np.zeros(0)
    smaller = np.minimum(shapely.area(geoms[a]), shapely.area(geoms[b])) if a.size else np.zeros(0)
    return a, b, inter, smaller


def _cut_overlaps(frame, tolerance: float, found=None):
    """Overlaps above ``tolerance`` of the smaller region but at most :data:`REPAIRABLE_OVERLAP` of the larger
    one are cut from the larger region, with a :class:`RegionRepairWarning` naming the pairs: shared borders
    quantised apart (DC and Virginia in a 1:10m TopoJSON) and a county inside a water pseudo-region (vega's
    us-10m: '26083' lies 58 % inside '26000'), where the larger region loses a small part of itself and the
    smaller stays whole. An overlap that would take more from the larger region (a region listed twice, a
    state among its counties) is left for the refusal."""
    import warnings
    shapely = require("shapely", "region layers")
    a, b, inter, smaller = _overlaps(frame) if found is None else found
    geoms = frame.geometry.to_numpy().copy()
    area = shapely.area(geoms)
    larger = np.maximum(area[a], area[b]) if a.size else np.zeros(0)
    fix = (inter > tolerance * np.maximum(smaller, 1e-300)) & (inter <= REPAIRABLE_OVERLAP * larger)
    if not fix.any():
        return frame
    ids = frame["id"].to_numpy()
    pairs = []
    for i, j in zip(a[fix], b[fix]):             # a few pairs at most: the cut needs the updated shapes
        big, small = (i, j) if area[i] >= area[j] else (j, i)
        geoms[big] = shapely.difference(geoms[big], geoms[small])
        pairs.append(f"{ids[small]!r} from {ids[big]!r}")
    warnings.warn(f"overlapping regions of one level were cut apart (the overlap taken from the larger one): "
                  f"{', '.join(pairs[:10])}{' ...' if len(pairs) > 10 else ''}", RegionRepairWarning, stacklevel=5)
    return frame.set_geometry(geoms)


def _check_no_overlap(frame, tolerance: float, found=None) -> None:
    """Refuse two regions of one level whose intersection is more than ``tolerance`` of the smaller's area
    (``found``: :func:`_overlaps` of this frame, when already computed)."""
    a, b, inter, smaller = _overlaps(frame) if found is None else found
    levels = frame["level"].to_numpy()
    if a.size == 0:
        return
    over = inter > tolerance * np.maximum(smaller, 1e-300)
    if over.any():
        i = int(np.flatnonzero(over)[0])
        ids = frame["id"].to_numpy()
        raise InputDataError(f"regions {ids[a[i]]!r} and {ids[b[i]]!r} of level {levels[a[i]]} overlap "
                             f"({inter[i] / smaller[i]:.2%} of the smaller one): regions of one level must not "
                             "overlap, so that each point counts in at most one of them")


def _is_topojson(path: Path) -> bool:
    with path.open("rb") as fh:
        head = fh.read(4096)
    return b'"Topology"' in head


def _read_topojson(path: Path, layer):
    """The features of one object of a TopoJSON file as a GeoDataFrame. The file is untrusted: any
    structure the specification does not allow is a ValueError naming the file and the object."""
    import json

    gpd = require("geopandas", "region layers")
    shapely = require("shapely", "region layers")
    from ..io.topojson import features
    try:
        topo = json.loads(path.read_bytes())
    except ValueError:
        raise InputDataError(f"{path.name} is not a JSON file") from None
    except RecursionError:
        raise InputDataError(f"{path.name}: its JSON is nested too deeply for a region layer") from None
    if not isinstance(topo, dict) or not isinstance(topo.get("objects"), dict):
        raise InputDataError(f"{path.name} is not TopoJSON: it needs an 'objects' object (the TopoJSON specification, "
                             "github.com/topojson/topojson-specification)")
    objects = list(topo["objects"])
    name = layer or (objects[0] if len(objects) == 1 else None)
    if name is None or name not in objects:
        raise InputDataError(f"{path.name} holds TopoJSON objects {objects}: pass layer= one of them")
    try:
        feats = features(topo, name)
        rows = [{**_properties(f), "id": f.get("id", _properties(f).get("id")), "geometry": polygon(f["geometry"])}
                for f in feats if f.get("geometry")]
    except (TypeError, AttributeError, KeyError, IndexError) as exc:
        raise InputDataError(f"{path.name} is not valid TopoJSON in object {name!r} ({type(exc).__name__}: "
                             f"{str(exc)[:120]}); see the TopoJSON specification") from None
    except shapely.errors.GEOSException as exc:
        raise InputDataError(f"{path.name}: a shape of object {name!r} cannot be built "
                             f"({str(exc).splitlines()[0][:160]}); repair the file in a GIS") from None
    return gpd.GeoDataFrame(rows, geometry="geometry", crs=LON_LAT)


def _properties(feature: dict) -> dict:
    props = feature.get("properties")
    if props is not None and not isinstance(props, dict):
        raise TypeError("a feature's properties must be an object")
    return props or {}


# ---- bundled layers (public-domain outlines shipped in the package, licences beside them) ----------
ATLAS_DIR = Path(__file__).resolve().parents[1] / "ui" / "static"   # data files only: no UI code is imported


def _atlas(rel: str) -> dict:
    import json
    path = ATLAS_DIR / rel
    if not path.is_file():
        raise ValueError(f"the bundled outlines {rel} are missing from this installation of psdviz: reinstall "
                         "it (the wheel carries them), or in a clone run `bash .ci/fetch_assets`")
    return json.loads(path.read_text())


def polygon(geometry: dict):
    """A valid shapely (multi)polygon from a GeoJSON geometry whose rings may have collapsed below four
    positions (quantised TopoJSON): such rings are dropped, each part is made valid, then the parts are
    merged (merging broken rings before repairing them is what GEOS refuses: a side location conflict)."""
    shapely = require("shapely", "region layers")
    Polygon = require("shapely.geometry", "region layers").Polygon
    polys = geometry["coordinates"] if geometry["type"] == "MultiPolygon" else [geometry["coordinates"]]
    parts = [_unwrap(Polygon(p[0], [h for h in p[1:] if len(h) >= 4])) for p in polys if p and len(p[0]) >= 4]
    if not parts:
        return None
    return _areas(shapely.make_valid(shapely.union_all(shapely.make_valid(np.asarray(parts, dtype=object)))))


def _areas(shape):
    """The polygonal part of a valid geometry (a collection from ``make_valid`` keeps its areas; an empty
    polygon when it has none)."""
    if shape.geom_type in ("Polygon", "MultiPolygon"):
        return shape
    shapely = require("shapely", "region layers")
    parts = [p for p in shapely.get_parts(shape) if p.geom_type in ("Polygon", "MultiPolygon")]
    return shapely.union_all(parts) if parts else shapely.Polygon()


def _unwrap(poly):
    """A longitude/latitude polygon drawn across the antimeridian (a ring spanning more than 180 degrees,
    as Fiji's and Russia's are in world-atlas) split into its parts east and west of 180."""
    shapely = require("shapely", "region layers")
    box = require("shapely.geometry", "region layers").box
    xmin, _, xmax, _ = poly.bounds
    if xmax - xmin <= 180 or xmax > 180 or xmin < -180:
        return poly
    shifted = shapely.transform(shapely.make_valid(poly), lambda c: c + [[360.0, 0.0]] * (c[:, :1] < 0))
    shifted = shapely.make_valid(shifted)
    east = shapely.intersection(shifted, box(0, -90, 180, 90))
    west = shapely.transform(shapely.intersection(shifted, box(180, -90, 360, 90)), lambda c: c - [360.0, 0.0])
    return shapely.union_all([east, west])


def _atlas_frame(topo: dict, name: str, parent=None):
    gpd = require("geopandas", "region layers")

    from ..io.topojson import features
    rows = [{"id": str(f["id"]), "name": f["properties"].get("name", str(f["id"])),
             "parent": parent(str(f["id"])) if parent else None, "geometry": polygon(f["geometry"])}
            for f in features(topo, name) if f.get("geometry") and "id" in f]
    return gpd.GeoDataFrame([r for r in rows if r["geometry"] is not None], geometry="geometry", crs=LON_LAT)


def us_states() -> Regions:
    """The US states (and DC, Puerto Rico and the island areas in the file), id = 2-digit FIPS code
    (us-atlas 3, US Census cartographic boundaries 1:10m)."""
    return Regions.from_frame(_atlas_frame(_atlas("us-atlas/counties-10m.json"), "states"), id="id", name="name",
                              parent="parent")


def us_counties() -> Regions:
    """States (level 0) and their counties (level 1): a county's state is the first two digits of its
    5-digit FIPS id (us-atlas 3, US Census 1:10m)."""
    import pandas as pd
    topo = _atlas("us-atlas/counties-10m.json")
    states = _atlas_frame(topo, "states")
    counties = _atlas_frame(topo, "counties", parent=lambda fips: fips[:2])
    counties = counties[counties["parent"].isin(set(states["id"]))]
    both = pd.concat([states, counties], ignore_index=True)
    return Regions.from_frame(both, id="id", name="name", parent="parent")


def world_countries() -> Regions:
    """Countries (world-atlas 2, Natural Earth 1:110m), id = ISO 3166-1 numeric code."""
    return Regions.from_frame(_atlas_frame(_atlas("world-atlas/countries-110m.json"), "countries"), id="id",
                              name="name", parent="parent")


BUNDLED = {"us-states": us_states, "us-counties": us_counties, "world": world_countries}


def bundled(name: str) -> Regions:
    """A bundled layer by its command-line name (a key of :data:`BUNDLED`)."""
    if name not in BUNDLED:
        raise ParameterError(f"no bundled layer {name!r}: choose one of {', '.join(BUNDLED)}")
    return BUNDLED[name]()
