"""What each spatial method's parameters mean, where they come from and what they accept.

A builder's keyword signature gives each parameter's name, type and default; this table gives the
rest (one line of meaning, the paper section, the accepted range). :mod:`.param_info` joins the two
into :class:`psdviz.core.params.Param` declarations. A name means the same in every method unless
``FOR_METHOD`` says otherwise for one method.
"""
from __future__ import annotations

from ..core.params import Param
from .hilbert import MAX_ORDER
from .htree import MAX_SIZE
from .kdcell import MAX_GRID
from .kdtree import MAX_HEIGHT as KD_MAX_HEIGHT


def doc(meaning: str, paper: str = "", low: float | None = None, high: float | None = None, **limits) -> Param:
    """A declaration without its name, kind and default (the builder's signature supplies them)."""
    return Param("", "", None, meaning, paper, low=low, high=high, **limits)


FRACTION = {"low": 0.0, "high": 1.0, "open_low": True, "open_high": True}
POSITIVE = {"low": 0.0, "open_low": True}

GENERAL: dict[str, Param] = {
    "height": doc("Number of levels below the root. Deeper trees give smaller cells but split the budget over "
                  "more levels (more noise per count).", "ICDE'12 sections 3-4", 1, KD_MAX_HEIGHT),
    "budget": doc("How epsilon is split over levels: uniform (same at every level), geometric (more to the "
                  "deeper levels, which minimises query error) or leaf (all on the leaves).",
                  "ICDE'12 section 4.2, Lemma 3", label="budget plan per level"),
    "postprocess": doc("Make the noisy counts consistent (each parent = sum of its children) by least squares. "
                       "Uses released values only, so it costs no privacy and lowers error.", "ICDE'12 section 5"),
    "prune": doc("Cut the subtrees of nodes whose noisy count is below this threshold (empty areas stop early). "
                 "None keeps the full tree.", "ICDE'12 section 7", when_none="no pruning"),
    "pruning": doc("When the prune threshold applies: build (a node whose noisy count is small is not split and "
                   "gets the budget of the levels below for one more count, as the ICDE'12 authors' code does) "
                   "or after_ols (the paper's text: prune the complete tree after OLS).", "ICDE'12 section 7",
                   label="when to prune"),
    "stop_sds": doc("With pruning during the build, a node also stops when its noisy count is at most this many "
                    "noise standard deviations (a floor under the prune threshold, so that noise alone rarely "
                    "splits an empty node). auto's routes with non-negative least squares use 2.",
                    "ICDE'12 section 7 (the floor is psdviz's reading)", 0.0, 5.0, label="stop floor (noise sds)"),
    "count_fraction": doc("Share of epsilon spent on noisy counts; the rest pays for the private split points "
                          "(medians) of data-dependent trees.", "ICDE'12 section 6.2", **FRACTION),
    "switch": doc("Hybrid tree: the top levels split at private medians, the levels below at midpoints (free). "
                  "None: a quarter of the height.", "ICDE'12 sections 6.2, 8", 1, KD_MAX_HEIGHT,
                  when_none="a quarter of the height"),
    "split_grid": doc("Cells per side (a power of two) of a coarser public grid the splits use first: a node "
                      "spanning two or more of its cells is split on its lines, a node one cell wide splits the "
                      "other axis first, and only inside one cell are splits finer. For values recorded at that "
                      "precision and spread inside their cells. None: the release grid.", "", 2, None,
                      when_none="the release grid"),
    "median": doc("How each private median is chosen: em (exponential mechanism, the paper's choice), smooth "
                  "(smooth sensitivity, needs delta) or noisymean (a noisy average).", "ICDE'12 section 6.1",
                  label="private median method"),
    "sample_rate": doc("Compute the medians on a random sample of this share of the points: sampling amplifies "
                       "privacy, so each median gets a larger effective epsilon.", "ICDE'12 Theorem 7",
                       0.0, 1.0, open_low=True),
    "delta": doc("Failure probability allowed by each smooth-sensitivity median ((epsilon, delta)-DP); the "
                 "release's delta is this times the median levels, at most 0.001. Only used when median = smooth.",
                 "ICDE'12 Definition 4", **FRACTION),
    "order": doc("Hilbert curve order: points are snapped to a 2^order x 2^order grid before the curve orders "
                 "them (capped by the resolution).", "ICDE'12 sections 3.3, 8", 1, MAX_ORDER),
    "grid": doc("kd-cell: points are first counted on a grid x grid lattice; medians are then found on those "
                "cell counts instead of on the points.", "Xiao et al., as in ICDE'12 section 8", 2, MAX_GRID),
    "grid_size": doc("Cells per side. None: the paper's formula m = sqrt(N epsilon / c) with N estimated "
                     "privately (or the public N).", "ICDE'13 (UG), section 4", 1, None),
    "n_public": doc("Declare the number of points public (then N costs no budget). None keeps N private.",
                    "", 1, None, when_none="N stays private"),
    "n_fraction": doc("Share of epsilon used to estimate N privately when a formula needs it.", "", **FRACTION),
    "c": doc("Constant in the size formula sqrt(N epsilon / c): larger c = fewer, bigger cells.",
             "ICDE'13 (UG), section 4", **POSITIVE),
    "alpha": doc("Adaptive grid: share of epsilon spent on the coarse first-level grid; the rest goes to the "
                 "finer grids inside each cell.", "ICDE'13 (AG), section 5", **FRACTION),
    "c2": doc("Adaptive grid: constant of the second-level size m2 = sqrt(N' (1 - alpha) epsilon / c2), N' the "
              "cell's noisy count, rounded to the integer with the least modelled error.", "ICDE'13 (AG)",
              **POSITIVE),
    "m1": doc("Adaptive grid: cells per side of the first-level grid. None: max(10, floor(sqrt(N epsilon / c) / 4)).",
              "ICDE'13 (AG)", 1, 2000),
    "variant": doc("h-tree variant: standard (strips, then cells in each strip), composite (a coarse h-tree with "
                   "a fine h-tree in each cell) or hybrid (a coarse h-tree with uniform grids inside).",
                   "private h-tree paper, section 6", label="h-tree variant"),
    "size": doc("h-tree: number of strips and of cells per strip (m). None: sqrt(N epsilon / c) with N "
                "estimated privately.", "private h-tree paper, Eq. 3", 1, MAX_SIZE),
    "median_fraction": doc("h-tree: share of epsilon spent on the private split points; the rest pays for the "
                           "counts.", "private h-tree paper, section 5.1", **FRACTION),
    "tree_fraction": doc("PrivTree: share of epsilon spent on deciding which cells to split; the rest pays for the "
                         "leaf counts.", "PrivTree (SIGMOD'16), section 3", **FRACTION),
    "theta": doc("PrivTree: a cell is split while its noisy, depth-biased count exceeds theta (the paper uses 0).",
                 "PrivTree (SIGMOD'16), Algorithm 2"),
    "max_depth": doc("PrivTree: a safety cap on the depth (no privacy cost); the tree normally stops earlier.",
                     "", 1, 40),
    "split_fraction": doc("kd-privtree: share of epsilon spent on choosing where each cell is cut (exponential "
                          "mechanism over a few grid positions); the rest goes to the split tests and counts.",
                          "", **FRACTION),
    "split_levels": doc("kd-privtree: how many top depths choose their cut privately (the budget is split evenly "
                        "between them); deeper cells are cut at the middle of their longer side, for free.", "", 1, 64),
}

