"""A release in a notebook (run by the test suite as a script): build, look, hand on.

    python docs/examples/notebook.py     # writes its maps to the folder given as the first argument
"""
import sys
from pathlib import Path

import numpy as np

import psdviz as pv
from psdviz import regions as rg
from psdviz.io.samples import sample_points

out = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
points = sample_points("geonames")                          # (n, 2) lon, lat
us = pv.Domain(-125, 24, -66, 50)                           # public bounds of the lower 48

rel = pv.build(points, us, "auto", epsilon=1.0)             # fresh randomness: a real release
cells = rel.to_geodataframe(crs="EPSG:4326")                # cells with estimates and whole 95 % intervals
print(cells[["estimate", "low_95", "high_95"]].describe().round(1))
pv.explore(rel).save(out / "cells.html")                     # the app's honest colours and legend

synthetic = rel.sample_points(n=10_000, seed=1)             # drawn from the release: no epsilon, no real point
print(len(synthetic), "synthetic points")

states = rg.us_states()
counts = pv.build_regions(points, states, epsilon=0.5)      # a region release
pv.explore(counts, states).save(out / "states.html")
print(counts.to_geodataframe(states)[["name", "estimate", "low_95", "high_95"]].head())
print(rel.report(format="markdown").splitlines()[0])       # the statement a publisher hands on
assert np.isfinite(cells["estimate"]).all()
