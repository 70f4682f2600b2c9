"""The publisher's query workload, typed: rectangles or a region layer.

A workload is public input (the queries the publisher will ask); a method that plans for one
(``MethodSpec.workloads``) spends its budget where those queries need it. :func:`as_workload` turns
what a caller passes (a (k, 4) array of rectangles, or a layer that offers ``as_workload()``, such as
:class:`psdviz.regions.Regions`) into one of the two types; everything after it tells them apart by type.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from .optional import require


@dataclass(frozen=True, eq=False)
class Rectangles:
    """Query rectangles, (k, 4) rows of xmin, ymin, xmax, ymax in the release's coordinates."""

    rects: np.ndarray
    kind = "rectangles"

    def __len__(self) -> int:
        return int(self.rects.shape[0])

    def size_text(self) -> str:
        """'12 rectangles': how a release describes its workload."""
        return f"{len(self):,} rectangles"

    def record(self) -> dict:
        """The release parameters recording it (public input): the rectangles themselves."""
        return {"workload": np.asarray(self.rects, float).tolist()}


@dataclass(frozen=True, eq=False)
class RegionLayer:
    """Every region of every level of a layer as one query: shapely geometries, their ids, the levels."""

    geometry: np.ndarray
    ids: np.ndarray
    n_levels: int
    kind = "regions"

    def __len__(self) -> int:
        return int(len(self.geometry))

    def size_text(self) -> str:
        """'3,286 regions'."""
        return f"{len(self):,} regions"

    def record(self) -> dict:
        """Its size, levels and a SHA-256 of its ids and geometry (WKB): names the layer without copying it
        into the release."""
        return {"workload_regions": f"{self.size_text()} in {self.n_levels} level(s), sha256 "
                                    f"{layer_digest(self.geometry, self.ids)}"}


Workload = Rectangles | RegionLayer


def layer_digest(geometry, ids=None) -> str:
    """SHA-256 of a layer's outlines (WKB), each after its id and a zero byte when ``ids`` are given: names
    the layer's content (a release's record, the process's plans, the app's keys) without copying it."""
    shapely = require("shapely", "region layers")
    wkbs = shapely.to_wkb(np.asarray(geometry, dtype=object))
    if ids is None:
        return hashlib.sha256(b"".join(wkbs)).hexdigest()
    return hashlib.sha256(b"".join(str(rid).encode() + b"\0" + wkb for rid, wkb in zip(ids, wkbs))).hexdigest()


def as_workload(value) -> Workload:
    """``value`` as a typed workload: a :data:`Workload` as it is, a layer through its ``as_workload()``, and
    anything else as rectangles (checked against the domain by
    :func:`psdviz.methods.workload_budget.check_workload`)."""
    if isinstance(value, (Rectangles, RegionLayer)):
        return value
    convert = getattr(value, "as_workload", None)
    if callable(convert):
        return convert()
    return Rectangles(np.asarray(value, float))


# A region layer from what a caller has (a GeoDataFrame, a file's path): read by psdviz.regions, which
# registers its reader when it is imported (``import psdviz`` imports it), since no lower layer may import it.
_layer_reader = None


def register_layer_reader(reader) -> None:
    """Set the function that turns a GeoDataFrame or a path (and ``id``, ``parent``, ``name``, ``layer_name``
    keywords) into a region layer (:meth:`psdviz.regions.Regions.coerce`)."""
    global _layer_reader
    _layer_reader = reader


def region_layer(value, **columns):
    """``value`` as a region layer (an object with ``geometry`` and ``table()``): as it is, or read by the
    registered reader (a GeoDataFrame or a path, with ``id=``, ``name=``, ... naming its columns)."""
    if _layer_reader is None:      # pragma: no cover - psdviz.regions is imported with psdviz
        raise ValueError("region layers need psdviz.regions (import psdviz)")
    return _layer_reader(value, **columns)