FOR_METHOD: dict[tuple[str, str], Param] = {
    ("quadtree", "height"): doc("Levels below the root. None: chosen from N and epsilon, h = ceil(log4(N epsilon / "
                                "c)) (quad-opt); deeper trees give smaller cells but more noise per cell.",
                                "ICDE'12 sections 4, 8", 1, 64, when_none="chosen from N and epsilon"),
    ("quadtree", "c"): doc("Constant of the height rule h = ceil(log4(N epsilon / c)); a leaf then holds about "
                           "c / epsilon points, a few noise standard deviations.", "ICDE'12 section 8", **POSITIVE),
    ("hybrid", "height"): doc("Levels below the root. None: the quadtree's rule h = ceil(log4(N epsilon / 10)), at "
                              "most the paper's 8 (its lower levels are quadtree levels); N public or estimated.",
                              "ICDE'12 section 8", 1, KD_MAX_HEIGHT),
    ("htree", "c"): doc("h-tree: constant in the size formula m = sqrt(N epsilon / c) (the paper's c = 3).",
                        "private h-tree paper, Eq. 3", **POSITIVE),
    ("ag", "c"): doc("Adaptive grid: constant of the first-level size m1 = sqrt(N epsilon / c) / 4 (the paper's 10).",
                     "ICDE'13 (AG)", **POSITIVE),
    ("kd-privtree", "tree_fraction"): doc("kd-privtree: share of epsilon spent on PrivTree's tests of which cells "
                                          "to split; split_fraction pays for where, the rest for the leaf counts.",
                                          "PrivTree (SIGMOD'16), Theorem 3.1", **FRACTION),
    ("kd-privtree", "theta"): doc("kd-privtree: a cell is split while its noisy, depth-biased count exceeds theta "
                                  "(PrivTree's rule; 0 as in the paper).", "PrivTree (SIGMOD'16)"),
    ("kd-privtree", "max_depth"): doc("kd-privtree: a safety cap on the depth of the binary tree (no privacy cost).",
                                      "", 1, 64),
    ("privtree", "max_depth"): doc("PrivTree: a safety cap on the depth (no privacy cost); the tree normally "
                                   "stops earlier.", "", 1, 40),
}


# pv.build's own inputs, shown beside the method's parameters
BUILD: dict[str, Param] = {
    "epsilon": doc("Privacy loss: smaller epsilon = more noise = stronger privacy. Any one person changes what is "
                   "published by a factor of at most e^epsilon.", "", 0.0, 1e6, open_low=True),
    "seed": doc("Fresh randomness for real releases; a seed makes a lesson reproducible (and is labelled so: a "
                "seeded release is NOT private and is saved only when asked).", "", 0, None),
    "resolution": doc("Every published coordinate lies on a public grid of 2^k positions per axis, fixed before the "
                      "data are seen (no float can leak a data value); it is also the data's precision: no cell is "
                      "narrower than one step. 20 is about 38 m on the world; 8 for data on a 256 x 256 grid.",
                      "", 1, 30),
}


def doc_for(method: str, name: str) -> Param:
    """The declaration text of ``name`` in ``method`` (a ValueError if none: every parameter has one)."""
    found = FOR_METHOD.get((method, name)) or GENERAL.get(name)
    if found is None:
        raise ValueError(f"parameter {name!r} of {method!r} has no declaration in psdviz/methods/declarations.py")
    return found
