"""Splits: private split points (medians, recursive slicing) and the space-filling curves (Morton,
Hilbert) that order cells. May import psdviz.core only."""
