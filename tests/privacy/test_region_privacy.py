"""The region release in the D vs D' test: one point more changes one region count per level, and the
released counts' probabilities stay within e^epsilon (binomial tolerance as in the grid audit)."""
from __future__ import annotations

import geopandas as gpd
import numpy as np
from shapely.geometry import box
from test_grid_audit import ratio_ok

import psdviz as pv
from psdviz.regions import Regions


def test_neighbouring_datasets_ratio():
    """D and D' differ by one point in county A0: every released level-0 and level-1 outcome has
    probability within e^eps of the other's (binomial tolerance as in the grid audit)."""
    gdf = gpd.GeoDataFrame({"id": ["A", "B", "A0", "A1"], "p": [None, None, "A", "A"]},
                           geometry=[box(0, 0, 1, 1), box(1, 0, 2, 1), box(0, 0, 0.5, 1), box(0.5, 0, 1, 1)],
                           crs="EPSG:4326")
    r = Regions.from_frame(gdf, id="id", parent="p")
    d = np.random.default_rng(9).uniform([0, 0], [2, 1], (300, 2))
    d2 = np.vstack([d, [[0.2, 0.2]]])
    runs, eps = 3000, 1.0
    a = np.array([pv.build_regions(d, r, epsilon=eps, seed=s, resolution=8).noisy[[0, 2]] for s in range(runs)])
    b = np.array([pv.build_regions(d2, r, epsilon=eps, seed=s + runs, resolution=8).noisy[[0, 2]]
                  for s in range(runs)])
    for col in (0, 1):
        lo, hi = int(min(a[:, col].min(), b[:, col].min())), int(max(a[:, col].max(), b[:, col].max()))
        ca = np.bincount((a[:, col] - lo).astype(int), minlength=hi - lo + 1)
        cb = np.bincount((b[:, col] - lo).astype(int), minlength=hi - lo + 1)
        assert ratio_ok(ca, cb, runs, eps)
