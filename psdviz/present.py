"""The presentation layer: what an app or a command line needs to show releases, beyond the public API.

The Streamlit pages (``psdviz/ui``) and the CLI (``psdviz/cli/``) reach the engine through ``psdviz``
(the public API), the four product packages' faces (``psdviz.regions``, ``psdviz.coco``,
``psdviz.sparse``; ``psdviz.lab`` for comparisons), ``psdviz.sources`` (the CLI's inputs) and this module
alone; ``tests/test_layers.py`` enforces it. Everything here is defined in the engine, tested there
without Streamlit, and named here once:

- cells to draw: the frontier of a release at a zoom, the clicked cell, cells as GeoJSON, noise levels;
- rasters and colour classes: density rasters on the map's projection, the palette, the classes, the pale
  rule and its words, the legend;
- the whole interval beside every private number, and the labels of seeded (not private) output;
- the words a page needs about methods: their parameters' declarations and prefills, what auto measures,
  which methods plan for workloads, ``pv.build``'s own inputs;
- text from the user's files made inert before a map shows it (folium templates it again; tooltips are HTML);
- public facts a page shows: the grid's limits, the bundled samples and outlines, the privacy unit's words,
  how many rows a source read, the bad-rows rule's words (rows missing a coordinate, rows outside the
  domain and whether the swapped columns would keep them), whether noise swamps a release; the prepared
  points a bundled sample's builds share (``PointSet``).
"""
from __future__ import annotations

from .api import swamped
from .coco.sample import flights_table, load_flight_airports
from .core.bad_rows import OUTSIDE_WARNING_SHARE, kept_if_swapped, missing_words, outside_warning
from .core.domain import PointSet
from .core.grid import DEFAULT_RESOLUTION, MAX_RESOLUTION
from .core.map_text import map_text
from .core.optional import MissingExtraError, require
from .core.rng import FRESH, SEEDED, check_seeded_export, labelled
from .core.source import rows_read
from .core.validation import LARGE_EPSILON, check_int
from .core.workload import layer_digest
from .io import topojson
from .io.samples import SAMPLES, get_sample, load_sample, sample_points
from .kernel.intervals import whole_interval
from .kernel.statement import parameters_text
from .maps import legend_html
from .methods.auto import FEATURE_FRACTION, RULES
from .methods.auto import measured_note as auto_measured
from .methods.declarations import BUILD
from .methods.param_info import ParamInfo, parameter_info, suggested_value
from .methods.registry import accepts_workload
from .planner import PLANNABLE
from .publish.cells import (
    cell_at,
    cell_details,
    cells_geojson,
    deepest_fitting,
    frontier,
    frontier_sizes,
    noise_level,
    view_depth,
)
from .publish.colours import (
    LOW_SHARE,
    PALE_WORDS,
    PALETTE,
    Colours,
    colour_bins,
    legend_entries,
    parts_words,
    shade_grid,
    view_colours,
)
from .publish.group_privacy import unit_for
from .publish.pale_parts import cell_pieces
from .query.raster import mercator_centres
from .regions.colours import PALE as REGION_PALE
from .regions.colours import classes as region_classes
from .regions.colours import counted, edge_texts
from .regions.colours import noise_width as region_noise_width
from .regions.colours import shades as region_shades
from .sparse.laborious import LABORIOUS_MAX
from .sparse.sample import flights_sparse_table

__all__ = [
    "BUILD",
    "DEFAULT_RESOLUTION",
    "FEATURE_FRACTION",
    "FRESH",
    "LABORIOUS_MAX",
    "LARGE_EPSILON",
    "LOW_SHARE",
    "MAX_RESOLUTION",
    "OUTSIDE_WARNING_SHARE",
    "PALETTE",
    "PALE_WORDS",
    "PLANNABLE",
    "REGION_PALE",
    "RULES",
    "SAMPLES",
    "SEEDED",
    "Colours",
    "MissingExtraError",
    "ParamInfo",
    "PointSet",
    "accepts_workload",
    "auto_measured",
    "cell_at",
    "cell_details",
    "cell_pieces",
    "cells_geojson",
    "check_int",
    "check_seeded_export",
    "colour_bins",
    "counted",
    "deepest_fitting",
    "edge_texts",
    "flights_sparse_table",
    "flights_table",
    "frontier",
    "frontier_sizes",
    "get_sample",
    "kept_if_swapped",
    "labelled",
    "layer_digest",
    "legend_entries",
    "legend_html",
    "load_flight_airports",
    "load_sample",
    "map_text",
    "mercator_centres",
    "missing_words",
    "noise_level",
    "outside_warning",
    "parameter_info",
    "parameters_text",
    "parts_words",
    "region_classes",
    "region_noise_width",
    "region_shades",
    "require",
    "rows_read",
    "sample_points",
    "shade_grid",
    "suggested_value",
    "swamped",
    "topojson",
    "unit_for",
    "view_colours",
    "view_depth",
    "whole_interval",
]
