"""Release files: one GeoParquet file a data consumer can open, query and map (docs/release-format.md).

The file holds one row per node of the released tree (the tree links are needed by answers that open
a node; the published cells are the rows with ``is_leaf``), a WKB polygon per node so GIS tools
(geopandas, QGIS, DuckDB spatial) read it as GeoParquet 1.0, and a ``psdviz`` key in the Parquet
schema metadata holding everything else a consumer needs as JSON: format version, method,
parameters, domain, resolution, epsilon, the ledger, the randomness mode, the privacy unit, notes and
the query model (``query_model.py``). It never holds the owner's audit (exact input counts) nor the
seed of a seeded run (with the seed anyone could regenerate the noise and subtract it).

Loading makes the release with :func:`factory.make_release`, the same checks and code a build runs, so a
loaded release answers ``answer`` and ``answer_variance`` exactly as the original. A file of another
format version, one whose ledger exceeds its epsilon, or one whose nodes record more epsilon on a
root-to-leaf path than the epsilon is refused with a ValueError naming what is wrong.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from ..core.errors import ParameterError
from ..core.optional import require
from ..core.rng import check_seeded_export
from ..kernel.protocol import json_value
from . import release_checks as checks
from .spatial import SpatialRelease

FORMAT = "psdviz-release"
FORMAT_VERSION = 2          # 2: the privacy unit as data; version 1 files (its sentence) still load
READS = (1, 2)
META_KEY = b"psdviz"

_COLUMNS, _RECT, CURVE = checks.NODE_COLUMNS, checks.RECT_COLUMNS, checks.CURVE_COLUMNS


def _metadata(rel: SpatialRelease) -> dict:
    return {
        "format": FORMAT, "format_version": FORMAT_VERSION, "method": rel.method,
        "parameters": {k: json_value(v, text_nonfinite=True) for k, v in rel.params.items()},
        "domain": [rel.domain.xmin, rel.domain.ymin, rel.domain.xmax, rel.domain.ymax],
        "resolution": rel.grid.bits, "epsilon": rel.epsilon, "epsilon_spent": rel.ledger.total(),
        "delta": rel.ledger.delta(), "ledger": rel.ledger.records(), "randomness": rel.randomness.mode,
        "privacy_unit": rel.privacy_unit.to_data(), "consistent": rel.consistent,
        "input_handling": rel.input_handling(),
        "notes": list(rel.notes), "query_model": rel.query_model.to_data(), **rel.randomness.warning(),
    }


def _geo_metadata(rect: np.ndarray, crs) -> dict:
    col: dict[str, object] = {"encoding": "WKB", "geometry_types": ["Polygon"],
           "bbox": [float(rect[:, 0].min()), float(rect[:, 1].min()), float(rect[:, 2].max()), float(rect[:, 3].max())]}
    if crs is None:
        col["crs"] = None   # GeoParquet: null = undefined CRS (the domain's units are the publisher's)
    else:
        pyproj = require("pyproj", "a stated CRS")
        try:
            col["crs"] = pyproj.CRS.from_user_input(crs).to_json_dict()
        except pyproj.exceptions.CRSError:
            raise ParameterError(f"crs {crs!r} is not a coordinate reference system pyproj knows; give one such as "
                                 "EPSG:4326 (longitude/latitude)") from None
    return {"version": "1.0.0", "primary_column": "geometry", "columns": {"geometry": col}}


_WKB_BOX = np.dtype([("order", "u1"), ("kind", "<u4"), ("rings", "<u4"), ("points", "<u4"), ("xy", "<f8", (10,))])


def box_wkb(rect: np.ndarray) -> pa.Array:
    """Well-known binary of axis-aligned boxes [x0, y0, x1, y1], byte for byte what shapely writes for
    ``shapely.box`` (little endian, one counter-clockwise ring from (x1, y0)), without needing shapely."""
    rect = np.asarray(rect, float)
    out = np.zeros(rect.shape[0], _WKB_BOX)
    out["order"], out["kind"], out["rings"], out["points"] = 1, 3, 1, 5
    x0, y0, x1, y1 = rect.T
    out["xy"] = np.column_stack([x1, y0, x1, y1, x0, y1, x0, y0, x1, y0])
    fixed = pa.FixedSizeBinaryArray.from_buffers(pa.binary(_WKB_BOX.itemsize), out.size,
                                                 [None, pa.py_buffer(out.tobytes())])
    return fixed.cast(pa.binary())


def save_release(rel: SpatialRelease, path, crs=None, *, allow_seeded: bool = False) -> Path:
    """Write ``rel`` to ``path`` (GeoParquet). ``crs`` (e.g. "EPSG:4326"): the coordinates' reference
    system for GIS tools; None records it as undefined. A seeded run is refused unless
    ``allow_seeded=True``, and then the file's metadata carries a NOT private warning."""
    check_seeded_export(rel.randomness, allow_seeded, "a release file")
    if not rel.private:
        raise ParameterError(f"{rel.method} is a non-private reference and cannot be saved as a release file")
    t = rel.tree
    cols = {"node": np.arange(t.n_nodes, dtype=np.int64), "is_leaf": t.is_leaf}
    cols.update({name: t.rect[:, i] for i, name in enumerate(_RECT)})
    for name, field, dtype in _COLUMNS:
        val = getattr(t, field)
        cols[name] = np.zeros(t.n_nodes) if val is None else np.asarray(val, dtype=dtype)
    if rel.kept is not None:
        cols["full_index"] = rel.kept
    if rel.curve is not None:
        cols["curve_lo"], cols["curve_hi"] = rel.curve[:, 0], rel.curve[:, 1]
    cols["geometry"] = box_wkb(t.rect)
    table = pa.table(cols)
    meta = {META_KEY: json.dumps(_metadata(rel)).encode(), b"geo": json.dumps(_geo_metadata(t.rect, crs)).encode()}
    path = Path(path)
    pq.write_table(table.replace_schema_metadata(meta), path, compression="zstd")   # ~40 % smaller than snappy
    return path
