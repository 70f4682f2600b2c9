"""Regions: private counts for the places people ask about (a public layer of polygons in levels).

May import psdviz.core, splits, inference, query, publish, io and sources; never methods, lab or ui.
"""
from .build import measure_regions
from .layer import Regions, us_counties, us_states, world_countries
from .release import RegionRelease

__all__ = ["RegionRelease", "Regions", "measure_regions", "us_counties", "us_states", "world_countries"]
