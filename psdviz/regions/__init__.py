"""Regions: private counts for the places people ask about (a public layer of polygons in levels).

May import psdviz.core, splits, inference, query, kernel, io and sources; never publish, methods, lab or
ui.
"""
from ..core.workload import register_layer_reader
from .build import POOLINGS, measure_regions, true_counts
from .columns import ColumnGuess, guess_columns
from .layer import BUNDLED, RegionRepairWarning, Regions, bundled, read_layer, us_counties, us_states, world_countries
from .release import SOURCES, RegionRelease
from .table import people_table

register_layer_reader(Regions.coerce)     # Release.answer_regions reads a GeoDataFrame or a path through it

__all__ = ["BUNDLED", "POOLINGS", "SOURCES", "ColumnGuess", "RegionRelease", "RegionRepairWarning", "Regions",
           "bundled", "guess_columns", "measure_regions", "people_table", "read_layer", "true_counts", "us_counties",
           "us_states", "world_countries"]
