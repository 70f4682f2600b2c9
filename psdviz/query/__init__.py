"""Query: range decomposition over flat trees, the exact prefix-sum fast paths (pyramid, grid of grids,
split index), rasters, and exact answers on raw points (truth). May import psdviz.core only."""
