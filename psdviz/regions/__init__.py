"""Regions: private counts for the places people ask about (a public layer of polygons in levels).

May import psdviz.core, splits, inference, query, kernel, io and sources; never publish, methods, lab or
ui.
"""
from .build import POOLINGS, measure_regions, true_counts
from .layer import BUNDLED, RegionRepairWarning, Regions, bundled, us_counties, us_states, world_countries
from .release import SOURCES, RegionRelease

__all__ = ["BUNDLED", "POOLINGS", "SOURCES", "RegionRelease", "RegionRepairWarning", "Regions", "bundled",
           "measure_regions",
           "true_counts", "us_counties", "us_states", "world_countries"]
